import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { buildHandler } from '../../../functions/get-docs';
import { folderAssets, swaggerUiDir } from '../../../lib/docs/assets';
import { DOCS_SCRIPT, docsContentSecurityPolicy, SWAGGER_UI_FILES } from '../../../lib/docs/docs-page';
import { toHttpResult } from '../../../lib/http/responses';
import { httpEvent, lambdaContext } from '../../support/events';

const docs = buildHandler({ assets: folderAssets() });

const call = async (event: APIGatewayProxyEventV2) => {
  const result = await docs(event, lambdaContext());
  return { ...result, headers: result.headers ?? {}, body: result.body ?? '' };
};
const page = (path: string) => call(httpEvent({ method: 'GET', route: '/docs', path }));
const asset = (name: string) =>
  call(
    httpEvent({
      method: 'GET',
      route: '/docs/{asset}',
      path: `/docs/${name}`,
      pathParameters: { asset: name },
    }),
  );

describe('GET /docs', () => {
  it('answers an HTML page that loads Swagger UI and the openapi.json beside it', async () => {
    const result = await page('/docs');

    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe('text/html; charset=utf-8');
    expect(result.body).toContain('<script src="./docs/swagger-ui-bundle.js"></script>');
    expect(result.body).toContain('<script src="./docs/docs.js"></script>');
    expect(result.body).toContain('<link rel="stylesheet" href="./docs/swagger-ui.css">');
    expect(result.body).toContain('data-openapi="./openapi.json"');
  });

  it('keeps its URLs right when asked at /docs/', async () => {
    const { body } = await page('/docs/');

    expect(body).toContain('data-openapi="../openapi.json"');
    expect(body).toContain('<script src="../docs/swagger-ui-bundle.js"></script>');
  });

  it('runs no inline script and may only talk to its own origin and the API', async () => {
    const { body, headers } = await page('/docs');

    expect(body.match(/<script(?![^>]*\ssrc=)/g)).toBeNull();
    expect(headers['Content-Security-Policy']).toBe(docsContentSecurityPolicy('https://api.example.test'));
    expect(headers['Content-Security-Policy']).toContain("script-src 'self'");
    expect(headers['Content-Security-Policy']).toContain("connect-src 'self' https://api.example.test");
  });

  it('starts Swagger UI on the page’s document, never on its public validator', () => {
    expect(DOCS_SCRIPT).toContain('validatorUrl: null');
    expect(DOCS_SCRIPT).toContain('root.dataset.openapi');
  });
});

describe('GET /docs/{asset}', () => {
  it.each(Object.entries(SWAGGER_UI_FILES))('serves %s from swagger-ui-dist as %s', async (name, type) => {
    const result = await asset(name);
    const original = await readFile(join(swaggerUiDir(), name));

    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe(type);
    const sent = result.isBase64Encoded
      ? Buffer.from(result.body, 'base64')
      : Buffer.from(result.body, 'utf8');
    expect(sent.equals(original)).toBe(true);
    expect(result.isBase64Encoded ?? false).toBe(type.startsWith('image/'));
  });

  it('serves the page’s own script', async () => {
    const result = await asset('docs.js');

    expect(result.headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(result.body).toBe(DOCS_SCRIPT);
  });

  it.each(['index.html', 'swagger-ui.js.map', '..%2Fpackage.json', '../../package.json', ''])(
    'answers 404 for %j, which it does not serve',
    async (name) => {
      const result = await asset(name);

      expect(result.statusCode).toBe(404);
      expect(result.headers['Content-Type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(result.body)).toMatchObject({ type: '/problems/not-found', status: 404 });
    },
  );
});

describe('folderAssets', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads a file once and keeps it, but tries a failed read again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'docs-assets-'));
    const assets = folderAssets(() => dir);

    await expect(assets.read('swagger-ui.css')).rejects.toThrow(/ENOENT/);
    await writeFile(join(dir, 'swagger-ui.css'), 'body {}');
    expect(Buffer.from(await assets.read('swagger-ui.css')).toString()).toBe('body {}');
    await writeFile(join(dir, 'swagger-ui.css'), 'changed');
    expect(Buffer.from(await assets.read('swagger-ui.css')).toString()).toBe('body {}');
  });
});

describe('toHttpResult with a raw body', () => {
  it('sends text as it is, in its own media type, not negotiated', () => {
    expect(
      toHttpResult(
        {
          status: 200,
          raw: { contentType: 'text/html; charset=utf-8', content: '<p>hi</p>' },
          headers: { A: 'b' },
        },
        'application/json; charset=utf-8',
      ),
    ).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'text/html; charset=utf-8', A: 'b' },
      body: '<p>hi</p>',
    });
  });

  it('sends bytes base64-encoded, as API Gateway expects binary bodies', () => {
    const result = toHttpResult(
      { status: 200, raw: { contentType: 'image/png', content: new Uint8Array([137, 80, 78, 71]) } },
      'application/json; charset=utf-8',
    );

    expect(result).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'image/png' },
      body: 'iVBORw==',
      isBase64Encoded: true,
    });
  });
});
