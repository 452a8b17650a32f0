/**
 * `GET /schema/Person`: the full Person (API.md 3) as a JSON Schema 2020-12 document, generated from
 * the zod schema the service itself answers with, so it cannot disagree with what GET returns. Clients
 * also check what they send back in a PATCH with it, so each `primary` admits GRC's 1 and 0 too.
 */
import { PersonOut } from '../domain/schemas';
import { type JsonSchema, jsonSchemaDocument } from './json-schema';

/** The Person schema as it is for every deployment; `personSchemaAt` adds where it lives. */
export const personSchemaBody = (): JsonSchema => ({
  ...jsonSchemaDocument(PersonOut, 'output'),
  title: 'Person',
  description:
    'The full Person as GET /Person/{id}, POST /Person and PATCH /Person/{id} answer it. Sent back in a ' +
    "PATCH, each `primary` may also be GRC's `1` or `0`, which the service answers as `true` and `false`.",
});

/** The document with `$id` set to its own URL, so tools can cite and resolve it. */
export const personSchemaAt = (body: JsonSchema, baseUrl: string): JsonSchema => {
  const { $schema, ...rest } = body;
  return { $schema, $id: `${baseUrl}/schema/Person`, ...rest };
};
