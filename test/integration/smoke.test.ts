import { beforeAll, describe, expect, it } from 'vitest';
import { personApi, personBody } from '../support/api';
import { createTestTable, testRepository } from '../support/dynamo';

describe('smoke', () => {
  let api: ReturnType<typeof personApi>;
  beforeAll(async () => {
    api = personApi(testRepository(await createTestTable()));
  });
  it('creates, reads, patches, refuses duplicates', async () => {
    const created = await api.post(personBody('John', 'Smith', 'jsmith@no-reply.org'));
    console.log(JSON.stringify(created, null, 1));
    const got = await api.get(created.body.id);
    expect(got.status).toBe(200);
    const dup = await api.post(personBody('Jane', 'Smith', 'JSMITH@no-reply.org '));
    console.log(JSON.stringify(dup, null, 1));
    const patched = await api.patch(created.body.id, { Emails: { '@set': [{ email: 'other@x.org' }] } });
    console.log(JSON.stringify(patched.body.Emails), patched.headers);
  });
});
