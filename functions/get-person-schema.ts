import { personSchemaBody } from '../lib/docs/person-schema';
import { getPersonSchemaHandler } from '../lib/http/self-description-handlers';

/** GET /schema/Person: the schema is built once per container. */
export const buildHandler = getPersonSchemaHandler;

export const handler = buildHandler({ schema: personSchemaBody() });
