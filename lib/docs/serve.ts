/**
 * The responses of the self-description routes. They are public (API.md 9) and fetched by tools from
 * anywhere (JSON-LD processors, API clients, browsers on other origins), so they may be cached and
 * read cross-origin.
 */
import { NotFound } from '../domain/errors';
import { type ApiResponse, rawOk } from '../http/responses';
import type { AssetSource } from './assets';
import {
  DOCS_SCRIPT,
  DOCS_SCRIPT_NAME,
  docsContentSecurityPolicy,
  docsPage,
  isSwaggerUiFile,
  SWAGGER_UI_FILES,
} from './docs-page';

const PUBLIC_HEADERS = {
  'Cache-Control': 'public, max-age=300',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
};

/** A self-description document in its own media type (not negotiated: its type is what it is). */
export const documentResponse = (document: unknown, mediaType: string): ApiResponse =>
  rawOk({ contentType: `${mediaType}; charset=utf-8`, content: JSON.stringify(document) }, PUBLIC_HEADERS);

const ASSET_HEADERS = { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/** `GET /docs`: the page, its URLs relative to the path it was asked at. */
export const docsPageResponse = (path: string, baseUrl: string): ApiResponse =>
  rawOk(
    { contentType: 'text/html; charset=utf-8', content: docsPage(path.endsWith('/') ? '../' : './') },
    {
      'Cache-Control': 'no-cache',
      'Content-Security-Policy': docsContentSecurityPolicy(originOf(baseUrl)),
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  );

/** `GET /docs/{asset}`: the page's own script, or a file of Swagger UI; anything else is 404. */
export const docsAssetResponse = async (name: string, assets: AssetSource): Promise<ApiResponse> => {
  if (name === DOCS_SCRIPT_NAME)
    return rawOk({ contentType: 'text/javascript; charset=utf-8', content: DOCS_SCRIPT }, ASSET_HEADERS);
  if (!isSwaggerUiFile(name)) throw new NotFound('documentation file', name);
  const contentType = SWAGGER_UI_FILES[name];
  const bytes = await assets.read(name);
  // Text goes out as text; only images need API Gateway's base64 encoding.
  const content = contentType.startsWith('image/') ? bytes : new TextDecoder().decode(bytes);
  return rawOk({ contentType, content }, ASSET_HEADERS);
};
