/**
 * Erasures cut by a crash (API.md 15, issue #56): `npm start --data DIR`, a few persons with long
 * histories (some longer than one transaction of the erasure's chain rewrites), all their DELETEs sent
 * at once, and DynamoDB Local killed with SIGKILL while they are in flight. Then the server is started
 * again on the same folder and every person must be whole: untouched (its values, version and history
 * as before the DELETE) or erased (410, the tombstone, nothing personal outside ChangeHistory entries
 * and the stored answers its chain had still to rewrite). An erasure whose chain was cut keeps its
 * `historyPending` mark, and a DELETE sent again finishes it. What the guarantee says in
 * erase-person.ts: "an erasure that answered 200 is complete; one cut short already answers 410, and
 * the next DELETE finishes the chain". The keyed PATCHes are replayed after the restart: an untouched
 * person's answer is the stored one, an erased person's is 410, its erasure cut short before its
 * stored answers were rewritten included (the replay reads the person: lib/http/idempotency.ts
 * `erasedSince`, test/integration/erase-person.test.ts); a replay that answers the stored
 * answer of such a person is listed apart (`replayLeaks`) and must not happen.
 *
 * DynamoDB Local's own durability (crash.ts): it may lose the last transactions it acknowledged before
 * the kill, whole. A DELETE answered 200 within `STORAGE_DURABILITY_WINDOW_MS` of the kill whose
 * erasure is then found undone (untouched, or its chain's last transactions gone) is reported apart,
 * not counted against the service.
 */
import { historyPartition, personKey } from '../../lib/db/table/keys';
import { MAX_TRANSACTION_ACTIONS } from '../../lib/db/write/actions';
import { taggedPersonBody } from '../support/api';
import type { TestTable } from '../support/dynamo';
import { request } from '../support/http';
import { checkInvariants, type Item, scanAll, textOf } from '../support/invariants';
import { JAVA_DEFAULT, type ServerProcess, startServer } from '../support/server';
import { STORAGE_DURABILITY_WINDOW_MS, storageProcessOf } from './crash';
import { seededRandom } from './http';
import { storageEndpointOf, storageOf } from './storage';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the code reading them
type Json = Record<string, any>;

/** What a person is found to be after the restart. */
export type Outcome = 'untouched' | 'erased' | 'erased-pending' | 'broken';

export interface ErasedCase {
  id: number;
  token: string;
  patches: number;
  /** ChangeHistory entries before the DELETE (its version). */
  entries: number;
  /** Stored answers of keyed PATCHes about it. */
  keyedAnswers: number;
  /** The keyed PATCHes, as a replay sends them again. */
  keyed: { key: string; body: Json }[];
  /** The DELETE's answer before the restart; 0 when none came. */
  status: number;
  /** Milliseconds from sending it to its answer. */
  sentToAnswerMs: number;
  /** Milliseconds from the kill to that answer (negative: before the kill). */
  answeredAfterKillMs: number;
  outcome: Outcome;
  /** Replays of its keyed PATCHes after the restart, before any DELETE is sent again, by status. */
  replays: Record<number, number>;
  /** Whether GET /ChangeHistory of it held its token then. */
  historyServesToken: boolean;
  /** Items holding the token after the restart, by kind (before any DELETE is sent again). */
  holding: Record<string, number>;
}

export interface EraseCrashOptions {
  dataDir: string;
  seed: number;
  persons?: number;
  log?: (line: string) => void;
}

export interface EraseCrashResult {
  seed: number;
  /** How the kill was timed: right after the nth DELETE's answer (1 to 3), or a seeded delay after it. */
  killTrigger: string;
  /** From sending the DELETEs to the kill. */
  killAfterMs: number;
  cases: ErasedCase[];
  /** DELETEs still unanswered when storage died. */
  inFlightAtKill: number;
  /** Broken promises: answers, restart, a person neither untouched nor erased, a token left behind. */
  violations: string[];
  /** The invariant checker after the restart and at the end. */
  invariantViolations: string[];
  /**
   * Replays of keyed PATCHes of a person whose erasure was cut short that answered the stored answer
   * (200, its values) instead of 410 (API.md 15): none may (test/integration/erase-person.test.ts
   * is the same case, deterministic). Apart from `violations`, so a failure names this rule.
   */
  replayLeaks: string[];
  /** Erasures answered 200 but found undone after the restart, within DynamoDB Local's window. */
  lostToStorage: string[];
  /** Statuses of the DELETEs sent again after the restart (cut chains, then the untouched). */
  retriedStatuses: number[];
  /** A create with an erased person's email after it all: status, and whether its id is new. */
  recreate: { status: number; newId: boolean };
  runMs: number;
}

/** What an item is, for the report of where a token was found. */
const kindOf = (item: Item) =>
  String(item.pk).startsWith('IDEMPOTENCY#') ? 'StoredAnswer' : String(item.type ?? item.pk);

/** Kinds of item that may hold an erased person's values while its chain is pending. */
const CHAIN_KINDS = new Set(['ChangeHistory', 'StoredAnswer']);

const TOMBSTONE_KEYS = ['@context', '@type', '@id', 'id', 'CoreMetaData'].sort();

const send = async (
  url: string,
  method: string,
  path: string,
  options: Parameters<typeof request>[3] = {},
) => {
  const response = await request(url, method, path, { ...options, redirect: 'manual' });
  const text = await response.text();
  let json: Json | undefined;
  try {
    json = text ? (JSON.parse(text) as Json) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), json, text };
};

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref()),
  ]);

const portRefuses = async (endpoint: string) => {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(1_000) });
    return false;
  } catch (error) {
    return (error as Error).name !== 'TimeoutError';
  }
};

/** The person's ChangeHistory entries in a scan. */
const entriesOf = (items: Item[], id: number) =>
  items.filter((item) => item.type === 'ChangeHistory' && item.pk === historyPartition('Person', id));

export const runEraseCrash = async ({
  dataDir,
  seed,
  persons = 6,
  log = () => undefined,
}: EraseCrashOptions): Promise<EraseCrashResult> => {
  const startedAt = performance.now();
  const random = seededRandom(seed);
  const violations: string[] = [];
  const invariantViolations: string[] = [];
  const lostToStorage: string[] = [];
  const retriedStatuses: number[] = [];
  const replayLeaks: string[] = [];
  const recreate = { status: 0, newId: false };

  // Histories of 20 to about 110 entries: the two longest take two transactions of the chain (with
  // their stored answers, the ERASE entry and the mark's removal), e.g. 92 + 9 + 1 + 1 > 100.
  const lengths = [104, 92, 40, 25, 20, 20].slice(0, persons).map((n) => n + random.int(6));
  for (let n = lengths.length - 1; n > 0; n--) {
    const other = random.int(n + 1);
    [lengths[n], lengths[other]] = [lengths[other] as number, lengths[n] as number];
  }
  const stem = `ec${seed.toString(36)}`;
  const tokens = lengths.map((_, n) => `${stem}${String.fromCharCode(97 + n)}q`);

  let server: ServerProcess = await startServer({
    args: ['--data', dataDir],
    env: JAVA_DEFAULT,
    timeoutMs: 120_000,
  });
  log(`started in ${Math.round(performance.now() - startedAt)} ms`);
  const before = new Map<number, Json>();
  const cases: ErasedCase[] = [];
  let killTrigger = '';
  let killAfterMs = Number.NaN;
  let inFlightAtKill = 0;
  let firstUrl = '';
  try {
    const { url } = server;
    firstUrl = url;
    // The persons, each with its history (PATCHes one after another; every tenth sent with a key,
    // so that the chain also has stored answers to rewrite).
    await Promise.all(
      tokens.map(async (token, n) => {
        const created = await send(url, 'POST', '/Person', { requester: 0, body: taggedPersonBody(token) });
        if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
        const id = created.json?.id as number;
        const patches = (lengths[n] as number) - 1;
        const keyed: ErasedCase['keyed'] = [];
        for (let i = 0; i < patches; i++) {
          const body = { local_reference_id: `crm-${token}-${i}` };
          const key = i % 10 === 5 ? `${token}-k${i}` : undefined;
          if (key) keyed.push({ key, body });
          const patched = await send(url, 'PATCH', `/Person/${id}`, {
            requester: id,
            body,
            ...(key ? { headers: { 'idempotency-key': key } } : {}),
          });
          if (patched.status !== 200)
            throw new Error(`PATCH ${i} of ${id} answered ${patched.status}: ${patched.text}`);
        }
        const read = await send(url, 'GET', `/Person/${id}`);
        before.set(id, read.json as Json);
        cases.push({
          id,
          token,
          patches,
          entries: (read.json as Json).CoreMetaData.version,
          keyedAnswers: keyed.length,
          keyed,
          status: 0,
          sentToAnswerMs: Number.NaN,
          answeredAfterKillMs: Number.NaN,
          outcome: 'broken',
          replays: {},
          historyServesToken: false,
          holding: {},
        });
      }),
    );
    cases.sort((a, b) => a.id - b.id);
    const chains = cases.map(({ entries, keyedAnswers }) =>
      Math.ceil((entries + 1 + keyedAnswers + 1) / MAX_TRANSACTION_ACTIONS),
    );
    log(
      `seed ${seed}: ${cases.length} persons with ${cases.map((c) => c.entries).join(', ')} entries (chains of ${chains.join(', ')} transactions) in ${Math.round(performance.now() - startedAt)} ms`,
    );

    // All the DELETEs at once, and storage killed while they are in flight.
    const endpoint = await storageEndpointOf(server);
    const storagePid = storageProcessOf(server, endpoint);
    // The first to answer is a short chain's: the others are then in the middle of theirs. A later
    // answer leaves the long chains further on (their stored answers rewritten, a transaction sent).
    const nth = 1 + random.int(3);
    const delayMs = random.chance(0.25) ? 0 : random.int(201);
    killTrigger = `${delayMs === 0 ? 'right' : `${delayMs} ms`} after DELETE answer ${nth} of ${cases.length}`;
    let answered = 0;
    const sentAt = performance.now();
    let killedAt: number | undefined;
    let kill: () => void = () => undefined;
    const killed = new Promise<void>((resolve) => {
      kill = () => {
        if (killedAt !== undefined) return;
        killedAt = performance.now();
        process.kill(storagePid, 'SIGKILL');
        resolve();
      };
    });
    const answers = cases.map(async (erased) => {
      const answer = await send(url, 'DELETE', `/Person/${erased.id}`, {
        requester: erased.id,
      }).catch((error: Error) => ({ status: 0, contentType: null, json: undefined, text: error.message }));
      const at = performance.now();
      erased.sentToAnswerMs = at - sentAt;
      answered += 1;
      if (answered === nth) {
        if (delayMs === 0) kill();
        else setTimeout(kill, delayMs);
      }
      erased.status = answer.status;
      await killed;
      erased.answeredAfterKillMs = at - (killedAt as number);
      return answer;
    });
    await killed;
    killAfterMs = (killedAt as number) - sentAt;
    const deadline = Date.now() + 10_000;
    while (!(await portRefuses(endpoint)) && Date.now() < deadline)
      await new Promise((wait) => setTimeout(wait, 10));
    const settled = await withTimeout(Promise.all(answers), 60_000);
    if (settled === 'timeout') {
      violations.push('a DELETE got no answer within 60 s of the kill');
      return finish();
    }
    inFlightAtKill = cases.filter((c) => c.answeredAfterKillMs > 0).length;
    log(
      `killed DynamoDB Local (pid ${storagePid}) ${Math.round(killAfterMs)} ms after sending the DELETEs (${killTrigger}); answers ${cases.map((c) => `${c.id}: ${c.status} at ${Math.round(c.answeredAfterKillMs)} ms`).join(', ')}`,
    );
    for (const [index, answer] of settled.entries()) {
      const { id } = cases[index] as ErasedCase;
      if (answer.status === 200) continue;
      if (
        answer.status !== 503 ||
        !answer.contentType?.includes('application/problem+json') ||
        !String(answer.json?.type).endsWith('/problems/unavailable')
      )
        violations.push(
          `DELETE of ${id} around the kill: expected 200 or 503 problem+json, got ${answer.status} ${answer.contentType} ${answer.text.slice(0, 300)}`,
        );
    }

    const restarting = performance.now();
    const stopped = await withTimeout(server.stop(), 30_000);
    if (stopped === 'timeout') {
      violations.push('the server did not stop within 30 s of SIGTERM with storage dead');
      server.process.kill('SIGKILL');
    }
    server = await startServer({ args: ['--data', dataDir], env: JAVA_DEFAULT, timeoutMs: 120_000 });
    log(`stopped and started again on the same folder in ${Math.round(performance.now() - restarting)} ms`);
    const table = await storageOf(server);
    try {
      const checking = performance.now();
      await checkAfterRestart(server.url, table);
      log(`checked, finished and checked again in ${Math.round(performance.now() - checking)} ms`);
    } finally {
      table.client.destroy();
    }
  } finally {
    if (server.process.exitCode === null && server.process.signalCode === null) await server.stop();
  }
  return finish();

  function finish(): EraseCrashResult {
    return {
      seed,
      killTrigger,
      killAfterMs,
      cases,
      inFlightAtKill,
      violations,
      invariantViolations: [...new Set(invariantViolations)],
      lostToStorage,
      replayLeaks,
      retriedStatuses,
      recreate,
      runMs: performance.now() - startedAt,
    };
  }

  async function checkAfterRestart(url: string, table: TestTable) {
    invariantViolations.push(...(await checkInvariants(table)));
    const items = await scanAll(table);
    const texts = items.map((item) => ({ item, text: textOf(item) }));
    const pending: ErasedCase[] = [];
    // One person's requests one after another, the persons at once.
    const eachPerson = (check: (erased: ErasedCase) => Promise<void>) => Promise.all(cases.map(check));
    await eachPerson(async (erased) => {
      const { id, token } = erased;
      const was = before.get(id) as Json;
      const holding = texts.filter(({ text }) => text.includes(token)).map(({ item }) => item);
      for (const item of holding) erased.holding[kindOf(item)] = (erased.holding[kindOf(item)] ?? 0) + 1;
      const stored = items.find((item) => item.pk === personKey(id).pk && item.sk === personKey(id).sk);
      const entries = entriesOf(items, id);
      const read = await send(url, 'GET', `/Person/${id}`);
      const problems: string[] = [];
      if (read.status === 200) {
        erased.outcome = 'untouched';
        // The same but for the server's address, which the restart changed (its links hold it).
        if (JSON.stringify(read.json).replaceAll(url, '') !== JSON.stringify(was).replaceAll(firstUrl, ''))
          problems.push(`GET 200 but not as before the DELETE: ${read.text.slice(0, 500)}`);
        if (stored?.type !== 'Person') problems.push(`GET 200 but its item is a ${stored?.type}`);
        if (entries.length !== was.CoreMetaData.version)
          problems.push(`${entries.length} ChangeHistory entries at version ${was.CoreMetaData.version}`);
        const erasedEntries = entries.filter((entry) => !textOf(entry).includes(token));
        if (erasedEntries.length > 0)
          problems.push(`untouched, but ${erasedEntries.length} of its ChangeHistory entries are erased`);
      } else if (read.status === 410) {
        const body = read.json ?? {};
        const meta = (body.CoreMetaData ?? {}) as Json;
        if (JSON.stringify(Object.keys(body).sort()) !== JSON.stringify(TOMBSTONE_KEYS))
          problems.push(`GET 410 with keys ${Object.keys(body).join(', ')}`);
        if (body.id !== id || meta.version !== was.CoreMetaData.version + 1 || meta.live_status !== 0)
          problems.push(`GET 410 with ${read.text.slice(0, 300)}`);
        if (read.text.toLowerCase().includes(token)) problems.push('its tombstone holds its token');
        if (stored?.type !== 'ErasedPerson') problems.push(`GET 410 but its item is a ${stored?.type}`);
        if (entries.length !== was.CoreMetaData.version + 1)
          problems.push(`erased with ${entries.length} entries at version ${was.CoreMetaData.version + 1}`);
        const outside = holding.filter((item) => !CHAIN_KINDS.has(kindOf(item)));
        if (outside.length > 0)
          problems.push(
            `erased, but its token is still in ${outside.map((item) => `${item.pk} ${item.sk} (${kindOf(item)})`).join(', ')}`,
          );
        if (stored?.historyPending === true) {
          erased.outcome = 'erased-pending';
          pending.push(erased);
        } else {
          erased.outcome = 'erased';
          if (holding.length > 0)
            problems.push(
              `erased with its chain finished, but its token is still in ${holding.length} items (${Object.keys(erased.holding).join(', ')})`,
            );
        }
      } else {
        problems.push(`GET answered ${read.status}: ${read.text.slice(0, 300)}`);
      }
      if (problems.length > 0) erased.outcome = 'broken';
      violations.push(...problems.map((problem) => `person ${id} (DELETE ${erased.status}): ${problem}`));

      // Answered 200: erased, chain and all; or, within DynamoDB Local's window, undone by storage.
      if (erased.status === 200 && erased.outcome !== 'erased' && erased.outcome !== 'broken') {
        const line = `person ${id}: DELETE answered 200 ${Math.round(-erased.answeredAfterKillMs)} ms before the kill, found ${erased.outcome} after the restart`;
        if (-erased.answeredAfterKillMs < STORAGE_DURABILITY_WINDOW_MS) lostToStorage.push(line);
        else violations.push(line);
      }
    });

    // Replays of the keyed PATCHes: the stored answer of an untouched person, 410 of an erased one.
    const replay = async ({ id }: ErasedCase, { key, body }: ErasedCase['keyed'][number]) =>
      send(url, 'PATCH', `/Person/${id}`, { requester: id, body, headers: { 'idempotency-key': key } });
    await eachPerson(async (erased) => {
      for (const keyed of erased.keyed) {
        const answer = await replay(erased, keyed);
        erased.replays[answer.status] = (erased.replays[answer.status] ?? 0) + 1;
        const expected = erased.outcome === 'untouched' ? 200 : 410;
        if (answer.status === expected) continue;
        const line = `person ${erased.id} (${erased.outcome}): replay of ${keyed.key} answered ${answer.status}${answer.text.toLowerCase().includes(erased.token) ? ' with its values' : ''}`;
        if (erased.outcome === 'erased-pending' && answer.status === 200) replayLeaks.push(line);
        else violations.push(line);
      }
      if (erased.outcome === 'erased-pending') {
        const history = await send(
          url,
          'GET',
          `/ChangeHistory?endpoint=Person&object_id=${erased.id}&limit=100`,
        );
        erased.historyServesToken = history.text.toLowerCase().includes(erased.token);
      }
    });

    // A cut chain is finished by the next DELETE; then every person not erased is erased too.
    const untouched = cases.filter((c) => c.outcome === 'untouched');
    await Promise.all(
      [...pending, ...untouched].map(async (erased) => {
        const again = await send(url, 'DELETE', `/Person/${erased.id}`, { requester: erased.id });
        retriedStatuses.push(again.status);
        if (again.status !== 200)
          violations.push(
            `DELETE of ${erased.id} (${erased.outcome}) after the restart answered ${again.status}`,
          );
      }),
    );
    await eachPerson(async (erased) => {
      for (const keyed of erased.keyed) {
        const answer = await replay(erased, keyed);
        if (answer.status !== 410)
          violations.push(
            `person ${erased.id} (${erased.outcome}): after every DELETE, replay of ${keyed.key} answered ${answer.status}`,
          );
      }
    });
    const after = (await scanAll(table)).map((item) => ({ item, text: textOf(item) }));
    for (const { id, token, outcome } of cases) {
      const left = after.filter(({ text }) => text.includes(token));
      if (left.length > 0)
        violations.push(
          `person ${id} (${outcome}): after every DELETE its token is still in ${left.map(({ item }) => `${item.pk} ${item.sk} (${kindOf(item)})`).join(', ')}`,
        );
      const stored = after.find(({ item }) => item.pk === personKey(id).pk && item.sk === personKey(id).sk);
      if (stored?.item.type !== 'ErasedPerson' || stored.item.historyPending !== undefined)
        violations.push(
          `person ${id} (${outcome}): after every DELETE its item is ${JSON.stringify(stored?.item)}`,
        );
    }
    invariantViolations.push(...(await checkInvariants(table)));

    // Its email free again: a new person with a new id.
    const first = cases[0] as ErasedCase;
    const created = await send(url, 'POST', '/Person', {
      requester: 0,
      body: {
        Names: { '@set': [{ first_name: 'Again', last_name: first.token }] },
        Emails: { '@set': [{ email: `${first.token}@example.org` }] },
      },
    });
    recreate.status = created.status;
    recreate.newId = typeof created.json?.id === 'number' && !cases.some((c) => c.id === created.json?.id);
  }
};
