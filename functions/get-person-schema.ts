import type { JsonSchema } from '../lib/docs/json-schema';
import { personSchemaAt, personSchemaBody } from '../lib/docs/person-schema';
import { documentResponse } from '../lib/docs/serve';
import { readHandler } from '../lib/http/handler';

/** GET /schema/Person: JSON Schema 2020-12 of the full Person, built once per container. */
export const buildHandler = ({ schema }: { schema: JsonSchema }) =>
  readHandler().handler(async ({ links }) =>
    documentResponse(personSchemaAt(schema, links.baseUrl), 'application/schema+json'),
  );

export const handler = buildHandler({ schema: personSchemaBody() });
