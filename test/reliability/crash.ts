/**
 * The crash scenario: `npm start --data DIR`, a burst of concurrent writes, and in its middle
 * DynamoDB Local is killed with SIGKILL. While storage is down every request must be answered, and
 * with 503 problem+json and `Retry-After`; the server must not die. Then the server is stopped and
 * started again on the same folder, and what storage holds is checked against every answer given
 * before the kill (verify.ts, with the answers the kill cut off counted as ambiguous). With `rounds`
 * above one, the burst, kill and restart repeat on the same data.
 *
 * DynamoDB Local's own durability: with `-dbPath` it acknowledges a TransactWriteItems before the
 * change survives a SIGKILL (PutItem does survive): killed right after, it comes back without the last
 * transaction or few, whole. The service writes every change as one transaction, so a write
 * acknowledged in the last moments before the kill can be missing after the restart. That is not the
 * service's to guarantee; it is reported apart (`lostToStorage`). What is the service's: storage stays
 * consistent (the invariant checker: every claim held by the person it names, every person at version
 * v with v audit entries), and nothing acknowledged well before the kill is missing.
 */
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { fromPersonItem } from '../../lib/db/person/person-items';
import { toPersonOut } from '../../lib/domain/representation';
import { checkInvariants, scanAll } from '../support/invariants';
import { JAVA_DEFAULT, type ServerProcess, startServer } from '../support/server';
import { type Exchange, explain, isSuccess, problemOf, recorder, WRITE_KINDS } from './http';
import { type LoadRun, type Mix, runLoad } from './load';
import { storageEndpointOf, storageOf } from './storage';
import { type Verdict, verifyRun } from './verify';

export const CRASH_MIX: Mix = {
  create: 30,
  add: 20,
  change: 8,
  delete: 12,
  move: 10,
  race: 0,
  rename: 5,
  list: 8,
  get: 7,
};

/** A write acknowledged this close to the kill may be lost by DynamoDB Local itself (see above). */
export const STORAGE_DURABILITY_WINDOW_MS = 2_000;

export interface CrashOptions {
  dataDir: string;
  clients?: number;
  rounds?: number;
  seed?: number;
  /** Writes acknowledged in a round before storage is killed. */
  killAfterAcknowledged?: number;
  /** How long the burst goes on against dead storage. */
  downMs?: number;
  /** Every request must be answered within this. */
  answerWithinMs?: number;
  log?: (line: string) => void;
}

export interface CrashRound {
  round: number;
  storagePid: number;
  acknowledgedBeforeKill: number;
  requests: number;
  /** Answers to the requests in flight when storage died: any answer is fine, but an answer. */
  inFlight: Record<number, number>;
  /** Answers to the requests sent while storage was down: all must be 503. */
  duringOutage: Record<number, number>;
  /** From the kill to the first 503. */
  firstUnavailableMs: number;
  slowestOutageAnswerMs: number;
  serverSurvived: boolean;
  stopMs: number;
  stopExitCode: number | null;
}

export interface CrashResult {
  seed: number;
  rounds: CrashRound[];
  /** The checks after each restart; the last is after the last round. */
  verdicts: Verdict[];
  restartMs: number[];
  /** Broken promises of the service: answers while down, liveness, restart, the history checks. */
  violations: string[];
  /** Of those, the answers around the kill: a 5xx but 503, no answer in time, not problem+json. */
  outageViolations: string[];
  invariantViolations: string[];
  /** Acknowledged writes missing after a restart, each with how long before the kill it was answered. */
  lostAcknowledged: string[];
  /** Of those, the ones DynamoDB Local's durability window explains. */
  lostToStorage: string[];
  /** Of those, the ones acknowledged long before the kill: not explained by storage. */
  lostUnexplained: string[];
  /** Stored changes no answer accounts for: writes cut off by the kill (503) that landed anyway. */
  landedUnacknowledged: number;
  exchanges: Exchange[];
  /** Writes that got 201/200 after the last restart (the store still works). */
  probeStatuses: number[];
}

const pgrep = (args: string[]) => {
  try {
    return execFileSync('pgrep', args, { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** The DynamoDB Local process of a server: the java child listening on its storage port. */
export const storageProcessOf = (server: ServerProcess, endpoint: string): number => {
  const pattern = `DynamoDBLocal.*-port ${new URL(endpoint).port}( |$)`;
  const children = pgrep(['-P', String(server.process.pid), '-f', pattern]);
  const found = children.length > 0 ? children : pgrep(['-f', pattern]);
  if (found.length !== 1)
    throw new Error(`expected one DynamoDB Local process, found ${found.join(', ') || 'none'}`);
  return found[0] as number;
};

const portRefuses = (endpoint: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(endpoint);
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

const tally = (exchanges: Exchange[]) => {
  const counts: Record<number, number> = {};
  for (const { status } of exchanges) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
};

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref()),
  ]);

export const runCrash = async ({
  dataDir,
  clients = 16,
  rounds = 1,
  seed = Date.now() % 2 ** 31,
  killAfterAcknowledged = 60,
  downMs = 3_000,
  answerWithinMs = 15_000,
  log = () => undefined,
}: CrashOptions): Promise<CrashResult> => {
  const violations: string[] = [];
  const outageViolations: string[] = [];
  const invariantViolations: string[] = [];
  const exchanges: Exchange[] = [];
  const verdicts: Verdict[] = [];
  const roundResults: CrashRound[] = [];
  const restartMs: number[] = [];
  /** How long before its round's kill each exchange was answered (negative: after). */
  const beforeKill = new Map<Exchange, number>();
  const lostToStorage: string[] = [];
  const lostUnexplained: string[] = [];
  /** Acknowledged writes found missing: from then on their outcome is unknown, like a 503's. */
  const lost = new Set<Exchange>();
  const ambiguous = (exchange: Exchange) =>
    exchange.status === 0 || exchange.status >= 500 || lost.has(exchange);
  let pool: string[] | undefined;
  let history: LoadRun | undefined;
  let probeStatuses: number[] = [];

  for (let round = 1; round <= rounds + 1; round++) {
    const startedAt = performance.now();
    let server: ServerProcess;
    try {
      server = await startServer({ args: ['--data', dataDir], env: JAVA_DEFAULT, timeoutMs: 120_000 });
    } catch (error) {
      violations.push(
        `the server did not start on the data folder (round ${round}): ${(error as Error).message.slice(0, 2_000)}`,
      );
      break;
    }
    const table = await storageOf(server);
    const endpoint = await storageEndpointOf(server);
    if (round > 1) restartMs.push(performance.now() - startedAt);
    try {
      // After a restart: what every answer so far says must be there.
      if (history) {
        const verdict = await verifyRun(
          { ...history, exchanges: [...exchanges] },
          { url: server.url, table, ambiguous },
        );
        verdicts.push(verdict);
        for (const { exchange, reason } of verdict.lost) {
          lost.add(exchange);
          const ms = beforeKill.get(exchange);
          const line = `${reason} (answered ${ms === undefined ? '?' : Math.round(ms)} ms before the kill)`;
          if (ms !== undefined && ms < STORAGE_DURABILITY_WINDOW_MS) lostToStorage.push(line);
          else lostUnexplained.push(line);
        }
        log(
          `after restart ${round - 1}: ${verdict.persons} persons; ${verdict.violations.length} violations, ${verdict.invariantViolations.length} invariant violations, ${verdict.lost.length} acknowledged writes missing, ${verdict.landedUnacknowledged} unacknowledged changes stored`,
        );
      }
      if (round > rounds) {
        // The store still takes writes after the last restart, and stays consistent doing so.
        const created = await fetch(`${server.url}/Person`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-requester-person': '0' },
          body: JSON.stringify({ Names: { '@set': [{ first_name: 'After', last_name: `Crash ${seed}` }] } }),
        });
        const { id } = (await created.json()) as { id: number };
        const patched = await fetch(`${server.url}/Person/${id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json', 'x-requester-person': String(id) },
          body: JSON.stringify({ Emails: { '@set': [{ email: `after-crash-${seed}@load.test` }] } }),
        });
        probeStatuses = [created.status, patched.status];
        invariantViolations.push(...(await checkInvariants(table)));
        break;
      }

      const links = { baseUrl: server.url, contextUrl: `${server.url}/context.jsonld` };
      const knownPersons = (await scanAll(table))
        .filter((item) => item.type === 'Person')
        .map((item) => toPersonOut(fromPersonItem(item), links));
      const storagePid = storageProcessOf(server, endpoint);
      const http = recorder(server.url, { timeoutMs: answerWithinMs });
      let acknowledged = 0;
      let killedAt: number | undefined;
      let downAt: number | undefined;
      let killing: Promise<void> | undefined;
      const killStorage = async () => {
        killedAt = http.now();
        process.kill(storagePid, 'SIGKILL');
        const deadline = Date.now() + 10_000;
        while (!(await portRefuses(endpoint)) && Date.now() < deadline)
          await new Promise((wait) => setTimeout(wait, 10));
        downAt = http.now();
        log(
          `round ${round}: killed DynamoDB Local (pid ${storagePid}) after ${acknowledged} acknowledged writes`,
        );
      };
      const burstLimitMs = 180_000;
      const run = await runLoad({
        url: server.url,
        clients,
        operations: Number.POSITIVE_INFINITY,
        seed: seed + round,
        mix: CRASH_MIX,
        poolSize: 4 * killAfterAcknowledged,
        knownPersons,
        ...(pool ? { pool } : {}),
        http,
        shouldStop: () => (downAt !== undefined && http.now() > downAt + downMs) || http.now() > burstLimitMs,
        onExchange: (exchange) => {
          if (killedAt === undefined && WRITE_KINDS.has(exchange.kind) && isSuccess(exchange))
            acknowledged += 1;
          if (acknowledged >= killAfterAcknowledged && !killing) killing = killStorage();
        },
      });
      await killing;
      pool ??= run.pool;
      exchanges.push(...run.exchanges);
      history = { ...run, races: [] };

      if (killedAt === undefined || downAt === undefined) {
        violations.push(
          `round ${round}: only ${acknowledged} writes were acknowledged in ${burstLimitMs} ms; storage was never killed`,
        );
        break;
      }
      const [kill, down] = [killedAt, downAt];
      for (const exchange of run.exchanges) beforeKill.set(exchange, kill - exchange.endedAt);
      const before = run.exchanges.filter((e) => e.endedAt <= kill);
      const inFlight = run.exchanges.filter((e) => e.startedAt < down && e.endedAt > kill);
      const outage = run.exchanges.filter((e) => e.startedAt >= down);
      for (const exchange of before)
        if (exchange.status >= 500 || exchange.status === 0)
          outageViolations.push(`round ${round}: before the kill: ${explain(exchange)}`);
      for (const exchange of [...inFlight, ...outage]) {
        if (exchange.status === 0)
          outageViolations.push(
            `round ${round}: no answer within ${answerWithinMs} ms: ${explain(exchange)}`,
          );
        if (exchange.status >= 500 && exchange.status !== 503)
          outageViolations.push(`round ${round}: storage down should be 503, got ${explain(exchange)}`);
      }
      for (const exchange of outage) {
        const problem = problemOf(exchange);
        if (
          exchange.status !== 503 ||
          exchange.contentType !== 'application/problem+json' ||
          problem?.type !== '/problems/unavailable' ||
          !/^[1-9]\d*$/.test(exchange.retryAfter ?? '')
        )
          outageViolations.push(
            `round ${round}: while storage was down, expected 503 problem+json unavailable with Retry-After, got ${explain(exchange)} (${exchange.contentType}, Retry-After ${exchange.retryAfter})`,
          );
      }
      const unavailable = [...inFlight, ...outage].filter((e) => e.status === 503);
      if (outage.length === 0)
        outageViolations.push(`round ${round}: no request was sent while storage was down`);

      // The server itself stays up: it still serves what needs no storage.
      const serverSurvived = server.process.exitCode === null && server.process.signalCode === null;
      if (!serverSurvived)
        violations.push(
          `round ${round}: the server died with storage (exit ${server.process.exitCode}, ${server.process.signalCode})`,
        );
      else {
        const docs = await fetch(`${server.url}/openapi.json`, {
          signal: AbortSignal.timeout(answerWithinMs),
        });
        if (docs.status !== 200)
          violations.push(`round ${round}: with storage down, GET /openapi.json answered ${docs.status}`);
      }

      const stopping = performance.now();
      const stopped = await withTimeout(server.stop(), 30_000);
      const stopMs = performance.now() - stopping;
      if (stopped === 'timeout') {
        violations.push(`round ${round}: the server did not stop within 30 s of SIGTERM with storage dead`);
        server.process.kill('SIGKILL');
      } else if (stopped !== 0)
        violations.push(`round ${round}: the server exited with ${stopped} on SIGTERM with storage dead`);

      roundResults.push({
        round,
        storagePid,
        acknowledgedBeforeKill: acknowledged,
        requests: run.exchanges.length,
        inFlight: tally(inFlight),
        duringOutage: tally(outage),
        firstUnavailableMs: Math.min(...unavailable.map((e) => e.endedAt)) - kill,
        slowestOutageAnswerMs: Math.max(0, ...outage.map((e) => e.endedAt - e.startedAt)),
        serverSurvived,
        stopMs,
        stopExitCode: stopped === 'timeout' ? null : stopped,
      });
      log(
        `round ${round}: ${run.exchanges.length} requests; in flight at the kill ${JSON.stringify(tally(inFlight))}; while down ${JSON.stringify(tally(outage))}; stopped in ${Math.round(stopMs)} ms`,
      );
    } finally {
      table.client.destroy();
      if (server.process.exitCode === null && server.process.signalCode === null) await server.stop();
    }
  }

  violations.push(...outageViolations);
  for (const verdict of verdicts) {
    violations.push(...verdict.violations);
    invariantViolations.push(...verdict.invariantViolations);
  }
  return {
    seed,
    rounds: roundResults,
    verdicts,
    restartMs,
    violations: [...new Set(violations)],
    outageViolations,
    invariantViolations: [...new Set(invariantViolations)],
    lostAcknowledged: [...lostToStorage, ...lostUnexplained],
    lostToStorage,
    lostUnexplained,
    landedUnacknowledged: verdicts.reduce((sum, verdict) => Math.max(sum, verdict.landedUnacknowledged), 0),
    exchanges,
    probeStatuses,
  };
};
