import { openApiDocument } from '../lib/docs/openapi';
import { getOpenApiHandler } from '../lib/http/self-description-handlers';

/** GET /openapi.json: the document is built once per container. */
export const buildHandler = getOpenApiHandler;

export const handler = buildHandler({ document: openApiDocument() });
