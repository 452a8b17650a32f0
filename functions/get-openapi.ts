import { type OpenApiDocument, openApiDocument, withServer } from '../lib/docs/openapi';
import { documentResponse } from '../lib/docs/serve';
import { readHandler } from '../lib/http/handler';

/** GET /openapi.json: the document is built once per container; `servers` names the request's base. */
export const buildHandler = ({ document }: { document: OpenApiDocument }) =>
  readHandler().handler(async ({ links }) =>
    documentResponse(withServer(document, links.baseUrl), 'application/json'),
  );

export const handler = buildHandler({ document: openApiDocument() });
