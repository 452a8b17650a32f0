/**
 * The `/docs` page: Swagger UI from the `swagger-ui-dist` package, served by the API itself so the page
 * needs nothing from the internet, reading the API's own `openapi.json`.
 */

/** The files of `swagger-ui-dist` the page uses, by the name they are served under, with their type. */
export const SWAGGER_UI_FILES = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
} as const;

export type SwaggerUiFile = keyof typeof SWAGGER_UI_FILES;

/** The page's own script, served beside the package's files so the page needs no inline script. */
export const DOCS_SCRIPT_NAME = 'docs.js';

/** Every name `/docs/{asset}` serves. */
export const DOCS_ASSET_NAMES = [...(Object.keys(SWAGGER_UI_FILES) as SwaggerUiFile[]), DOCS_SCRIPT_NAME];

export const isSwaggerUiFile = (name: string): name is SwaggerUiFile => Object.hasOwn(SWAGGER_UI_FILES, name);

/**
 * Starts Swagger UI on the document named by the page. `validatorUrl: null` keeps Swagger UI from
 * sending the document to its public validator.
 */
export const DOCS_SCRIPT = `'use strict';
const root = document.getElementById('swagger-ui');
window.ui = SwaggerUIBundle({
  url: new URL(root.dataset.openapi, document.baseURI).href,
  domNode: root,
  deepLinking: true,
  validatorUrl: null,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

/**
 * The page, with URLs relative to where it is served, so it works behind any host, stage or proxy
 * prefix: `up` is `./` for `/docs` and `../` for `/docs/`.
 */
export const docsPage = (up: './' | '../') => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Authority Person Service API</title>
<link rel="stylesheet" href="${up}docs/swagger-ui.css">
<link rel="icon" type="image/png" href="${up}docs/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${up}docs/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui" data-openapi="${up}openapi.json"></div>
<script src="${up}docs/swagger-ui-bundle.js"></script>
<script src="${up}docs/${DOCS_SCRIPT_NAME}"></script>
</body>
</html>
`;

/**
 * The page may run only its own scripts and talk only to its own origin and the API's (the one
 * `servers` names, which `PUBLIC_BASE_URL` may put elsewhere). Swagger UI sets inline styles and
 * draws some icons as `data:` images.
 */
export const docsContentSecurityPolicy = (apiOrigin: string) =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
