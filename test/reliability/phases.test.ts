import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JAVA_DEFAULT, type ServerProcess, startServer } from '../support/server';
import { type ContentionResult, runContention } from './contention';
import { type PredictableIdResult, runPredictableId } from './predictable-id';

// CI's size, one server for both phases (about 30 s); `npm run reliability` runs the long ones.
const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);

let server: ServerProcess | undefined;

beforeAll(async () => {
  server = await startServer({ env: JAVA_DEFAULT });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe('contention: two rounds of 100 concurrent PATCHes of one person without If-Match', () => {
  let result: ContentionResult;

  beforeAll(async () => {
    result = await runContention({
      url: (server as ServerProcess).url,
      concurrency: 100,
      rounds: 2,
      seed: SEED,
      log: (line) => console.log(`contention seed ${SEED}: ${line}`),
    });
    console.log(`contention seed ${SEED}: ${JSON.stringify(result.figures)}`);
  }, 120_000);

  it('answers every PATCH 200: conflicts are retried inside the service, never a 5xx', () => {
    const { figures } = result;
    expect(figures.requests).toBe(200);
    expect({ serverErrors: figures.serverErrors, unavailable: figures.unavailable }).toEqual({
      serverErrors: 0,
      unavailable: 0,
    });
    expect(figures.otherStatuses).toEqual({});
    expect(figures.ok).toBe(figures.requests);
  });

  it("loses no one's change, and the version grows by exactly one per acknowledged change", () => {
    expect(result.lostChanges).toEqual([]);
    expect(result.violations).toEqual([]);
    expect(result.rounds.map((round) => round.versionAfter - round.versionBefore)).toEqual(
      result.rounds.map((round) => round.ok),
    );
  });
});

describe('predictable id: creates naming as requester the id the next person is about to get', () => {
  let result: PredictableIdResult;

  beforeAll(async () => {
    result = await runPredictableId({
      url: (server as ServerProcess).url,
      predictions: 48,
      burst: 24,
      seed: SEED,
      log: (line) => console.log(`predictable id seed ${SEED}: ${line}`),
    });
    console.log(
      `predictable id seed ${SEED}: ${JSON.stringify(result.figures)}; 201 by offset ${JSON.stringify(result.hitsByOffset)}`,
    );
  }, 120_000);

  it('answers each one 403 unknown-requester or, when the id meanwhile became a person, 201; never a 5xx', () => {
    const { figures } = result;
    expect(figures.requests).toBe(48);
    expect(figures.serverErrors).toBe(0);
    expect(figures.unanswered).toBe(0);
    expect(figures.otherStatuses).toEqual({});
    expect(figures.forbidden + figures.created).toBe(figures.requests);
    expect(figures.forbidden).toBeGreaterThan(0);
    expect(figures.created).toBeGreaterThan(0);
  });

  it('creates every ordinary person in between', () => {
    const { ordinary } = result.figures;
    expect(ordinary.serverErrors).toBe(0);
    expect(ordinary.otherStatuses).toEqual({});
    expect(ordinary.created).toBe(ordinary.requests);
  });

  it('keeps what the answers prove: 403 only to a non-person, 201 only to a person made by another create, no refused create stored', () => {
    expect(result.violations).toEqual([]);
  });
});
