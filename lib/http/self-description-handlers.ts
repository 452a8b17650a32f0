/**
 * Handlers of the self-description routes (API.md 1, 2.1, 9): the OpenAPI document, the Person's JSON
 * Schema, the JSON-LD context, the docs page and the problem type pages. They load schemas and
 * documents only, never storage, so their functions start without the AWS SDK.
 */
import type { AssetSource } from '../docs/assets';
import { jsonLdContext, termBaseOf } from '../docs/context';
import type { JsonSchema } from '../docs/json-schema';
import { type OpenApiDocument, withServer } from '../docs/openapi';
import { personSchemaAt } from '../docs/person-schema';
import {
  docsAssetResponse,
  docsPageResponse,
  documentResponse,
  problemPageResponse,
} from './document-responses';
import { readHandler } from './handler';
import { headerOf, routePath } from './request';

/** GET /openapi.json: `servers` names the request's base. */
export const getOpenApiHandler = ({ document }: { document: OpenApiDocument }) =>
  readHandler().handler(async ({ links }) =>
    documentResponse(withServer(document, links.baseUrl), 'application/json'),
  );

/** GET /schema/Person: JSON Schema 2020-12 of the full Person, its `$id` this URL. */
export const getPersonSchemaHandler = ({ schema }: { schema: JsonSchema }) =>
  readHandler().handler(async ({ links }) =>
    documentResponse(personSchemaAt(schema, links.baseUrl), 'application/schema+json'),
  );

/** GET /context.jsonld: the JSON-LD context that every response names in `@context`. */
export const getContextHandler = () =>
  readHandler().handler(async ({ links }) =>
    documentResponse(jsonLdContext(termBaseOf(links.contextUrl)), 'application/ld+json'),
  );

/** GET /docs and GET /docs/{asset}: Swagger UI on this API's openapi.json, served from the package. */
export const getDocsHandler = ({ assets }: { assets: AssetSource }) =>
  readHandler().handler(async ({ event, links }) => {
    const asset = event.pathParameters?.asset;
    return asset === undefined
      ? docsPageResponse(routePath(event), links.baseUrl)
      : docsAssetResponse(asset, assets);
  });

/**
 * GET /problems/{name}: what a problem type means and what to do; GET /problems: every problem type's
 * URL, title and status. HTML, or (when preferred) JSON.
 */
export const getProblemHandler = () =>
  readHandler().handler(async ({ event, links }) =>
    problemPageResponse(event.pathParameters?.name, headerOf(event, 'accept'), links.baseUrl),
  );
