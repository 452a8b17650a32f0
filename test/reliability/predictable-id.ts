/**
 * Predictable ids: ids are handed out in order, so a client can name as requester the id the next
 * person is about to get. API.md 5.1: a requester that is not a person at request time is 403
 * `unknown-requester`; one that meanwhile became a person (created by someone else) is a requester like
 * any other, so 201. Never a 5xx, and never the new person as its own requester.
 *
 * Against a running server: `POST /Person` with `x-requester-person` set to the highest id seen so far
 * plus k (k from `DEFAULT_OFFSETS`: the next person's id is usually + 1, as a create takes the ids after
 * the last create's ChangeHistory entry), interleaved with ordinary creates (requester 0): first one by
 * one, each offset with the ordinary create sent just after it and, in the next pass, just before it;
 * then in bursts where both kinds race. Each answer is checked against what the other answers prove:
 * a 403 naming a person whose create had been answered before the request was sent is wrong, and so
 * is a 201 naming an id no create answered, or one created only after the 201. At the end, the persons
 * the run left are exactly its 201s: a refused create leaves no person behind.
 */
import { statusCounts } from './figures';
import { type Exchange, explain, personOf, problemOf, recorder, seededRandom } from './http';

export const DEFAULT_OFFSETS: readonly number[] = [1, 2, 3, 4, 5, 6, 10, 25, 49, 50, 51, 100];

/** The spread of the start times within a burst. */
const STAGGER_MS = 40;

export interface PredictableIdOptions {
  url: string;
  /** Creates that name a predicted id: half sent one by one, half in bursts. */
  predictions?: number;
  /** Requests sent at once in the concurrent part: half predicted, half ordinary. */
  burst?: number;
  offsets?: readonly number[];
  seed?: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface PredictableIdFigures {
  /** The creates naming a predicted id. */
  requests: number;
  forbidden: number;
  created: number;
  /** Every 5xx, 503 included. */
  serverErrors: number;
  unavailable: number;
  unanswered: number;
  /** Statuses other than 403, 201 and 5xx. */
  otherStatuses: Record<number, number>;
  /** The ordinary creates (requester 0) between them. */
  ordinary: {
    requests: number;
    created: number;
    serverErrors: number;
    otherStatuses: Record<number, number>;
  };
}

export interface PredictableIdResult {
  runId: string;
  /** From the first request to the last answer. */
  wallMs: number;
  figures: PredictableIdFigures;
  /** Broken promises besides 5xx: wrong problem type, 403 to a person, 201 to a non-person, leftovers. */
  violations: string[];
  /** The predicted ids that were a person when asked (the 201s), by offset. */
  hitsByOffset: Record<number, number>;
  exchanges: Exchange[];
}

const without = (counts: Record<number, number>, keep: (status: number) => boolean) =>
  Object.fromEntries(Object.entries(counts).filter(([status]) => keep(Number(status))));

const isFailure = (exchange: Exchange) => exchange.status >= 500 || exchange.status === 0;

export const runPredictableId = async ({
  url,
  predictions = 200,
  burst = 24,
  offsets = DEFAULT_OFFSETS,
  seed = Date.now() % 2 ** 31,
  timeoutMs = 30_000,
  log = () => undefined,
}: PredictableIdOptions): Promise<PredictableIdResult> => {
  const http = recorder(url, { timeoutMs });
  const random = seededRandom(seed);
  const runId = `p${seed.toString(36)}${random.int(36 ** 3).toString(36)}`;
  const predicted: Exchange[] = [];
  const ordinary: Exchange[] = [];
  const offsetOf = new Map<Exchange, number>();
  let highest = 0;
  let names = 0;

  /** The highest id an answer shows: the person, its Name, its ChangeHistory entry (the last of its block). */
  const remember = (exchange: Exchange) => {
    const person = personOf(exchange);
    if (!person) return;
    const ids = [
      person.id,
      person.CoreMetaData.created_audit_id ?? 0,
      ...person.Names['@set'].map((item) => (typeof item.id === 'number' ? item.id : 0)),
    ];
    highest = Math.max(highest, ...ids);
  };
  // Email-less persons are unique by name: every create gets a name of its own.
  const create = async (requester: number) => {
    const tag = `${runId}-${String(names++).padStart(5, '0')}`;
    const exchange = await http.send('create', 'POST', '/Person', {
      requester,
      tag,
      body: {
        '@type': 'Person',
        local_reference_id: tag,
        Names: { '@type': 'Names', '@set': [{ '@type': 'Name', first_name: 'Predicted', last_name: tag }] },
      },
    });
    remember(exchange);
    return exchange;
  };
  const createOrdinary = async () => {
    const exchange = await create(0);
    ordinary.push(exchange);
    return exchange;
  };
  const createAs = async (offset: number, base: number) => {
    const exchange = await create(base + offset);
    predicted.push(exchange);
    offsetOf.set(exchange, offset);
    return exchange;
  };
  await createOrdinary();
  const oneByOne = Math.ceil(predictions / 2);
  for (let n = 0; n < oneByOne; n++) {
    const base = highest;
    const offset = offsets[n % offsets.length] as number;
    // Every offset both ways in turn. Sent after an ordinary create, + 1 names the person it just
    // made (201); sent before it, + 1 is the id the predicted request itself is about to get (403).
    if (Math.floor(n / offsets.length) % 2 === 1) {
      await createOrdinary();
      await createAs(offset, base);
    } else {
      await createAs(offset, base);
      await createOrdinary();
    }
  }
  log(`one by one: ${oneByOne} predicted requests: ${JSON.stringify(statusCounts(predicted))}`);

  const half = Math.max(1, Math.floor(burst / 2));
  let inBursts = 0;
  while (inBursts < predictions - oneByOne) {
    const base = highest;
    const count = Math.min(half, predictions - oneByOne - inBursts);
    const requests = [
      ...Array.from({ length: count }, () => () => createAs(random.pick(offsets), base)),
      ...Array.from({ length: half }, () => createOrdinary),
    ];
    // Each starts within a few milliseconds of the others, so predicted requesters are checked while
    // the creates that make them persons are in flight, before them and after them.
    await Promise.all(
      requests.map(async (send) => {
        await new Promise((wait) => setTimeout(wait, random.int(STAGGER_MS)));
        return send();
      }),
    );
    inBursts += count;
  }
  log(`in bursts of ${2 * half}: ${predictions - oneByOne} predicted requests`);

  // What the answers prove about each other.
  const violations: string[] = [];
  const creators = new Map<number, Exchange>();
  for (const exchange of [...ordinary, ...predicted]) {
    const person = personOf(exchange);
    if (exchange.status === 201 && person) creators.set(person.id, exchange);
  }
  const hitsByOffset: Record<number, number> = {};
  for (const exchange of predicted) {
    const requester = exchange.requester as number;
    const creator = creators.get(requester);
    if (exchange.status === 403) {
      const problem = problemOf(exchange);
      if (
        exchange.contentType !== 'application/problem+json' ||
        problem?.type !== '/problems/unknown-requester'
      )
        violations.push(`403 that is not problem+json unknown-requester: ${explain(exchange)}`);
      if (creator && creator.endedAt < exchange.startedAt)
        violations.push(
          `403 although requester ${requester} was created (answered at ${Math.round(creator.endedAt)} ms) before the request was sent: ${explain(exchange)}`,
        );
    } else if (exchange.status === 201) {
      const person = personOf(exchange);
      const offset = offsetOf.get(exchange) as number;
      hitsByOffset[offset] = (hitsByOffset[offset] ?? 0) + 1;
      if (!creator || creator === exchange)
        violations.push(
          `201 naming requester ${requester}, which no other create made: ${explain(exchange)}`,
        );
      else if (creator.startedAt > exchange.endedAt)
        violations.push(
          `201 naming requester ${requester}, created only after the answer: ${explain(exchange)} before ${explain(creator)}`,
        );
      if (person && (person.id === requester || person.CoreMetaData.created_by !== requester))
        violations.push(
          `201 as person ${person.id} created by ${person.CoreMetaData.created_by}, asked by ${requester}: ${explain(exchange)}`,
        );
    } else if (!isFailure(exchange)) violations.push(`neither 403 nor 201: ${explain(exchange)}`);
  }
  for (const exchange of ordinary)
    if (exchange.status !== 201 && !isFailure(exchange))
      violations.push(`an ordinary create was not 201: ${explain(exchange)}`);

  // Exactly the acknowledged creates left a person: none of the refused ones did.
  const acknowledged = creators.size;
  const unknown = [...ordinary, ...predicted].filter(isFailure).length;
  let stored = Number.NaN;
  for (let attempt = 0; attempt < 10; attempt++) {
    const listed = await http.send('list', 'GET', `/Person?last_name=${encodeURIComponent(runId)}&limit=0`);
    stored =
      (listed.json as { Pagination?: { count?: number } } | undefined)?.Pagination?.count ?? Number.NaN;
    if (stored >= acknowledged) break;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  if (!(stored >= acknowledged && stored <= acknowledged + unknown))
    violations.push(
      `the run left ${stored} persons, but ${acknowledged} creates were acknowledged (and ${unknown} had no clear answer)`,
    );

  const statuses = statusCounts(predicted);
  const ordinaryStatuses = statusCounts(ordinary);
  return {
    runId,
    wallMs: http.now(),
    figures: {
      requests: predicted.length,
      forbidden: statuses[403] ?? 0,
      created: statuses[201] ?? 0,
      serverErrors: predicted.filter((e) => e.status >= 500).length,
      unavailable: statuses[503] ?? 0,
      unanswered: statuses[0] ?? 0,
      otherStatuses: without(statuses, (status) => status !== 403 && status !== 201 && status < 500),
      ordinary: {
        requests: ordinary.length,
        created: ordinaryStatuses[201] ?? 0,
        serverErrors: ordinary.filter((e) => e.status >= 500).length,
        otherStatuses: without(ordinaryStatuses, (status) => status !== 201 && status < 500),
      },
    },
    violations,
    hitsByOffset,
    exchanges: http.exchanges,
  };
};
