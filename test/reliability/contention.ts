/**
 * Contention on one person: rounds of N concurrent `PATCH /Person/{id}` of the same person, without
 * If-Match, as the person itself (API.md 5.4: each succeeds with 200, none loses another's change,
 * storage conflicts are retried inside the service and never surface as 5xx).
 *
 * Every PATCH of a round owns one field of its own: slot i adds an item to one of the person's sets
 * (PhoneNumbers, PersonRoles, PostalAddresses, the four membership sets, round-robin within their
 * limits) in the first round, and changes that item's text in every later round, so the changes of a
 * round never overlap and every one of them must be visible afterwards. After each round one GET shows
 * the person: every acknowledged change must be there, a refused one (4xx) must not, and the version
 * must have grown by exactly the number of changes that landed: the 200s, and the 5xx and unanswered
 * ones that storage shows anyway (a request without an answer may land later still, so its slot sends
 * nothing more and is looked for again after every round). The person has no email, so enrichment
 * never writes to it in between.
 */
import { ITEM_TYPES, LIMITS, MEMBERSHIP_SETS, type SetName } from '../../lib/domain/schemas';
import { statusCounts } from './figures';
import { type Exchange, explain, percentile, personOf, type Random, recorder, seededRandom } from './http';

export interface ContentionOptions {
  url: string;
  /** PATCHes sent at once in each round: one per field, so at most `MAX_CONCURRENCY`. */
  concurrency?: number;
  rounds?: number;
  seed?: number;
  /** A request without an answer after this long counts as a hang. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

/** The sets a slot can own an item of, and the text field of that item it changes. */
const SLOT_SETS = [
  ['PhoneNumbers', 'phone_number'],
  ['PersonRoles', 'name'],
  ['PostalAddresses', 'city'],
  ['PersonOrganizations', 'name'],
  ['PersonGroups', 'name'],
  ['PersonInitiatives', 'name'],
  ['PersonTeams', 'name'],
] as const satisfies readonly (readonly [SetName, string])[];
type SlotSet = (typeof SLOT_SETS)[number][0];

/** One field per concurrent PATCH: as many as the sets above may hold items. */
export const MAX_CONCURRENCY = SLOT_SETS.reduce((sum, [set]) => sum + LIMITS.sets[set], 0);

interface Slot {
  index: number;
  set: SlotSet;
  field: string;
  /** The slot's item, once its add landed. */
  itemId?: number;
  /** What storage should hold in the slot's field: the last value a 200 acknowledged. */
  acknowledged?: string;
  /**
   * A request of the slot got no answer: its change may still land at any time, so the slot sends no
   * more (a later change of its field could then be overwritten by it).
   */
  retired: boolean;
}

/** One PATCH of a round: what it asked for and what it got. */
interface Attempt {
  slot: Slot;
  round: number;
  /** The value written into the slot's field, unique to the round and slot. */
  value: string;
  /** Marks an add's item, so the slot finds it even when the add's answer was lost. */
  tag: string | null;
  exchange: Exchange;
}

export interface ContentionRound {
  round: number;
  requests: number;
  ok: number;
  versionBefore: number;
  versionAfter: number;
  /** Changes answered 5xx or not at all that are stored anyway. */
  landedUnacknowledged: number;
  wallMs: number;
}

export interface ContentionFigures {
  /** The concurrent PATCHes. */
  requests: number;
  ok: number;
  /** Every 5xx, 503 included. */
  serverErrors: number;
  unavailable: number;
  unanswered: number;
  /** Statuses other than 200 and 5xx, and 0 for no answer. */
  otherStatuses: Record<number, number>;
  p50: number;
  p99: number;
  max: number;
}

export interface ContentionResult {
  runId: string;
  personId: number;
  concurrency: number;
  rounds: ContentionRound[];
  /** From the first request to the last answer. */
  wallMs: number;
  figures: ContentionFigures;
  /** Changes acknowledged with 200 that the GET after their round does not show. */
  lostChanges: string[];
  /** Other broken promises: versions that do not add up, refused changes stored, answers without their change. */
  violations: string[];
  /** Every request of the run, the setup and the GETs included. */
  exchanges: Exchange[];
}

const isMembership = (set: SetName) => (MEMBERSHIP_SETS as readonly SetName[]).includes(set);

type Item = Record<string, unknown> & { id?: number | null };

const itemsOf = (person: unknown, set: SlotSet): Item[] => {
  const record = person as Record<string, Record<string, { '@set'?: Item[] }>>;
  const container = isMembership(set) ? record.PersonMemberships?.[set] : record[set];
  return (container?.['@set'] ?? []) as Item[];
};

const slotsFor = (concurrency: number): Slot[] => {
  const used = new Map<SlotSet, number>();
  const slots: Slot[] = [];
  for (let turn = 0; slots.length < concurrency; turn++) {
    const [set, field] = SLOT_SETS[turn % SLOT_SETS.length] as (typeof SLOT_SETS)[number];
    if ((used.get(set) ?? 0) >= LIMITS.sets[set]) continue;
    used.set(set, (used.get(set) ?? 0) + 1);
    slots.push({ index: slots.length, set, field, retired: false });
  }
  return slots;
};

/** The PATCH body of a slot: add its item (tagged), or change its item's field to `value`. */
const bodyOf = (slot: Slot, value: string, tag: string | null) => {
  const element =
    tag !== null
      ? { '@type': ITEM_TYPES[slot.set], [slot.field]: value, local_reference_id: tag }
      : { '@type': ITEM_TYPES[slot.set], id: slot.itemId, [slot.field]: value };
  const container = { '@type': slot.set, '@set': [element] };
  return isMembership(slot.set)
    ? { PersonMemberships: { '@type': 'PersonMemberships', [slot.set]: container } }
    : { [slot.set]: container };
};

/** Fisher-Yates, from the run's seed. */
const shuffled = <T>(items: readonly T[], random: Random): T[] => {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
};

/** The item an attempt wrote to in a person: the slot's item, or the one its add made. */
const itemOf = (person: unknown, { slot, tag }: Attempt): Item | undefined =>
  itemsOf(person, slot.set).find((item) =>
    tag !== null ? item.local_reference_id === tag : item.id === slot.itemId,
  );

/** Whether a person shows an attempt's change. */
const shows = (person: unknown, attempt: Attempt) =>
  itemOf(person, attempt)?.[attempt.slot.field] === attempt.value;

export const runContention = async ({
  url,
  concurrency = 100,
  rounds = 3,
  seed = Date.now() % 2 ** 31,
  timeoutMs = 30_000,
  log = () => undefined,
}: ContentionOptions): Promise<ContentionResult> => {
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)
    throw new Error(
      `contention: 1 to ${MAX_CONCURRENCY} concurrent PATCHes (one field each), not ${concurrency}`,
    );
  const http = recorder(url, { timeoutMs });
  const random = seededRandom(seed);
  const runId = `c${seed.toString(36)}${random.int(36 ** 3).toString(36)}`;
  const lostChanges: string[] = [];
  const violations: string[] = [];
  const roundResults: ContentionRound[] = [];
  const patches: Exchange[] = [];

  const created = await http.send('create', 'POST', '/Person', {
    requester: 0,
    tag: runId,
    body: {
      '@type': 'Person',
      local_reference_id: runId,
      Names: { '@type': 'Names', '@set': [{ '@type': 'Name', first_name: 'Contention', last_name: runId }] },
    },
  });
  const person = personOf(created);
  if (created.status !== 201 || !person)
    throw new Error(`contention: could not create the person: ${explain(created)}`);
  const personId = person.id;
  let version = person.CoreMetaData.version;
  const slots = slotsFor(concurrency);
  /** Attempts without an answer whose change has not shown yet. */
  let pending: Attempt[] = [];

  for (let round = 1; round <= rounds; round++) {
    const active = slots.filter((slot) => !slot.retired);
    if (active.length === 0) break;
    const startedAt = performance.now();
    // Sent in a shuffled order, so no set is always first in line.
    const attempts: Attempt[] = await Promise.all(
      shuffled(active, random).map(async (slot) => {
        const value = `${runId} r${round} s${slot.index}`;
        const tag = slot.itemId === undefined ? `${runId}.s${slot.index}.r${round}` : null;
        const exchange = await http.send(tag ? 'add' : 'change', 'PATCH', `/Person/${personId}`, {
          requester: personId,
          tag: tag ?? `${runId}.s${slot.index}`,
          body: bodyOf(slot, value, tag),
        });
        return { slot, round, value, tag, exchange };
      }),
    );
    const wallMs = performance.now() - startedAt;
    patches.push(...attempts.map(({ exchange }) => exchange));

    const read = await http.send('get', 'GET', `/Person/${personId}`);
    const stored = personOf(read);
    if (read.status !== 200 || !stored) {
      violations.push(`round ${round}: the person could not be read back: ${explain(read)}`);
      break;
    }
    const versionAfter = stored.CoreMetaData.version;
    const acknowledgedVersions = new Map<number, Exchange>();
    let ok = 0;
    let landed = 0;
    /** An attempt whose outcome was unknown shows: it counts towards the version, and its item is the slot's. */
    const land = (attempt: Attempt) => {
      landed += 1;
      const item = itemOf(stored, attempt);
      if (attempt.slot.itemId === undefined && typeof item?.id === 'number') attempt.slot.itemId = item.id;
    };
    // Earlier attempts without an answer may have landed since.
    pending = pending.filter((attempt) => {
      if (!shows(stored, attempt)) return true;
      land(attempt);
      return false;
    });
    for (const attempt of attempts) {
      const { slot, value, tag, exchange } = attempt;
      const holds = shows(stored, attempt);
      if (exchange.status === 200) {
        ok += 1;
        const answer = personOf(exchange);
        const claimed = answer?.CoreMetaData.version;
        if (claimed === undefined || exchange.etag !== `"${claimed}"`)
          violations.push(`round ${round}: a 200 whose ETag is not its version: ${explain(exchange)}`);
        else if (claimed <= version || claimed > versionAfter)
          violations.push(
            `round ${round}: a 200 claims version ${claimed}, outside ${version + 1}..${versionAfter}: ${explain(exchange)}`,
          );
        else if (acknowledgedVersions.has(claimed))
          violations.push(
            `round ${round}: two 200s claim version ${claimed} (a lost update): ${explain(exchange)} and ${explain(acknowledgedVersions.get(claimed) as Exchange)}`,
          );
        else acknowledgedVersions.set(claimed, exchange);
        if (answer && !shows(answer, attempt))
          violations.push(`round ${round}: a 200 whose answer lacks its own change: ${explain(exchange)}`);
        if (holds) {
          slot.acknowledged = value;
          if (slot.itemId === undefined) slot.itemId = itemOf(stored, attempt)?.id ?? undefined;
        } else {
          const item = itemOf(stored, attempt);
          lostChanges.push(
            `round ${round}: ${explain(exchange)}: ${slot.set} ${tag ? `item tagged ${tag}` : `item ${slot.itemId}`} ${slot.field} should be "${value}", is ${item ? JSON.stringify(item[slot.field]) : 'not there'}`,
          );
        }
      } else if (exchange.status === 0) {
        // No answer: the change may still land, later; the slot stops here.
        slot.retired = true;
        if (holds) land(attempt);
        else pending.push(attempt);
      } else if (exchange.status >= 500) {
        // Answered, but whether the change landed is not said: storage shows it.
        if (holds) land(attempt);
      } else if (holds) violations.push(`round ${round}: a refused change is stored: ${explain(exchange)}`);
      // A change that did not land leaves what the slot held before.
      if (exchange.status !== 200 && !holds && slot.acknowledged !== undefined) {
        const current = itemOf(stored, { ...attempt, tag: null })?.[slot.field];
        if (current !== slot.acknowledged)
          lostChanges.push(
            `round ${round}: ${slot.set} item ${slot.itemId} ${slot.field} should still be "${slot.acknowledged}", is ${JSON.stringify(current)}`,
          );
      }
    }
    if (versionAfter - version !== ok + landed)
      violations.push(
        `round ${round}: the version went from ${version} to ${versionAfter}, but ${ok} changes were acknowledged and ${landed} unacknowledged ones landed`,
      );
    roundResults.push({
      round,
      requests: attempts.length,
      ok,
      versionBefore: version,
      versionAfter,
      landedUnacknowledged: landed,
      wallMs,
    });
    log(
      `round ${round}: ${attempts.length} PATCHes in ${(wallMs / 1000).toFixed(1)} s: ${JSON.stringify(statusCounts(attempts.map(({ exchange }) => exchange)))}; version ${version} -> ${versionAfter}${landed > 0 ? `, ${landed} unanswered or 5xx changes landed` : ''}`,
    );
    version = versionAfter;
  }

  const statuses = statusCounts(patches);
  const latencies = patches.filter((e) => e.status > 0).map((e) => e.endedAt - e.startedAt);
  const serverErrors = patches.filter((e) => e.status >= 500).length;
  return {
    runId,
    personId,
    concurrency,
    rounds: roundResults,
    wallMs: http.now(),
    figures: {
      requests: patches.length,
      ok: statuses[200] ?? 0,
      serverErrors,
      unavailable: statuses[503] ?? 0,
      unanswered: statuses[0] ?? 0,
      otherStatuses: Object.fromEntries(
        Object.entries(statuses).filter(([status]) => status !== '200' && Number(status) < 500),
      ),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.length > 0 ? Math.max(...latencies) : Number.NaN,
    },
    lostChanges,
    violations,
    exchanges: http.exchanges,
  };
};
