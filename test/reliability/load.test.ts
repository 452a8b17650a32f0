import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JAVA_DEFAULT, type ServerProcess, startServer } from '../support/server';
import { figuresOf, kindTable, type RunFigures } from './figures';
import { type LoadRun, runLoad } from './load';
import { storageOf } from './storage';
import { type Verdict, verifyRun } from './verify';

/**
 * CI's size (2 000 since `.ci/run` neared its 30 minutes with two passes: 3 000 took 84-116 s a pass);
 * `npm run reliability` runs the long one.
 */
const OPERATIONS = Number(process.env.RELIABILITY_LOAD_OPERATIONS ?? 2_000);
const CLIENTS = 32;
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);

describe(`load: ${CLIENTS} clients, ${OPERATIONS} colliding operations against npm start`, () => {
  let server: ServerProcess | undefined;
  let run: LoadRun;
  let verdict: Verdict;
  let figures: RunFigures;

  beforeAll(async () => {
    server = await startServer({ env: JAVA_DEFAULT });
    run = await runLoad({ url: server.url, clients: CLIENTS, operations: OPERATIONS, seed: SEED });
    const table = await storageOf(server);
    const verifying = performance.now();
    verdict = await verifyRun(run, { url: server.url, table });
    const verifyMs = performance.now() - verifying;
    table.client.destroy();
    figures = figuresOf(run.exchanges);
    console.log(
      [
        `load seed ${SEED}: ${run.operations} operations, ${figures.requests} requests by ${CLIENTS} clients in ${(run.wallMs / 1000).toFixed(1)} s, verified in ${(verifyMs / 1000).toFixed(1)} s`,
        `${verdict.persons} persons, ${verdict.emailsHeld} emails held, ${verdict.acknowledgedWrites} writes acknowledged, ${verdict.refusedWrites} refused; 503s ${figures.unavailable}; ${verdict.addressesCheckedInOrder} addresses checked against their latest write in real time`,
        kindTable(figures),
      ].join('\n'),
    );
  }, 900_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('answers every request within the bound, and never with a 5xx (so no 503 from exhausted retries)', () => {
    expect(figures.unanswered).toBe(0);
    expect(figures.serverErrors).toBe(0);
    expect(figures.unavailable).toBe(0);
  });

  it('really collides: writes are refused with 409, and every kind of operation ran', () => {
    expect(figures.conflicts).toBeGreaterThan(0);
    expect(figures.byKind['move-take']?.ok).toBeGreaterThan(0);
    expect(run.races.length).toBeGreaterThan(0);
    expect(verdict.addressesCheckedInOrder).toBeGreaterThan(0);
    for (const kind of [
      'create',
      'add',
      'change',
      'delete',
      'move-release',
      'rename',
      'list',
      'get',
    ] as const)
      expect(figures.byKind[kind]?.ok, kind).toBeGreaterThan(0);
  });

  it('loses no acknowledged write: each is the stored version it claims, and the last one is what is stored', () => {
    expect(verdict.lostAcknowledged).toEqual([]);
    expect(verdict.landedUnacknowledged).toBe(0);
  });

  it('keeps the contract: refused writes leave no trace, each race has one winner, the API shows storage', () => {
    expect(verdict.violations).toEqual([]);
  });

  it('leaves storage that the invariant checker finds nothing wrong with', () => {
    expect(verdict.invariantViolations).toEqual([]);
  });
});
