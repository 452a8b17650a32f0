/**
 * What a recorded history of requests proves about storage afterwards.
 *
 * The reasoning: a person's stored changes are totally ordered by its version (each write is
 * conditioned on the version it merged onto, and writes audit entry `AUDIT#<version>`). Every PATCH
 * the load sends sets a fresh root `local_reference_id`, so every acknowledged write is a stored change
 * with a version of its own. Hence, per person:
 * - the acknowledged versions are distinct (two acknowledgements of one version = a lost update) and
 *   none is above the stored version (else an acknowledged write is lost);
 * - audit entry k was written by the acknowledged write k (same `at`, same requester);
 * - with no ambiguous answers, versions 1..V are all acknowledged (or enrichment), so the history is
 *   complete: the state acknowledged at version k, with the request of version k+1 applied by the
 *   contract's rules (API.md 5.3), must be exactly the state acknowledged at k+1, and the stored
 *   person must be exactly the last acknowledged state. That is "every acknowledged write is visible
 *   unless a later acknowledged write changed it", checked item by item, ids and primaries included.
 * Refused writes (400, 409) must leave no trace: their tags appear in no stored item; and a 409's
 * `existing` person did hold the address (or was email-less) in some acknowledged state. Across
 * persons: per address, when the acknowledged write that touched it last began after every other one
 * touching it was answered, storage holds what that write made (held by its person, or by no one); of
 * two simultaneous adds of one fresh address exactly one won; the invariant checker finds nothing; no
 * address is held twice; no two email-less persons share a folded name; the person counter equals the
 * persons stored; and the API (GET of every person, the list by every address) agrees with storage.
 */

import { fromPersonItem } from '../../lib/db/person/person-items';
import { PERSON_COUNTER_KEYS } from '../../lib/db/table/keys';
import { normaliseEmail } from '../../lib/domain/email';
import { claimsOf, fullnameOfPerson, type Person } from '../../lib/domain/person';
import { toPersonOut } from '../../lib/domain/representation';
import { PersonOut } from '../../lib/domain/schemas';
import { fold } from '../../lib/domain/text';
import type { TestTable } from '../support/dynamo';
import { checkInvariants, type Item, scanAll } from '../support/invariants';
import {
  type Exchange,
  explain,
  isSuccess,
  personIdOfUrl,
  personOf,
  problemOf,
  type RequestKind,
  WRITE_KINDS,
} from './http';
import { isRaceAddress, type LoadRun, liveItems } from './load';

export interface VerifyOptions {
  /** The run's server, for the API-level checks. */
  url: string;
  table: TestTable;
  /**
   * Exchanges whose outcome is unknown (no answer, 5xx): their writes may or may not have landed. In
   * the load test there must be none; in the crash test they are the requests caught by the kill.
   */
  ambiguous?: (exchange: Exchange) => boolean;
}

export interface Verdict {
  /** Broken promises of the service: contract, uniqueness, refused writes that left a trace. */
  violations: string[];
  /** What the invariant checker found in storage. */
  invariantViolations: string[];
  /** Acknowledged writes storage does not hold. */
  lostAcknowledged: string[];
  /** The acknowledged exchanges whose writes storage does not hold, each with why it is judged lost. */
  lost: { exchange: Exchange; reason: string }[];
  /** Stored versions no acknowledged write accounts for (ambiguous answers whose write landed). */
  landedUnacknowledged: number;
  persons: number;
  acknowledgedWrites: number;
  refusedWrites: number;
  emailsHeld: number;
  /** Addresses whose latest acknowledged write is clear in real time, checked against storage. */
  addressesCheckedInOrder: number;
}

interface EmailState {
  id: number;
  email: string;
  local_reference_id: string | null;
  primary: boolean;
}
interface NameState {
  id: number;
  first_name: string | null;
  last_name: string | null;
  local_reference_id: string | null;
  primary: boolean;
}
/** The parts of a person the load writes. */
interface State {
  local_reference_id: string | null;
  names: NameState[];
  emails: EmailState[];
}

type Element = Record<string, unknown> & { id?: number | null };
interface WriteBody {
  local_reference_id?: string;
  Names?: { '@set': Element[] };
  Emails?: { '@set': Element[] };
}

const byId = <T extends { id: number }>(items: T[]) => [...items].sort((a, b) => a.id - b.id);
const emailState = (item: Record<string, unknown>): EmailState => ({
  id: item.id as number,
  email: item.email as string,
  local_reference_id: (item.local_reference_id as string | null) ?? null,
  primary: item.primary === true,
});
const nameState = (item: Record<string, unknown>): NameState => ({
  id: item.id as number,
  first_name: (item.first_name as string | null) ?? null,
  last_name: (item.last_name as string | null) ?? null,
  local_reference_id: (item.local_reference_id as string | null) ?? null,
  primary: item.primary === true,
});

const stateOfAnswer = (person: PersonOut): State => ({
  local_reference_id: person.local_reference_id,
  names: byId(liveItems(person.Names).map(nameState)),
  emails: byId(liveItems(person.Emails).map(emailState)),
});
const stateOfStored = (person: Person): State => ({
  local_reference_id: person.local_reference_id,
  names: byId(person.Names.map((item) => nameState(item as unknown as Record<string, unknown>))),
  emails: byId(person.Emails.map((item) => emailState(item as unknown as Record<string, unknown>))),
});
const same = (a: State, b: State) => JSON.stringify(a) === JSON.stringify(b);
const show = (state: State) =>
  JSON.stringify({
    ref: state.local_reference_id,
    names: state.names.map((n) => `${n.id}:${n.first_name} ${n.last_name}${n.primary ? '*' : ''}`),
    emails: state.emails.map((e) => `${e.id}:${e.email}${e.primary ? '*' : ''}`),
  });

const isDelete = (element: Element) =>
  Object.keys(element).every((key) => key.startsWith('@') || key === 'id' || key === 'local_reference_id');

/** Names and Emails always have one primary: the one kept, else the lowest id (API.md 5.3, docs/behaviour.md). */
const settlePrimary = <T extends { id: number; primary: boolean }>(
  items: T[],
  keptPrimary: number | undefined,
) => {
  const primary = items.some((item) => item.id === keptPrimary) ? keptPrimary : byId(items)[0]?.id;
  return byId(items.map((item) => ({ ...item, primary: item.id === primary })));
};

/**
 * The state the contract says a request turns `previous` into, given the ids `next` assigned to the
 * request's adds (found by their tags); and what in the request an acknowledgement contradicts.
 */
const applyWrite = (
  previous: State | null,
  body: WriteBody,
  next: State,
): { expected: State; problems: string[] } => {
  const problems: string[] = [];
  const base: State = previous ?? { local_reference_id: null, names: [], emails: [] };
  const applySet = <T extends EmailState | NameState>(
    current: T[],
    elements: Element[] | undefined,
    fresh: T[],
    build: (element: Element, id: number) => T,
  ): T[] => {
    const items = new Map(current.map((item) => [item.id, { ...item }]));
    const keptPrimary = current.find((item) => item.primary)?.id;
    for (const element of elements ?? []) {
      if (previous && element.id != null) {
        if (isDelete(element)) {
          items.delete(element.id);
          continue;
        }
        const item = items.get(element.id) as Record<string, unknown> | undefined;
        if (!item) {
          problems.push(`changed item ${element.id}, which the person did not hold, and was acknowledged`);
          continue;
        }
        for (const [key, value] of Object.entries(element))
          if (!key.startsWith('@') && key !== 'id')
            item[key] = key === 'email' && typeof value === 'string' ? value.trim() : value;
        continue;
      }
      const tag = element.local_reference_id as string | undefined;
      const added = fresh.find((item) => item.local_reference_id === tag && !items.has(item.id));
      if (!added) {
        problems.push(`the add tagged ${tag} is not in the answer`);
        continue;
      }
      items.set(added.id, build(element, added.id));
    }
    return settlePrimary([...items.values()], previous ? keptPrimary : undefined);
  };
  const knownIds = new Set([...base.names, ...base.emails].map((item) => item.id));
  const expected: State = {
    local_reference_id:
      body.local_reference_id !== undefined ? body.local_reference_id : base.local_reference_id,
    names: applySet(
      base.names,
      body.Names?.['@set'],
      next.names.filter((item) => !knownIds.has(item.id)),
      (element, id) => ({
        id,
        first_name: (element.first_name as string | undefined) ?? null,
        last_name: (element.last_name as string | undefined) ?? null,
        local_reference_id: (element.local_reference_id as string | undefined) ?? null,
        primary: false,
      }),
    ),
    emails: applySet(
      base.emails,
      body.Emails?.['@set'],
      next.emails.filter((item) => !knownIds.has(item.id)),
      (element, id) => ({
        id,
        email: String(element.email).trim(),
        local_reference_id: (element.local_reference_id as string | undefined) ?? null,
        primary: false,
      }),
    ),
  };
  return { expected, problems };
};

/** On create, the first Name and the first Email sent are primary (API.md 5.2). */
const createdState = (body: WriteBody, answer: State): State => {
  const { expected } = applyWrite(null, body, answer);
  const firstOf = <T extends { id: number; local_reference_id: string | null }>(
    items: T[],
    elements?: Element[],
  ) => items.find((item) => item.local_reference_id === elements?.[0]?.local_reference_id)?.id;
  return {
    ...expected,
    names: settlePrimary(expected.names, firstOf(expected.names, body.Names?.['@set'])),
    emails: settlePrimary(expected.emails, firstOf(expected.emails, body.Emails?.['@set'])),
  };
};

const tombstonesOf = (person: PersonOut) =>
  (person.Emails['@set'] as Record<string, unknown>[])
    .filter((item) => !('person_fk' in item) && typeof item.local_reference_id === 'string')
    .map((item) => item.local_reference_id as string);

/** Every string anywhere in the stored items: where the tags of requests would be. */
const storedStrings = (items: Item[]) => {
  const strings = new Set<string>();
  const walk = (value: unknown) => {
    if (typeof value === 'string') strings.add(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(items);
  return strings;
};

const EXPECTED_STATUSES: Record<RequestKind, readonly number[]> = {
  create: [201, 409],
  add: [200, 409],
  // A change or rename of an item a concurrent request deleted is 400 (API.md 5.3).
  change: [200, 400, 409],
  rename: [200, 400, 409],
  // Removing a person's last email makes it unique by name: 409 duplicate-name.
  delete: [200, 409],
  'move-release': [200, 409],
  'move-take': [200, 409],
  race: [200, 409],
  list: [200],
  get: [200],
};

const writeOf = (exchange: Exchange) => exchange.body as WriteBody;
const targetOf = (exchange: Exchange) => personIdOfUrl(exchange.path);

export const verifyRun = async (
  run: LoadRun,
  { url, table, ambiguous = () => false }: VerifyOptions,
): Promise<Verdict> => {
  const violations: string[] = [];
  const lostAcknowledged: string[] = [];
  const lost: Verdict['lost'] = [];
  const lose = (exchange: Exchange, reason: string) => {
    if (!lost.some((entry) => entry.exchange === exchange)) lost.push({ exchange, reason });
    lostAcknowledged.push(reason);
  };
  const exchanges = run.exchanges;
  const writes = exchanges.filter((exchange) => WRITE_KINDS.has(exchange.kind));
  const acknowledged = writes.filter((exchange) => isSuccess(exchange) && !ambiguous(exchange));
  const refused = writes.filter((exchange) => exchange.status === 400 || exchange.status === 409);
  const ambiguousWrites = writes.filter(ambiguous).length;

  // 1. Every answer is one the contract allows for that request, and every error is problem+json.
  for (const exchange of exchanges) {
    if (ambiguous(exchange)) continue;
    if (!EXPECTED_STATUSES[exchange.kind].includes(exchange.status))
      violations.push(`unexpected answer: ${explain(exchange)}`);
    if (exchange.status >= 400) {
      const problem = problemOf(exchange);
      if (exchange.contentType !== 'application/problem+json' || problem?.status !== exchange.status)
        violations.push(`error is not problem+json with its status: ${explain(exchange)}`);
      if (
        exchange.status === 400 &&
        exchange.kind !== 'create' &&
        problem?.type === '/problems/validation-error'
      ) {
        const paths = (problem.errors ?? []).map((error) => error.path);
        if (!paths.every((path) => /^\/(Emails|Names)\/@set\/0\/id$/.test(path)))
          violations.push(`400 for something else than a vanished item: ${explain(exchange)} ${paths}`);
      }
    }
  }

  for (const exchange of exchanges) {
    if (exchange.kind !== 'list' || exchange.status !== 200) continue;
    const body = exchange.json as {
      Pagination?: { count: number; limit: number };
      '@set'?: unknown[];
      items?: unknown[];
      total?: number;
    };
    const shaped = body.Pagination
      ? body['@set']?.length === body.Pagination.limit && body.Pagination.count >= body.Pagination.limit
      : Array.isArray(body.items) && typeof body.total === 'number' && body.total >= body.items.length;
    if (!shaped)
      violations.push(
        `a list answer does not add up: ${explain(exchange)} ${JSON.stringify(body).slice(0, 300)}`,
      );
  }

  // 2. Storage, read directly.
  const items = await scanAll(table);
  const invariantViolations = await checkInvariants(table);
  const stored = new Map(
    items.filter((item) => item.type === 'Person').map((item) => [item.id as number, fromPersonItem(item)]),
  );
  const audits = new Map<string, Item>(
    items
      .filter((item) => item.type === 'ChangeHistory' && item.endpoint === 'Person')
      .map((item) => [`${item.object_id}:${Number(String(item.sk).replace('AUDIT#', ''))}`, item]),
  );
  for (const [id, person] of stored) {
    try {
      PersonOut.parse(toPersonOut(person, { baseUrl: url, contextUrl: `${url}/context.jsonld` }));
    } catch (error) {
      violations.push(
        `stored person ${id} does not make a valid Person: ${(error as Error).message.slice(0, 300)}`,
      );
    }
  }

  // 3. Per person: the acknowledged writes form its history (see the header).
  const acksByPerson = new Map<number, Exchange[]>();
  for (const exchange of acknowledged) {
    const person = personOf(exchange);
    if (!person) continue;
    if (exchange.etag !== `"${person.CoreMetaData.version}"`)
      violations.push(
        `ETag ${exchange.etag} does not name version ${person.CoreMetaData.version}: ${explain(exchange)}`,
      );
    if (exchange.kind !== 'create' && person.id !== targetOf(exchange))
      violations.push(`answered with person ${person.id}: ${explain(exchange)}`);
    acksByPerson.set(person.id, [...(acksByPerson.get(person.id) ?? []), exchange]);
  }
  /** What each acknowledged write did to which address: gave it to its person, or took it away. */
  const addressEvents: { address: string; person: number; held: boolean; exchange: Exchange }[] = [];
  /** Every state each person was acknowledged in: evidence for the 409s' `existing`. */
  const history = new Map<number, State[]>();
  let landedUnacknowledged = 0;
  for (const [id, acks] of acksByPerson) {
    const person = stored.get(id);
    if (!person) {
      for (const ack of acks) lose(ack, `person ${id} is not stored, but ${explain(ack)} was acknowledged`);
      continue;
    }
    const version = person.CoreMetaData.version;
    const byVersion = new Map<number, Exchange>();
    for (const ack of acks) {
      const at = (personOf(ack) as PersonOut).CoreMetaData.version;
      const twin = byVersion.get(at);
      if (twin)
        violations.push(
          `person ${id}: two writes acknowledged as version ${at}, so one was lost: ${explain(twin)} and ${explain(ack)}`,
        );
      byVersion.set(at, ack);
      if (at > version)
        lose(
          ack,
          `person ${id} is stored at version ${version}, but ${explain(ack)} acknowledged version ${at}`,
        );
    }
    history.set(
      id,
      [...byVersion.values()].map((ack) => stateOfAnswer(personOf(ack) as PersonOut)),
    );

    let state: State | null = null;
    for (let k = 1; k <= version; k++) {
      const audit = audits.get(`${id}:${k}`);
      const ack = byVersion.get(k);
      if (!ack) {
        if (audit?.action === 'enrich') continue;
        state = null;
        if (ambiguousWrites > 0) landedUnacknowledged += 1;
        else
          violations.push(
            `person ${id}: version ${k} is stored (${JSON.stringify(audit)}) but no write of it was acknowledged`,
          );
        continue;
      }
      const answer = personOf(ack) as PersonOut;
      const expectedRequester = ack.kind === 'create' && ack.requester === 0 ? id : ack.requester;
      if (!audit || audit.at !== answer.CoreMetaData.date_modified || audit.requester !== expectedRequester)
        lose(
          ack,
          `person ${id} version ${k}: the audit entry ${JSON.stringify(audit)} is not that of the acknowledged ${explain(ack)}`,
        );
      if (audit && audit.action !== (ack.kind === 'create' ? 'create' : 'update'))
        violations.push(`person ${id} version ${k}: audit action ${audit.action} for ${explain(ack)}`);
      const next = stateOfAnswer(answer);
      const body = writeOf(ack);
      if (ack.kind === 'create') {
        const expected = createdState(body, next);
        if (k !== 1 || !same(expected, next))
          violations.push(
            `${explain(ack)} answered ${show(next)} for what was sent: expected ${show(expected)}`,
          );
      } else if (state) {
        const { expected, problems } = applyWrite(state, body, next);
        for (const problem of problems)
          violations.push(`person ${id} version ${k}: ${problem}: ${explain(ack)}`);
        if (!same(expected, next))
          violations.push(
            `person ${id} version ${k}: ${explain(ack)} answered ${show(next)}, but version ${k - 1} was ${show(state)} and the request makes it ${show(expected)}`,
          );
      }
      const gone = (body.Emails?.['@set'] ?? [])
        .filter(isDelete)
        .map((element) => element.local_reference_id);
      const echoed = tombstonesOf(answer);
      if (gone.some((tag) => typeof tag === 'string' && !echoed.includes(tag)))
        violations.push(`a deleted element's local_reference_id was not echoed: ${explain(ack)}`);
      if (ack.kind === 'create' || state) {
        const before = new Set((state?.emails ?? []).map((item) => normaliseEmail(item.email)));
        const after = new Set(next.emails.map((item) => normaliseEmail(item.email)));
        for (const address of after)
          if (!before.has(address)) addressEvents.push({ address, person: id, held: true, exchange: ack });
        for (const address of before)
          if (!after.has(address)) addressEvents.push({ address, person: id, held: false, exchange: ack });
      }
      state = next;
    }
    const final = stateOfStored(person);
    if (state && !same(state, final))
      violations.push(
        `person ${id}: stored ${show(final)}, but the last acknowledged write made it ${show(state)}`,
      );
    history.get(id)?.push(final);
  }
  for (const id of stored.keys()) {
    if (acksByPerson.has(id)) continue;
    if (ambiguousWrites > 0) landedUnacknowledged += 1;
    else violations.push(`person ${id} is stored but its creation was never acknowledged`);
  }

  if (landedUnacknowledged > ambiguousWrites)
    violations.push(
      `${landedUnacknowledged} stored changes were never acknowledged, but only ${ambiguousWrites} writes went unanswered`,
    );

  // 4. Refused writes left no trace: their tags are in no stored item; tombstones are never stored.
  const strings = storedStrings(items);
  const tagsStored = new Set([...strings].map((text) => text.split('.')[0]));
  for (const exchange of refused)
    if (exchange.tag && tagsStored.has(exchange.tag))
      violations.push(`a refused write left a trace: ${explain(exchange)}`);
  for (const text of strings) if (text.endsWith('.gone')) violations.push(`a tombstone was stored: ${text}`);

  // 5. The refusals were right: the `existing` person held the address (or the name) at some point.
  for (const exchange of refused) {
    const problem = problemOf(exchange);
    if (exchange.status !== 409 || !problem) continue;
    for (const error of problem.errors ?? []) {
      const holder = personIdOfUrl(error.existing);
      if (holder === undefined) continue;
      const claimant = exchange.kind === 'create' ? undefined : targetOf(exchange);
      if (holder === claimant)
        violations.push(`409 names the requesting person itself as existing: ${explain(exchange)}`);
      const states = history.get(holder);
      if (!states) {
        if (!stored.has(holder))
          violations.push(`409 names person ${holder}, who does not exist: ${explain(exchange)}`);
        continue;
      }
      if (ambiguousWrites > 0) continue;
      if (problem.type === '/problems/duplicate-email') {
        const index = Number(/^\/Emails\/@set\/(\d+)\/email$/.exec(error.path)?.[1]);
        const address = writeOf(exchange).Emails?.['@set'][index]?.email;
        if (typeof address !== 'string')
          violations.push(`409 points at ${error.path}, which holds no email: ${explain(exchange)}`);
        else if (
          !states.some((state) =>
            state.emails.some((item) => normaliseEmail(item.email) === normaliseEmail(address)),
          )
        )
          violations.push(`409: person ${holder} never held ${address}: ${explain(exchange)}`);
      } else if (!states.some((state) => state.emails.length === 0)) {
        violations.push(`409 duplicate-name: person ${holder} was never without email: ${explain(exchange)}`);
      }
    }
  }

  // 6. Of two simultaneous adds of one fresh address, exactly one succeeded.
  for (const [first, second] of run.races) {
    if (ambiguous(first) || ambiguous(second)) continue;
    const statuses = [first.status, second.status].sort();
    if (statuses[0] !== 200 || statuses[1] !== 409)
      violations.push(`race: expected one 200 and one 409: ${explain(first)} | ${explain(second)}`);
  }

  // 7. Uniqueness in storage, beyond the claims.
  const holders = new Map<string, number>();
  const emailless = new Map<string, number>();
  for (const person of stored.values()) {
    for (const item of person.Emails) {
      const address = normaliseEmail(item.email ?? '');
      const other = holders.get(address);
      if (other !== undefined) violations.push(`${address} is held by persons ${other} and ${person.id}`);
      holders.set(address, person.id);
    }
    if (person.Emails.length === 0) {
      const name = fold(fullnameOfPerson(person));
      const other = emailless.get(name);
      if (other !== undefined)
        violations.push(`persons ${other} and ${person.id} have no email and one name "${name}"`);
      emailless.set(name, person.id);
    }
    if (claimsOf(person).length === 0) violations.push(`person ${person.id} holds no claim`);
  }
  // Per address, the acknowledged write answered last, when it began after every other one touching
  // that address was answered, is the latest in real time: storage must hold what it made.
  let addressesCheckedInOrder = 0;
  if (ambiguousWrites === 0) {
    const byAddress = new Map<string, typeof addressEvents>();
    for (const event of addressEvents)
      byAddress.set(event.address, [...(byAddress.get(event.address) ?? []), event]);
    for (const [address, events] of byAddress) {
      const ordered = [...events].sort((a, b) => a.exchange.endedAt - b.exchange.endedAt);
      const last = ordered.at(-1);
      if (!last || !ordered.slice(0, -1).every((event) => event.exchange.endedAt < last.exchange.startedAt))
        continue;
      addressesCheckedInOrder += 1;
      const holder = holders.get(address);
      if (last.held ? holder !== last.person : holder !== undefined)
        violations.push(
          `${address}: the latest acknowledged write touching it, ${explain(last.exchange)}, ${last.held ? `gave it to person ${last.person}` : `took it from person ${last.person}`}, but storage gives it to ${holder ?? 'no one'}`,
        );
    }
  }
  const counterPartitions = new Set(PERSON_COUNTER_KEYS.map(({ pk }) => pk));
  const counter = items
    .filter((item) => counterPartitions.has(item.pk as string))
    .reduce((sum, item) => sum + (item.value as number), 0);
  if (counter !== stored.size)
    violations.push(`the person counters say ${counter}, ${stored.size} persons are stored`);

  // 8. The API shows what storage holds: every person by GET, every address by the list, the count.
  const ids = [...stored.keys()];
  const check = async (id: number) => {
    const response = await fetch(`${url}/Person/${id}`, { signal: AbortSignal.timeout(30_000) });
    const person = stored.get(id) as Person;
    if (response.status !== 200) return violations.push(`GET /Person/${id} answered ${response.status}`);
    const answer = (await response.json()) as PersonOut;
    if (
      answer.CoreMetaData.version !== person.CoreMetaData.version ||
      !same(stateOfAnswer(answer), stateOfStored(person))
    )
      violations.push(
        `GET /Person/${id} shows ${show(stateOfAnswer(answer))}, storage holds ${show(stateOfStored(person))}`,
      );
  };
  const addresses = [...run.pool, ...[...holders.keys()].filter(isRaceAddress)];
  const listed = async (address: string) => {
    const response = await fetch(`${url}/Person?email=${encodeURIComponent(address)}&limit=5`, {
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { Pagination?: { count: number }; '@set'?: { id: number }[] };
    const holder = holders.get(address);
    const found = (body['@set'] ?? []).map((stub) => stub.id);
    if (
      response.status !== 200 ||
      JSON.stringify(found) !== JSON.stringify(holder === undefined ? [] : [holder])
    )
      violations.push(
        `GET /Person?email=${address} found ${JSON.stringify(found)}, storage gives it to ${holder ?? 'no one'}`,
      );
  };
  const tasks = [...ids.map((id) => () => check(id)), ...addresses.map((address) => () => listed(address))];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let task = tasks.shift(); task; task = tasks.shift()) await task();
    }),
  );
  const count = (await (await fetch(`${url}/Person?limit=0`)).json()) as { Pagination: { count: number } };
  if (count.Pagination.count !== stored.size)
    violations.push(
      `GET /Person?limit=0 counts ${count.Pagination.count}, ${stored.size} persons are stored`,
    );

  return {
    violations,
    invariantViolations,
    lostAcknowledged,
    lost,
    landedUnacknowledged,
    persons: stored.size,
    acknowledgedWrites: acknowledged.length,
    refusedWrites: refused.length,
    emailsHeld: holders.size,
    addressesCheckedInOrder,
  };
};
