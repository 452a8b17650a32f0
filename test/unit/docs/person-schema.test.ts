import { describe, expect, it } from 'vitest';
import { buildHandler } from '../../../functions/get-person-schema';
import { personSchemaAt, personSchemaBody } from '../../../lib/docs/person-schema';
import { PersonOut } from '../../../lib/domain/schemas';
import { httpEvent, invoke } from '../../support/events';

describe('the JSON Schema of the Person', () => {
  it('is JSON Schema 2020-12 with its own URL as $id', () => {
    const schema = personSchemaAt(personSchemaBody(), 'https://api.example.org/prod');

    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe('https://api.example.org/prod/schema/Person');
    expect(schema.title).toBe('Person');
  });

  it('requires every property of the Person, as the zod schema does', () => {
    const { required, properties } = personSchemaBody() as { required: string[]; properties: object };

    expect(required.sort()).toEqual(Object.keys(PersonOut.shape).sort());
    expect(Object.keys(properties).sort()).toEqual(Object.keys(PersonOut.shape).sort());
  });

  it('is served as application/schema+json, public and cacheable', async () => {
    const reply = await invoke(
      buildHandler({ schema: personSchemaBody() }),
      httpEvent({ method: 'GET', route: '/schema/Person' }),
    );

    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/schema+json; charset=utf-8');
    expect(reply.headers['access-control-allow-origin']).toBe('*');
    expect(reply.body.$id).toBe('https://api.example.test/schema/Person');
  });
});
