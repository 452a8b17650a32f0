/**
 * The load generator: N concurrent clients issue a mix of operations against a running server,
 * meant to collide. Emails come from a small pool (in case variants, so they clash only after
 * normalising), names from a small pool (in case and accent variants, so email-less persons clash
 * after folding), and patches add, change, delete and move emails between persons. Every request
 * carries a fresh tag in its `local_reference_id`s, so what it wrote can be found, or not, afterwards.
 * Nothing is checked here: verify.ts reasons over the recorded history.
 */
import type { PersonOut } from '../../lib/domain/schemas';
import { type Exchange, personOf, type Random, type Recorder, recorder, seededRandom } from './http';

export type Operation = 'create' | 'add' | 'change' | 'delete' | 'move' | 'race' | 'rename' | 'list' | 'get';

/** Relative weights of the operations: a move is two requests, a race two at once. */
export type Mix = Record<Operation, number>;

export const DEFAULT_MIX: Mix = {
  create: 24,
  add: 14,
  change: 8,
  delete: 10,
  move: 8,
  race: 5,
  rename: 6,
  list: 15,
  get: 10,
};

export interface LoadOptions {
  url: string;
  clients?: number;
  /** Logical operations to start (a move or a race counts once). */
  operations?: number;
  seed?: number;
  mix?: Mix;
  /** A request without an answer after this long counts as a hang. */
  timeoutMs?: number;
  /** Addresses in the email pool; by default one per 10 operations, at least 24. */
  poolSize?: number;
  /** Checked before each operation: the crash burst stops on a condition, not on a count. */
  shouldStop?: () => boolean;
  /** Called with every answer as it arrives. */
  onExchange?: (exchange: Exchange) => void;
  /** Persons that exist before the run, to patch from the first operation on. */
  knownPersons?: PersonOut[];
  /** The email pool of an earlier run on the same data, to collide with what it left. */
  pool?: string[];
  /** The recorder to send through, when the caller needs its clock. */
  http?: Recorder;
}

/** Two PATCHes that added one fresh address to two persons at the same moment. */
export type Race = [Exchange, Exchange];

export interface LoadRun {
  runId: string;
  seed: number;
  clients: number;
  /** Logical operations started. */
  operations: number;
  wallMs: number;
  exchanges: Exchange[];
  /** The email pool, in canonical (lower-case) form. */
  pool: string[];
  races: Race[];
}

const FIRST_NAMES = ['Ann', 'ANN', 'José', 'Jose', 'Li', 'Zoë', 'Zoe', 'Åsa', 'Asa'];
const LAST_NAMES = ['Smith', 'SMITH', 'Müller', 'Muller', 'García', 'Garcia', 'Ng', 'Østby', 'Ostby'];
/** Targets stay well below the 50 Emails a person may hold, so a limit never refuses a load write. */
const MAX_EMAILS_TARGETED = 30;

type LiveItem = { id: number; email?: string | null; local_reference_id: string | null };

/** The live items of a set in a response: no example object (id null), no tombstone (no person_fk). */
export const liveItems = <T extends { '@set': unknown[] }>(set: T): (LiveItem & Record<string, unknown>)[] =>
  (set['@set'] as (LiveItem & Record<string, unknown>)[]).filter(
    (item) => typeof item.id === 'number' && 'person_fk' in item,
  );

/** One address in a random case variant: uniqueness must see through it. */
const variant = (random: Random, address: string) => {
  const [local, domain] = address.split('@') as [string, string];
  switch (random.int(3)) {
    case 0:
      return address;
    case 1:
      return `${local}@${domain.toUpperCase()}`;
    default:
      return address.toUpperCase();
  }
};

export const isRaceAddress = (email: string) => /\.race\d+@/i.test(email);

export const runLoad = async ({
  url,
  clients = 32,
  operations = 3_000,
  seed = Date.now() % 2 ** 31,
  mix = DEFAULT_MIX,
  timeoutMs = 30_000,
  poolSize = Math.max(24, Math.round(operations / 10)),
  shouldStop = () => false,
  onExchange,
  knownPersons = [],
  pool: givenPool,
  http = recorder(url, { timeoutMs }),
}: LoadOptions): Promise<LoadRun> => {
  const runId = `l${seed.toString(36)}${seededRandom(seed ^ 0x5bd1e995)
    .int(36 ** 3)
    .toString(36)}`;
  const pool =
    givenPool ??
    Array.from({ length: poolSize }, (_, n) => `${runId}.e${String(n).padStart(5, '0')}@load.test`);
  const races: Race[] = [];
  let tags = 0;
  let raceAddresses = 0;
  const nextTag = () => `${runId}-${String(tags++).padStart(6, '0')}`;

  /** The newest answer seen per person: what the clients pick their targets from. */
  const known = new Map<number, PersonOut>();
  const ids: number[] = [];
  const remember = (exchange: Exchange) => {
    onExchange?.(exchange);
    const person = personOf(exchange);
    if (!person || typeof person.id !== 'number' || !person.CoreMetaData) return;
    const seen = known.get(person.id);
    if (!seen) ids.push(person.id);
    if (!seen || seen.CoreMetaData.version <= person.CoreMetaData.version) known.set(person.id, person);
  };
  for (const person of knownPersons) {
    known.set(person.id, person);
    ids.push(person.id);
  }
  const send: Recorder['send'] = async (...args) => {
    const exchange = await http.send(...args);
    remember(exchange);
    return exchange;
  };

  const weights = Object.entries(mix) as [Operation, number][];
  const totalWeight = weights.reduce((sum, [, weight]) => sum + weight, 0);
  const chooseOperation = (random: Random): Operation => {
    let roll = random.next() * totalWeight;
    for (const [operation, weight] of weights) {
      roll -= weight;
      if (roll < 0) return operation;
    }
    return 'create';
  };

  const pickPerson = (random: Random, accept: (person: PersonOut) => boolean = () => true) => {
    for (let attempt = 0; attempt < 8 && ids.length > 0; attempt++) {
      const person = known.get(random.pick(ids));
      if (person && accept(person)) return person;
    }
    return undefined;
  };
  const movableEmails = (person: PersonOut) =>
    liveItems(person.Emails).filter((item) => !isRaceAddress(String(item.email)));
  const roomForEmails = (person: PersonOut) => liveItems(person.Emails).length < MAX_EMAILS_TARGETED;
  const requesterFor = (random: Random, target: number) =>
    random.chance(0.5) || ids.length === 0 ? target : random.pick(ids);

  const addEmail = (
    random: Random,
    kind: 'add' | 'move-take' | 'race',
    target: PersonOut,
    address: string,
  ) => {
    const tag = nextTag();
    return send(kind, 'PATCH', `/Person/${target.id}`, {
      tag,
      requester: requesterFor(random, target.id),
      body: {
        local_reference_id: tag,
        Emails: {
          '@type': 'Emails',
          '@set': [{ '@type': 'Email', email: address, local_reference_id: `${tag}.e0` }],
        },
      },
    });
  };
  const deleteEmail = (
    random: Random,
    kind: 'delete' | 'move-release',
    target: PersonOut,
    itemId: number,
  ) => {
    const tag = nextTag();
    return send(kind, 'PATCH', `/Person/${target.id}`, {
      tag,
      requester: requesterFor(random, target.id),
      body: {
        local_reference_id: tag,
        Emails: { '@set': [{ '@type': 'Email', id: itemId, local_reference_id: `${tag}.gone` }] },
      },
    });
  };

  const create = (random: Random) => {
    const tag = nextTag();
    const emails = random.chance(0.75)
      ? Array.from({ length: random.chance(0.2) ? 2 : 1 }, () => variant(random, random.pick(pool)))
      : [];
    const body = {
      '@type': 'Person',
      local_reference_id: tag,
      Names: {
        '@type': 'Names',
        '@set': [
          {
            '@type': 'Name',
            first_name: random.pick(FIRST_NAMES),
            last_name: random.pick(LAST_NAMES),
            local_reference_id: `${tag}.n0`,
          },
        ],
      },
      ...(emails.length > 0
        ? {
            Emails: {
              '@type': 'Emails',
              '@set': emails.map((email, index) => ({
                '@type': 'Email',
                email,
                local_reference_id: `${tag}.e${index}`,
              })),
            },
          }
        : {}),
    };
    const requester = ids.length > 0 && random.chance(0.4) ? random.pick(ids) : 0;
    return send('create', 'POST', '/Person', { body, requester, tag });
  };

  const operationsOf: Record<Operation, (random: Random) => Promise<unknown>> = {
    create,
    add: async (random) => {
      const target = pickPerson(random, roomForEmails);
      if (!target) return create(random);
      return addEmail(random, 'add', target, variant(random, random.pick(pool)));
    },
    change: async (random) => {
      const target = pickPerson(random, (person) => movableEmails(person).length > 0);
      if (!target) return create(random);
      const item = random.pick(movableEmails(target));
      const tag = nextTag();
      return send('change', 'PATCH', `/Person/${target.id}`, {
        tag,
        requester: requesterFor(random, target.id),
        body: {
          local_reference_id: tag,
          Emails: {
            '@set': [
              { id: item.id, email: variant(random, random.pick(pool)), local_reference_id: `${tag}.e0` },
            ],
          },
        },
      });
    },
    delete: async (random) => {
      const target = pickPerson(random, (person) => movableEmails(person).length > 0);
      if (!target) return create(random);
      return deleteEmail(random, 'delete', target, random.pick(movableEmails(target)).id);
    },
    move: async (random) => {
      const from = pickPerson(random, (person) => movableEmails(person).length > 0);
      const to = pickPerson(random, (person) => person.id !== from?.id && roomForEmails(person));
      if (!from || !to) return create(random);
      const item = random.pick(movableEmails(from));
      const released = await deleteEmail(random, 'move-release', from, item.id);
      if (released.status !== 200) return released;
      return addEmail(random, 'move-take', to, variant(random, String(item.email).toLowerCase()));
    },
    race: async (random) => {
      const first = pickPerson(random, roomForEmails);
      const second = pickPerson(random, (person) => person.id !== first?.id && roomForEmails(person));
      if (!first || !second) return create(random);
      const address = `${runId}.race${raceAddresses++}@load.test`;
      const pair = await Promise.all([
        addEmail(random, 'race', first, address),
        addEmail(random, 'race', second, variant(random, address)),
      ]);
      races.push(pair);
      return pair;
    },
    rename: async (random) => {
      const target = pickPerson(random);
      const name = target && liveItems(target.Names).find((item) => item.primary === true);
      if (!target || !name) return create(random);
      const tag = nextTag();
      return send('rename', 'PATCH', `/Person/${target.id}`, {
        tag,
        requester: requesterFor(random, target.id),
        body: {
          local_reference_id: tag,
          Names: { '@set': [{ id: name.id, last_name: random.pick(LAST_NAMES) }] },
        },
      });
    },
    list: (random) => {
      const queries = [
        () => `email=${encodeURIComponent(random.pick(pool))}`,
        () =>
          `search=${encodeURIComponent(random.pick(LAST_NAMES))}&limit=${random.int(30)}&offset=${random.int(20)}`,
        () => `last_name=${encodeURIComponent(random.pick(LAST_NAMES))}&sort_dir=0`,
        () =>
          `first_name=${encodeURIComponent(random.pick(FIRST_NAMES))}&page=${1 + random.int(3)}&perPage=${1 + random.int(25)}`,
        () => `limit=${random.int(60)}&offset=${random.int(100)}`,
        () => 'limit=0',
      ];
      return send('list', 'GET', `/Person?${random.pick(queries)()}`);
    },
    get: async (random) => {
      const target = pickPerson(random);
      if (!target) return create(random);
      return send('get', 'GET', `/Person/${target.id}`);
    },
  };

  let started = 0;
  const startedAt = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      const random = seededRandom(seed + 7_919 * (index + 1));
      while (started < operations && !shouldStop()) {
        started += 1;
        await operationsOf[chooseOperation(random)](random);
      }
    }),
  );
  return {
    runId,
    seed,
    clients,
    operations: started,
    wallMs: performance.now() - startedAt,
    exchanges: http.exchanges,
    pool,
    races,
  };
};
