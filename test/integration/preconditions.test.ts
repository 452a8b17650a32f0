/**
 * Conditional requests on every object with a version (API.md 2.1): Person, NamePrefix and NameSuffix
 * answer their ETag, GET answers 304 to a current If-None-Match and 412 to an If-Match that does not
 * hold (HEAD alike), and a PATCH whose If-Match or
 * If-None-Match does not hold is 412 with the current ETag, says why, and changes nothing.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildCreateNamePrefix } from '../../functions/create-name-prefix';
import { buildHandler as buildCreateNameSuffix } from '../../functions/create-name-suffix';
import { buildHandler as buildGetNamePrefix } from '../../functions/get-name-prefix';
import { buildHandler as buildGetNameSuffix } from '../../functions/get-name-suffix';
import { buildHandler as buildGetPerson } from '../../functions/get-person';
import { buildHandler as buildGetPrefix } from '../../functions/get-prefix';
import { buildHandler as buildGetSuffix } from '../../functions/get-suffix';
import { buildHandler as buildUpdateNamePrefix } from '../../functions/update-name-prefix';
import { buildHandler as buildUpdateNameSuffix } from '../../functions/update-name-suffix';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import type { VocabularyRepository } from '../../lib/domain/ports/vocabulary';
import { type Json, personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import type { TestTable } from '../support/dynamo';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

interface Problem {
  type: string;
  status: number;
  detail: string;
}

/** The table as it is, but with `race` run once just before the first transaction reaches it. */
const racedTable = (race: () => Promise<void>): TestTable & { raced: () => boolean } => {
  const { client, tableName } = suite.table;
  const send = client.send.bind(client);
  let raced = false;
  const interleaved = Object.create(client, {
    send: {
      value: async (command: Parameters<typeof send>[0]) => {
        if (command instanceof TransactWriteCommand && !raced) {
          raced = true;
          await race();
        }
        return send(command);
      },
    },
  }) as typeof client;
  return { client: interleaved, tableName, raced: () => raced };
};

const expect412 = (
  response: { status: number; headers: Record<string, string>; body: unknown },
  etag: string,
) => {
  expect(response.status).toBe(412);
  expect(response.headers.etag).toBe(etag);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: '/problems/precondition-failed', status: 412 });
  return (response.body as Problem).detail;
};

const VOCABULARIES = [
  {
    kind: 'NamePrefix',
    term: 'prefix',
    view: 'Prefix',
    create: buildCreateNamePrefix,
    get: buildGetNamePrefix,
    update: buildUpdateNamePrefix,
    getView: buildGetPrefix,
  },
  {
    kind: 'NameSuffix',
    term: 'suffix',
    view: 'Suffix',
    create: buildCreateNameSuffix,
    get: buildGetNameSuffix,
    update: buildUpdateNameSuffix,
    getView: buildGetSuffix,
  },
] as const;

/** A person to write the vocabularies as: their writes need an existing requester. */
let editor: number;

beforeAll(async () => {
  const { status, body } = await suite.api.post(personBody('Edith', uniqueTag('Editor'), uniqueEmail()));
  expect(status).toBe(201);
  editor = body.id;
});

describe.each(VOCABULARIES)('$kind: ETag, 304 and conditional PATCH (API.md 2.1)', (vocabulary) => {
  const { kind, term, view } = vocabulary;
  const repository = (table: TestTable = suite.table): VocabularyRepository =>
    vocabularyRepository({ client: table.client, tableName: table.tableName });
  const item = (id: number) => ({ path: `/${kind}/${id}`, pathParameters: { id: String(id) } });

  const post = (body: Json) =>
    invoke<Json>(
      vocabulary.create({ vocabulary: repository() }),
      httpEvent({ method: 'POST', route: `/${kind}`, body, requester: editor }),
    );
  const get = (id: number, headers: Record<string, string> = {}) =>
    invoke<Json>(
      vocabulary.get({ vocabulary: repository() }),
      httpEvent({ method: 'GET', route: `/${kind}/{id}`, ...item(id), headers }),
    );
  const head = (id: number, headers: Record<string, string> = {}) =>
    invoke<Json>(
      vocabulary.get({ vocabulary: repository() }),
      httpEvent({ method: 'HEAD', route: `/${kind}/{id}`, ...item(id), headers }),
    );
  const getView = (id: number, headers: Record<string, string> = {}) =>
    invoke<Json>(
      vocabulary.getView({ vocabulary: repository() }),
      httpEvent({
        method: 'GET',
        route: `/${view}/{id}`,
        path: `/${view}/${id}`,
        pathParameters: { id: String(id) },
        headers,
      }),
    );
  const patch = (id: number, body: Json, headers: Record<string, string> = {}, table?: TestTable) =>
    invoke<Json>(
      vocabulary.update({ vocabulary: repository(table) }),
      httpEvent({ method: 'PATCH', route: `/${kind}/{id}`, ...item(id), body, requester: editor, headers }),
    );

  /** A new entry of this vocabulary, PATCHed up to `version`. */
  const entryAt = async (version = 1) => {
    const tag = uniqueTag('cond');
    const { status, body } = await post({ [term]: `Title ${tag}`, abbreviation: `T.${tag}` });
    expect(status).toBe(201);
    const id = body.id as number;
    for (let next = 2; next <= version; next += 1)
      expect((await patch(id, { local_reference_id: `step-${next}` })).status).toBe(200);
    return id;
  };

  it('answers the entry version as a strong ETag on POST, GET and the view', async () => {
    const tag = uniqueTag('etag');
    const created = await post({ [term]: `Title ${tag}`, abbreviation: `E.${tag}` });
    const id = created.body.id as number;

    const read = await get(id);
    const viewed = await getView(id);

    expect(created.status).toBe(201);
    expect(created.headers.etag).toBe('"1"');
    expect(read.headers.etag).toBe('"1"');
    expect(read.body).toMatchObject({ CoreMetaData: { version: 1 } });
    expect(viewed.headers.etag).toBe('"1"');
  });

  it('answers GET with 304 and the ETag, no body, when If-None-Match names the current version', async () => {
    const id = await entryAt(2);

    const strong = await get(id, { 'if-none-match': '"2"' });
    const weak = await get(id, { 'if-none-match': '"1", W/"2"' });
    const any = await get(id, { 'if-none-match': '*' });
    const stale = await get(id, { 'if-none-match': '"1"' });
    const viewed = await getView(id, { 'if-none-match': '"2"' });

    for (const response of [strong, weak, any, viewed]) {
      expect(response.status).toBe(304);
      expect(response.headers.etag).toBe('"2"');
      expect(response.body).toBeUndefined();
    }
    expect(stale.status).toBe(200);
    expect(stale.headers.etag).toBe('"2"');
  });

  it('GET and HEAD, of the entry and of its view, honour If-Match: the current tag or * answers', async () => {
    const id = await entryAt(2);

    for (const ifMatch of ['"2"', '*', '"1", "2"']) {
      const read = await get(id, { 'if-match': ifMatch });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ CoreMetaData: { version: 2 } });
      expect((await getView(id, { 'if-match': ifMatch })).status).toBe(200);
    }
    expect((await head(id, { 'if-match': '"2"' })).status).toBe(200);
  });

  it('GET and HEAD with an If-Match that does not match are 412 saying why, before If-None-Match', async () => {
    const id = await entryAt(2);

    expect(expect412(await get(id, { 'if-match': '"1"' }), '"2"')).toMatch(new RegExp(`${kind} has changed`));
    expect(expect412(await getView(id, { 'if-match': '"1"' }), '"2"')).toMatch(/version 2/);
    expect(expect412(await get(id, { 'if-match': 'W/"2"' }), '"2"')).toMatch(
      /weak tag.*send the strong tag "2"/,
    );
    expect(expect412(await get(id, { 'if-match': '2' }), '"2"')).toMatch(/2 is not an entity tag/);
    // RFC 9110 13.2.2: If-Match is evaluated first, so a current If-None-Match does not make it a 304.
    expect412(await get(id, { 'if-match': '"1"', 'if-none-match': '"2"' }), '"2"');
    const headed = await head(id, { 'if-match': '"1"' });
    expect(headed.status).toBe(412);
    expect(headed.headers.etag).toBe('"2"');
    expect(headed.body).toBeUndefined();
  });

  it('GET with If-Match of an id that names no entry is 404, not 412', async () => {
    const response = await get(999_999_999, { 'if-match': '*' });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ type: '/problems/not-found' });
  });

  it('PATCH with the current If-Match (or *) is 200 with the new ETag', async () => {
    const id = await entryAt(2);

    const current = await patch(id, { local_reference_id: 'current' }, { 'if-match': '"1", "2"' });
    const any = await patch(id, { local_reference_id: 'any' }, { 'if-match': '*' });

    expect(current.status).toBe(200);
    expect(current.headers.etag).toBe('"3"');
    expect(current.body).toMatchObject({ local_reference_id: 'current', CoreMetaData: { version: 3 } });
    expect(any.status).toBe(200);
    expect(any.headers.etag).toBe('"4"');
  });

  it('PATCH with a stale If-Match is 412 naming the version it is at, and writes nothing', async () => {
    const id = await entryAt(3);

    const response = await suite.unchangedBy(() =>
      patch(id, { abbreviation: 'Stale.' }, { 'if-match': '"1"' }),
    );

    const detail = expect412(response, '"3"');
    expect(detail).toMatch(new RegExp(`${kind} has changed`));
    expect(detail).toMatch(/version 3/);
    expect(detail).not.toMatch(/person/i);
    expect((await get(id)).headers.etag).toBe('"3"');
  });

  it('PATCH with a weak or a malformed If-Match is 412 saying so, and writes nothing', async () => {
    const id = await entryAt(2);

    const weak = await suite.unchangedBy(() =>
      patch(id, { local_reference_id: 'w' }, { 'if-match': 'W/"2"' }),
    );
    const malformed = await suite.unchangedBy(() =>
      patch(id, { local_reference_id: 'm' }, { 'if-match': 'abc' }),
    );

    expect(expect412(weak, '"2"')).toMatch(/weak.*send the strong tag "2"/);
    expect(expect412(malformed, '"2"')).toMatch(/abc is not an entity tag.*"2"/);
  });

  it('PATCH with If-None-Match * or naming the current version is 412, and writes nothing', async () => {
    const id = await entryAt(2);

    const any = await suite.unchangedBy(() =>
      patch(id, { local_reference_id: 'x' }, { 'if-none-match': '*' }),
    );
    const strong = await suite.unchangedBy(() =>
      patch(id, { local_reference_id: 'x' }, { 'if-none-match': '"2"' }),
    );
    const weak = await suite.unchangedBy(() =>
      patch(id, { local_reference_id: 'x' }, { 'if-none-match': 'W/"2"' }),
    );

    expect(expect412(any, '"2"')).toMatch(/exists, at version 2/);
    for (const response of [strong, weak]) expect(expect412(response, '"2"')).toMatch(/names version 2/);
  });

  it('PATCH with If-None-Match naming only other versions goes on', async () => {
    const id = await entryAt(2);

    const response = await patch(id, { local_reference_id: 'on' }, { 'if-none-match': '"1", W/"3"' });

    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"3"');
  });

  it('checks If-Match again on the version a write racing in between left', async () => {
    const id = await entryAt(1);
    const table = racedTable(async () => {
      expect((await patch(id, { local_reference_id: 'racer' })).status).toBe(200);
    });

    const response = await patch(id, { local_reference_id: 'late' }, { 'if-match': '"1"' }, table);

    expect(table.raced()).toBe(true);
    expect412(response, '"2"');
    const stored = await get(id);
    expect(stored.headers.etag).toBe('"2"');
    expect(stored.body).toMatchObject({ local_reference_id: 'racer' });
  });
});

describe('GET and HEAD /Person/{id}: If-Match (API.md 2.1, RFC 9110 13.1.1)', () => {
  const read = (method: 'GET' | 'HEAD', id: number, headers: Record<string, string>) =>
    invoke<Json>(
      buildGetPerson({ persons: testRepository(suite.table) }),
      httpEvent({
        method,
        route: '/Person/{id}',
        path: `/Person/${id}`,
        pathParameters: { id: String(id) },
        headers,
      }),
    );
  const personAt = async (version: number) => {
    const { body } = await suite.api.post(personBody('Read', uniqueTag('Cond'), uniqueEmail()));
    for (let next = 2; next <= version; next += 1)
      expect((await suite.api.patch(body.id, { local_reference_id: `v${next}` })).status).toBe(200);
    return body.id as number;
  };

  it('answers when If-Match is * or lists the current ETag', async () => {
    const id = await personAt(2);
    for (const method of ['GET', 'HEAD'] as const)
      for (const ifMatch of ['*', '"2"', 'W/"2", "2"']) {
        const response = await read(method, id, { 'if-match': ifMatch });
        expect(response.status).toBe(200);
        expect(response.headers.etag).toBe('"2"');
      }
  });

  it('is 412 with the current ETag, saying why, for another version, a weak tag or a malformed one', async () => {
    const id = await personAt(2);
    for (const method of ['GET', 'HEAD'] as const) {
      const stale = await read(method, id, { 'if-match': '"1"' });
      const weak = await read(method, id, { 'if-match': 'W/"2"' });
      const malformed = await read(method, id, { 'if-match': '2' });
      for (const response of [stale, weak, malformed]) {
        expect(response.status).toBe(412);
        expect(response.headers.etag).toBe('"2"');
      }
      if (method === 'HEAD') {
        expect(stale.body).toBeUndefined();
        continue;
      }
      expect(expect412(stale, '"2"')).toMatch(/person has changed since ETag "1": it is at version 2/);
      expect(expect412(weak, '"2"')).toMatch(/weak tag, which never matches a write or a read/);
      expect(expect412(malformed, '"2"')).toMatch(/2 is not an entity tag/);
    }
    // If-Match before If-None-Match (RFC 9110 13.2.2): not a 304.
    expect412(await read('GET', id, { 'if-match': '"1"', 'if-none-match': '"2"' }), '"2"');
  });

  it('leaves a 404 a 404 and a merged person a 301: the conditions apply only to a 2xx (RFC 9110 13.2.1)', async () => {
    expect((await read('GET', 999_999_999, { 'if-match': '*' })).status).toBe(404);
    expect((await read('HEAD', 999_999_999, { 'if-match': '"1"' })).status).toBe(404);

    const survivor = await personAt(1);
    const source = await personAt(1);
    expect((await suite.api.merge(survivor, { source })).status).toBe(200);
    for (const ifMatch of ['*', '"1"', '"7"']) {
      const moved = await read('GET', source, { 'if-match': ifMatch });
      expect(moved.status).toBe(301);
      expect(moved.headers.location).toMatch(new RegExp(`/Person/${survivor}$`));
    }
  });
});

describe('PATCH /Person/{id}: If-None-Match, and the reasons of If-Match (API.md 2.1)', () => {
  /** A new person at version 2. */
  const personAt2 = async () => {
    const { body } = await suite.api.post(personBody('Cond', uniqueTag('Person'), uniqueEmail()));
    expect((await suite.api.patch(body.id, { local_reference_id: 'v2' })).status).toBe(200);
    return body.id;
  };
  const refused = (id: number, headers: Record<string, string>) =>
    suite.unchangedBy(() => suite.api.patch(id, { local_reference_id: 'refused' }, { headers }));

  it('If-None-Match * is 412: the person exists', async () => {
    const id = await personAt2();

    expect(expect412(await refused(id, { 'if-none-match': '*' }), '"2"')).toMatch(/exists, at version 2/);
  });

  it.each(['"2"', 'W/"2"', '"1", W/"2"'])(
    'If-None-Match %s names the current version: 412, and nothing written',
    async (header) => {
      const id = await personAt2();

      expect(expect412(await refused(id, { 'if-none-match': header }), '"2"')).toMatch(
        /names version 2, the version the person is at/,
      );
    },
  );

  it('If-None-Match that is not an entity tag is 412 saying so', async () => {
    const id = await personAt2();

    expect(expect412(await refused(id, { 'if-none-match': '2' }), '"2"')).toMatch(/2 is not an entity tag/);
  });

  it('If-None-Match naming another version goes on', async () => {
    const id = await personAt2();

    const response = await suite.api.patch(
      id,
      { local_reference_id: 'on' },
      { headers: { 'if-none-match': '"1"' } },
    );

    expect(response.status).toBe(200);
    expect(response.headers.etag).toBe('"3"');
  });

  it('If-Match W/"2" on version 2 is 412 saying the tag is weak, not that the person changed', async () => {
    const id = await personAt2();

    const detail = expect412(await refused(id, { 'if-match': 'W/"2"' }), '"2"');

    expect(detail).toMatch(/weak tag, which never matches a write/);
    expect(detail).toContain('send the strong tag "2"');
    expect(detail).not.toMatch(/changed/);
  });

  it('If-Match 2 on version 2 is 412 saying it is not an entity tag, not that the person changed', async () => {
    const id = await personAt2();

    const detail = expect412(await refused(id, { 'if-match': '2' }), '"2"');

    expect(detail).toMatch(/2 is not an entity tag/);
    expect(detail).toContain('"2"');
    expect(detail).not.toMatch(/changed/);
  });

  it('If-Match listing only tags that do not match names each reason', async () => {
    const id = await personAt2();

    const detail = expect412(await refused(id, { 'if-match': '"1", W/"2", abc' }), '"2"');

    expect(detail).toMatch(/"1" names version 1/);
    expect(detail).toMatch(/W\/"2" is a weak tag/);
    expect(detail).toMatch(/abc is not an entity tag/);
  });

  it('checks If-Match again on the version a write racing in between left', async () => {
    const id = await personAt2();
    const table = racedTable(async () => {
      expect((await suite.api.patch(id, { local_reference_id: 'racer' })).status).toBe(200);
    });
    const racing = personApi(testRepository(table));

    const response = await racing.patch(
      id,
      { local_reference_id: 'late' },
      { headers: { 'if-match': '"2"' } },
    );

    expect(table.raced()).toBe(true);
    expect412(response, '"3"');
    const stored = await suite.api.get(id);
    expect(stored.headers.etag).toBe('"3"');
    expect(stored.body.local_reference_id).toBe('racer');
  });
});
