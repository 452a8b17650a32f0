import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../support/chromium';
import { type ServerProcess, startServer } from '../support/server';

interface Loaded {
  page: Page;
  /** Every URL the page asked for. */
  requested: string[];
  /** Console errors and uncaught exceptions, including Content-Security-Policy refusals. */
  errors: string[];
}

describe('/docs in headless Chromium against the local server', () => {
  let server: ServerProcess;
  let browser: Browser;
  let operations: { method: string; path: string }[];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), chromium.launch(CHROMIUM)]);
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })),
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = async (path: string): Promise<Loaded> => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => {
      requested.push(request.url());
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => {
      errors.push(error.message);
    });
    await page.goto(`${server.url}${path}`);
    await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
    return { page, requested, errors };
  };

  const listed = (page: Page) =>
    page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
      })),
    );

  it('lists every operation of openapi.json, one Swagger UI block each', async () => {
    const { page, errors } = await open('/docs');

    await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length);
    expect(await listed(page)).toEqual(expect.arrayContaining(operations));
    expect(await page.locator('.opblock-summary-path').allTextContents()).toContain('/Person/{id}');
    expect(await page.locator('.opblock-summary-method').allTextContents()).toContain('PATCH');
    await expect.poll(() => page.locator('.info .title').textContent()).toContain('Authority Person Service');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('loads everything from the local server and nothing from the internet', async () => {
    const { page, requested } = await open('/docs');
    await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length);

    const fetched = requested.filter((url) => !url.startsWith('data:'));
    expect(fetched).toEqual(
      expect.arrayContaining([
        `${server.url}/docs/swagger-ui-bundle.js`,
        `${server.url}/docs/swagger-ui.css`,
        `${server.url}/openapi.json`,
      ]),
    );
    expect(fetched.filter((url) => !url.startsWith(`${server.url}/`))).toEqual([]);
    await page.close();
  });

  it('shows the headers and body of PATCH /Person/{id} when it is opened', async () => {
    const { page } = await open('/docs');
    const patch = page.locator('.opblock-patch').filter({ has: page.locator('[data-path="/Person/{id}"]') });

    await patch.locator('.opblock-summary').click();

    const parameters = patch.locator('.parameters .parameter__name');
    await expect
      .poll(() => parameters.allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringContaining('id'),
          expect.stringContaining('x-requester-person'),
          expect.stringContaining('If-Match'),
        ]),
      );
    await expect
      .poll(() => patch.locator('.responses-table .response-col_status').allTextContents())
      .toEqual(expect.arrayContaining(['200', '409', '412']));
    await page.close();
  });

  it('lists the GRC vocabularies and ChangeHistory, and shows a vocabulary write with its requester and 409', async () => {
    const { page } = await open('/docs');
    await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length);

    expect(await listed(page)).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/NamePrefix' },
        { method: 'POST', path: '/NamePrefix' },
        { method: 'PATCH', path: '/NameSuffix/{id}' },
        { method: 'GET', path: '/ChangeHistory' },
        { method: 'GET', path: '/ChangeHistory/{id}' },
      ]),
    );
    await expect.poll(() => page.locator('.info .description').textContent()).toContain('trailing slash');
    const post = page.locator('.opblock-post').filter({ has: page.locator('[data-path="/NamePrefix"]') });
    await post.locator('.opblock-summary').click();

    await expect
      .poll(() => post.locator('.parameters .parameter__name').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringContaining('x-requester-person')]));
    await expect
      .poll(() => post.locator('.responses-table .response-col_status').allTextContents())
      .toEqual(expect.arrayContaining(['201', '403', '409']));
    await page.close();
  });

  it('works at /docs/ too, its URLs being relative to where it is served', async () => {
    const { page, errors } = await open('/docs/');

    await expect.poll(() => page.locator('.opblock').count()).toBe(operations.length);
    expect(errors).toEqual([]);
    await page.close();
  });
});
