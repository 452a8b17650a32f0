/**
 * The responses of the self-description routes (the documents of lib/docs: OpenAPI, JSON Schema,
 * JSON-LD context, the docs page and the problem type pages). They are public (API.md 9) and fetched
 * by tools from anywhere (JSON-LD processors, API clients, browsers on other origins), so they may be
 * cached and read cross-origin.
 */

import Negotiator from 'negotiator';
import type { AssetSource } from '../docs/assets';
import {
  DOCS_SCRIPT,
  DOCS_SCRIPT_NAME,
  docsContentSecurityPolicy,
  docsPage,
  isSwaggerUiFile,
  SWAGGER_UI_FILES,
} from '../docs/docs-page';
import { problemIndex, problemIndexHtml, problemTypeHtml, problemTypePage } from '../docs/problem-page';
import { NotFound } from '../domain/errors';
import { type ApiResponse, rawOk } from './responses';

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

/**
 * The same for everyone and changed only by a deploy: caches may keep it an hour. Public, and fetched
 * by tools on any origin, as the other self-description documents are.
 */
const PAGE_HEADERS = {
  'Cache-Control': 'public, max-age=3600',
  Vary: 'Accept',
  'Access-Control-Allow-Origin': '*',
  'X-Content-Type-Options': 'nosniff',
};

/** The page may style itself inline and load nothing: it has no script, image or form. */
const HTML_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

const JSON_TYPES = ['application/json', 'application/problem+json'];

/** JSON when `Accept` prefers `application/json` or `application/problem+json` to HTML, else HTML. */
export const problemPageResponse = (
  name: string | undefined,
  accept: string | undefined,
  baseUrl: string,
): ApiResponse => {
  // Without a name: the index of every problem type (GET /problems).
  const json = name === undefined ? problemIndex() : problemTypePage(name);
  const preferred = accept
    ? new Negotiator({ headers: { accept } }).mediaType(['text/html', ...JSON_TYPES])
    : undefined;
  if (preferred && JSON_TYPES.includes(preferred))
    return rawOk(
      { contentType: 'application/json; charset=utf-8', content: JSON.stringify(json) },
      PAGE_HEADERS,
    );
  const html =
    name === undefined
      ? problemIndexHtml(problemIndex(), baseUrl)
      : problemTypeHtml(problemTypePage(name), baseUrl);
  return rawOk({ contentType: 'text/html; charset=utf-8', content: html }, HTML_HEADERS);
};
