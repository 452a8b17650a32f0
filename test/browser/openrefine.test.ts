/**
 * The real OpenRefine 3.6 (issue #37's done-when) against `npm start`: a steward's project from a CSV,
 * reconciled against the service with an email column as the `email` property, the matched rows read
 * back, then columns added from the reconciled values (data extension). OpenRefine's server sends the
 * queries itself, in batches of 10 (the CSV holds more, so two batches), as it does for a user; its
 * page, in headless Chromium, adds the service as "Add standard service…" does (a cross-origin GET of
 * the manifest, JSONP only when that fails) and shows the preview card in an iframe.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personBody } from '../support/api';
import { CHROMIUM } from '../support/chromium';
import { type OpenRefine, type RefineRows, startOpenRefine } from '../support/openrefine';
import { type ServerProcess, startServer } from '../support/server';

let server: ServerProcess;
let refine: OpenRefine;
let browser: Browser;
let service: string;
const ids: Record<string, string> = {};

const PERSONS: Record<string, ReturnType<typeof personBody>> = {
  ada: personBody('Ada', 'Lovelace', 'ada@example.org'),
  smith1: personBody('John', 'Smith', 'js1@example.org'),
  smith2: personBody('John', 'Smith', 'js2@example.org'),
  grace: personBody('Grace', 'Hopper', 'grace@example.org'),
  alan: personBody('Alan', 'Turing'),
  zofia: personBody('Zofia', 'Dąbrowska', 'zofia@example.org'),
  edsger: personBody('Edsger', 'Dijkstra', 'ewd@example.org'),
};

/**
 * The steward's rows: name, email, and what OpenRefine should make of each (the person it matches
 * automatically, or none; `top` the best candidate when it only proposes).
 */
const ROWS: { name: string; email: string; matched?: string; top?: string }[] = [
  { name: 'Ada Lovelace', email: 'ada@example.org', matched: 'ada' },
  { name: 'Jon Smith', email: 'js2@example.org', matched: 'smith2' },
  // Namesakes are never matched on their name alone.
  { name: 'John Smith', email: '' },
  { name: 'Grace Hoper', email: '', top: 'grace' },
  { name: 'Nobody Here', email: '' },
  { name: 'Alan Turing', email: '', matched: 'alan' },
  { name: 'Zofia Dabrowska', email: '', matched: 'zofia' },
  { name: 'Lovelace, Ada', email: 'ada@example.org', matched: 'ada' },
  { name: 'J. Smith', email: 'js1@example.org', matched: 'smith1' },
  { name: 'Grace Hopper', email: 'grace@example.org', matched: 'grace' },
  { name: 'Edsger W. Dijkstra', email: 'ewd@example.org', matched: 'edsger' },
  { name: 'Ada Lovelace', email: 'ada@example.org', matched: 'ada' },
  { name: 'Margaret Hamilton', email: '' },
];

const csvOf = (rows: typeof ROWS) =>
  ['name,email', ...rows.map(({ name, email }) => `"${name}",${email}`)].join('\n');

/** Each row's name cell's reconciliation, and the other cells by column name. */
const tableOf = async (project: string) => {
  const [columns, { rows, pool }]: [Awaited<ReturnType<OpenRefine['columns']>>, RefineRows] =
    await Promise.all([refine.columns(project), refine.rows(project)]);
  return rows.map(({ cells }) => {
    const values = Object.fromEntries(columns.map(({ name, cellIndex }) => [name, cells[cellIndex]?.v]));
    const recon = pool.recons[cells[0]?.r ?? ''];
    return { values, recon };
  });
};

/** The batches of queries the service answered 200 so far (its request log lines). */
const reconcileBatches = () =>
  server
    .output()
    .split('\n')
    .filter((line) => line.includes('"routeKey":"POST /reconcile","status":200')).length;

beforeAll(async () => {
  [server, refine, browser] = await Promise.all([
    // Its request log lines count the batches OpenRefine sends.
    startServer({ env: { ENRICHMENT: 'off', POWERTOOLS_LOG_LEVEL: 'INFO' } }),
    startOpenRefine(),
    chromium.launch(CHROMIUM),
  ]);
  service = `${server.url}/reconcile`;
  for (const [key, body] of Object.entries(PERSONS)) {
    const response = await fetch(`${server.url}/Person`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-requester-person': '0' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    ids[key] = String(((await response.json()) as { id: number }).id);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), refine?.stop(), server?.stop()]);
});

describe('OpenRefine 3.6 reconciles a CSV against npm start', () => {
  let project: string;

  beforeAll(async () => {
    project = await refine.createProject('persons', csvOf(ROWS));
  });

  it('guesses the type Person from the candidates of the first names', async () => {
    const { types } = (await refine.command(
      'guess-types-of-column',
      { project },
      { columnName: 'name', service },
    )) as {
      types: { id: string; name: string }[];
    };
    expect(types[0]).toMatchObject({ id: 'Person', name: 'Person' });
  });

  it('matches a row only when the service is certain, on the email sent as a property', async () => {
    const manifest = (await (await fetch(service)).json()) as {
      identifierSpace: string;
      schemaSpace: string;
    };
    const batchesBefore = reconcileBatches();
    await refine.command(
      'reconcile',
      { project },
      {
        columnName: 'name',
        config: JSON.stringify({
          mode: 'standard-service',
          service,
          identifierSpace: manifest.identifierSpace,
          schemaSpace: manifest.schemaSpace,
          type: { id: 'Person', name: 'Person' },
          autoMatch: true,
          columnDetails: [{ column: 'email', property: { id: 'email', name: 'email' } }],
          limit: 0,
        }),
      },
    );
    await refine.settled(project);
    // 12 distinct rows (a repeated one is asked once): a batch of 10, then one of 2, all answered 200.
    expect(reconcileBatches() - batchesBefore).toBe(2);

    const table = await tableOf(project);
    expect(table).toHaveLength(ROWS.length);
    for (const [index, { name, matched, top }] of ROWS.entries()) {
      const { recon } = table[index] as (typeof table)[number];
      expect(recon, name).toBeDefined();
      if (matched) {
        expect({ name, judgment: recon?.j, id: recon?.m?.id }).toEqual({
          name,
          judgment: 'matched',
          id: ids[matched],
        });
        expect(recon?.m?.types).toEqual(['Person']);
      } else expect({ name, judgment: recon?.j }).toEqual({ name, judgment: 'none' });
      if (top) expect(recon?.c?.[0]?.id, name).toBe(ids[top]);
    }
    // The namesakes are both proposed, the absent persons get no candidate at all.
    const smiths = table[2]?.recon?.c?.map(({ id }) => id);
    expect(smiths?.sort()).toEqual([ids.smith1, ids.smith2].sort());
    expect(table[4]?.recon?.c).toEqual([]);
  });

  it('adds columns from the reconciled values of the matched rows (data extension)', async () => {
    await refine.command(
      'extend-data',
      {
        project,
        baseColumnName: 'name',
        endpoint: service,
        identifierSpace: `${server.url}/Person/`,
        schemaSpace: `${server.url}/context.jsonld`,
        columnInsertIndex: '1',
      },
      {
        extension: JSON.stringify({
          properties: [
            { id: 'fullname', name: 'Full name' },
            { id: 'email', name: 'Primary email' },
          ],
        }),
      },
    );
    await refine.settled(project);

    const table = await tableOf(project);
    for (const [index, { name, matched }] of ROWS.entries()) {
      const { values } = table[index] as (typeof table)[number];
      const person = matched ? PERSONS[matched] : undefined;
      const expected = person
        ? {
            'Full name': `${person.Names['@set'][0]?.first_name} ${person.Names['@set'][0]?.last_name}`,
            'Primary email': person.Emails?.['@set'][0]?.email,
          }
        : { 'Full name': undefined, 'Primary email': undefined };
      expect({ name, ...values }).toMatchObject({ name, ...expected });
    }
  });
});

describe("OpenRefine's page in headless Chromium", () => {
  it('adds the service from its manifest by a cross-origin GET, and frames its preview card', async () => {
    const project = await refine.createProject('page', csvOf(ROWS.slice(0, 1)));
    const page = await browser.newPage();
    await page.goto(`${refine.url}/project?project=${project}`);
    await page.waitForFunction(() => 'ReconciliationManager' in globalThis, undefined, { timeout: 30_000 });

    // What "Add standard service…" calls with the URL typed in.
    const added = await page.evaluate(
      (url) =>
        new Promise<{ name: string; access: string; preview: string }>((resolve) => {
          const manager = (globalThis as unknown as { ReconciliationManager: RefineManager })
            .ReconciliationManager;
          manager.registerStandardService(
            url,
            (index) => {
              const registered = manager.standardServices[index] as RegisteredService;
              resolve({
                name: registered.name,
                access: registered.ui.access,
                preview: registered.preview.url,
              });
            },
            true,
          );
        }),
      service,
    );
    expect(added).toEqual({
      name: 'Authority Person Service',
      access: 'json',
      preview: `${service}/preview?id={{id}}`,
    });

    // The preview card as the reconciliation panel shows it: in an iframe of OpenRefine's page.
    const previewUrl = added.preview.replace('{{id}}', encodeURIComponent(ids.ada as string));
    await page
      .locator('body')
      .evaluate(
        (body, src) =>
          body.insertAdjacentHTML('beforeend', `<iframe width="400" height="120" src="${src}"></iframe>`),
        previewUrl,
      );
    await expect
      .poll(
        async () =>
          (await page
            .frames()
            .find((frame) => frame.url() === previewUrl)
            ?.textContent('body')) ?? '',
      )
      .toContain('Ada Lovelace');
    await page.close();
  });
});

interface RegisteredService {
  name: string;
  ui: { access: string };
  preview: { url: string };
}

interface RefineManager {
  standardServices: unknown[];
  registerStandardService(url: string, done: (index: number) => void, silent: boolean): void;
}
