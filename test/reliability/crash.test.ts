import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CrashResult, runCrash } from './crash';
import { figuresOf, kindTable } from './figures';

const SEED = Number(process.env.RELIABILITY_SEED ?? Date.now() % 2 ** 31);

describe('DynamoDB Local killed in the middle of a burst of writes against npm start --data DIR', () => {
  let dataDir: string;
  let result: CrashResult;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'persons-crash-'));
    result = await runCrash({
      dataDir,
      clients: 16,
      rounds: 1,
      seed: SEED,
      killAfterAcknowledged: 60,
      downMs: 2_500,
      log: (line) => console.log(line),
    });
    console.log(`crash seed ${SEED}\n${kindTable(figuresOf(result.exchanges))}`);
  }, 600_000);

  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every request while storage is down with 503 problem+json and Retry-After, in bounded time', () => {
    const [round] = result.rounds;
    expect(round?.acknowledgedBeforeKill).toBeGreaterThanOrEqual(60);
    expect(Object.keys(round?.duringOutage ?? {})).toEqual(['503']);
    expect(round?.slowestOutageAnswerMs).toBeLessThan(15_000);
    expect(result.outageViolations).toEqual([]);
  });

  it('keeps the server alive while storage is down, and stops it cleanly', () => {
    expect(result.rounds[0]).toMatchObject({ serverSurvived: true, stopExitCode: 0 });
  });

  it('starts again on the same folder with every claim consistent and no half-written person', () => {
    expect(result.restartMs).toHaveLength(1);
    expect(result.invariantViolations).toEqual([]);
    expect(result.verdicts.at(-1)?.persons).toBeGreaterThan(0);
  });

  it('holds every write acknowledged before the kill, but what DynamoDB Local itself drops at the kill', () => {
    // DynamoDB Local (-dbPath) acknowledges a transaction before it survives SIGKILL (crash.ts): the last
    // ones before the kill may be gone, whole. Anything older missing would be the service's.
    if (result.lostToStorage.length > 0)
      console.log(`lost by DynamoDB Local at the kill:\n${result.lostToStorage.join('\n')}`);
    expect(result.lostUnexplained).toEqual([]);
    expect(result.verdicts).toHaveLength(1);
  });

  it('breaks no other promise: refused writes left no trace, storage and the API agree', () => {
    expect(result.violations).toEqual([]);
  });

  it('takes writes again after the restart', () => {
    expect(result.probeStatuses).toEqual([201, 200]);
  });
});
