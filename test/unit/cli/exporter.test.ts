import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient } from '../../../lib/cli/api-client';
import { ExportFailed, exportPersons } from '../../../lib/cli/exporter';

/** A loopback API of three export pages; `next` names another host, as PUBLIC_BASE_URL may. */
let server: Server;
let api: string;
let asked: string[] = [];
let failAt: number | undefined;

const PAGES: Record<string, { '@set': { id: number }[]; next: string | null }> = {
  '': {
    '@set': [{ id: 1 }, { id: 2 }],
    next: 'https://persons.example.org/prod/Person/export?limit=2&cursor=b',
  },
  b: { '@set': [], next: 'https://persons.example.org/prod/Person/export?limit=2&cursor=c' },
  c: { '@set': [{ id: 3 }], next: null },
};

beforeAll(async () => {
  server = createServer((request, response) => {
    asked.push(request.url ?? '');
    const url = new URL(request.url ?? '/', 'http://x');
    if (failAt === asked.length) {
      response.writeHead(500, { 'content-type': 'application/problem+json' });
      response.end('{"type":"/problems/internal-error","status":500}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(PAGES[url.searchParams.get('cursor') ?? '']));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  asked = [];
  failAt = undefined;
});

const collect = (out: PassThrough) => {
  let text = '';
  out.on('data', (chunk) => {
    text += chunk;
  });
  return () => text;
};

describe('exporting through the API', () => {
  it('follows next until it is null, on its own API, and writes one line per person', async () => {
    const out = new PassThrough();
    const text = collect(out);
    const pages: number[] = [];

    const written = await exportPersons({
      client: apiClient({ api }),
      out,
      limit: 2,
      onPage: (n) => pages.push(n),
    });

    expect(written).toBe(3);
    expect(asked).toEqual([
      '/Person/export?limit=2',
      '/Person/export?limit=2&cursor=b',
      '/Person/export?limit=2&cursor=c',
    ]);
    expect(text()).toBe('{"id":1}\n{"id":2}\n{"id":3}\n');
    expect(pages).toEqual([2, 2, 3]);
  });

  it('waits for a slow reader instead of holding what it cannot write', async () => {
    const out = new PassThrough({ highWaterMark: 1 });
    const exporting = exportPersons({ client: apiClient({ api }), out, limit: 2 });
    let settled = false;
    void exporting.then(() => {
      settled = true;
    });

    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    const text = collect(out);
    expect(await exporting).toBe(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(text().split('\n').filter(Boolean)).toHaveLength(3);
  });

  it('stops with ExportFailed when a page is not answered with 200', async () => {
    failAt = 2;
    const out = new PassThrough();
    collect(out);

    await expect(exportPersons({ client: apiClient({ api }), out, limit: 2 })).rejects.toThrow(ExportFailed);
  });
});
