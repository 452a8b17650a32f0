/**
 * Persons straight into a table through BatchWriteItem, built by the same code a create uses
 * (`applyPatch`, then `toPersonItem` with its `byName` index attributes and `postingItemsOf`, the
 * search postings a create writes in its transaction), and counted in the
 * person counters (each person in its id's shard, as a create counts it) that the list sums. Ids come
 * from the id counter, as a container's block would. No audit entries are written, and claims only
 * for the persons a caller picks (`claimed`): listing reads neither, and reconciliation reads the
 * email claims of the persons it is asked about by email only.
 */

import { BatchWriteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import { toPersonItem } from '../../lib/db/person/person-items';
import { addPostingCounts } from '../../lib/db/person/read/posting-counts';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import type { Storage } from '../../lib/db/table/client';
import { itemSize } from '../../lib/db/table/item-size';
import {
  gramOfPostingKey,
  idCounterKey,
  type Key,
  PERSON_LIST_INDEX,
  PERSON_LIST_PARTITIONS,
  personCounterKey,
} from '../../lib/db/table/keys';
import { claimActions, counterUpdate } from '../../lib/db/write/actions';
import { applyPatch, type ClaimToTake, countNewIds } from '../../lib/domain/patch';
import { type Abbreviations, PERSON_TYPE, type Person } from '../../lib/domain/person';
import type { ReconcileQuery } from '../../lib/domain/reconcile';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { fold } from '../../lib/domain/text';

// biome-ignore format: a list of names
const FIRST_NAMES = [
  'Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Radia', 'Ken', 'Dennis',
  'Margaret', 'Tim', 'Vint', 'Leslie', 'Niklaus', 'Hedy', 'Katherine', 'Sophie', 'Linus', 'Guido',
  'Bjarne', 'James', 'Anita', 'Shafi', 'Silvio', 'Tony', 'Robin', 'Judea', 'Fran', 'Jean', 'Karen',
  'Mary', 'Annie', 'Evelyn', 'Joan', 'Ivan', 'Peter', 'Yukihiro', 'Brendan',
];

/**
 * Surnames whose rare-looking grams are common (issue #36): by English letter frequency `wsk`, `vic`,
 * `ogl` and `sso` look rare, but in a directory of Polish, Serbian, Turkish and Swedish names each is
 * held by a whole family of names, while a common-looking gram of the same fragment (`low` of
 * `lowski`) is held by few. A reader that ranks grams by their letters reads the wrong one whole.
 */
// biome-ignore format: a list of names
const MISLEADING_LAST_NAMES = [
  'Nowakowski', 'Lewandowski', 'Wiśniewski', 'Dąbrowski', 'Kozłowski', 'Jankowski', 'Wojciechowski',
  'Kwiatkowski', 'Piotrowski', 'Grabowski', 'Pawłowski', 'Michałowski', 'Zalewski', 'Kowalewski',
  'Petrović', 'Jovanović', 'Marković', 'Đorđević', 'Stojanović', 'Popović', 'Živković', 'Janković',
  'Pavlović', 'Milosavljević', 'Karaoğlu', 'Hacıoğlu', 'Kocaoğlu', 'Eminoğlu', 'Osmanoğlu', 'Ahmetoğlu',
  'Yılmazoğlu', 'Kemaloğlu', 'Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson',
  'Olsson', 'Persson', 'Svensson', 'Gustafsson', 'Jansson', 'Hansson',
];

// biome-ignore format: a list of names
const LAST_NAMES = [
  'Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'McCarthy', 'Perlman',
  'Thompson', 'Ritchie', 'Hamilton', 'Berners-Lee', 'Cerf', 'Lamport', 'Wirth', 'Lamarr', 'Johnson',
  'Wilson', 'Torvalds', 'van Rossum', 'Stroustrup', 'Gosling', 'Borg', 'Goldwasser', 'Micali', 'Hoare',
  'Milner', 'Pearl', 'Bartik', 'Sammet', 'Jones', 'Easley', 'Clarke', 'Sutherland', 'Naur', 'Backus',
  'Kay', 'Engelbart', 'Shannon', 'Boole', 'Babbage', 'Noether', 'Hilbert', 'Godel', 'Church', 'Kleene',
  'Codd', 'Gray', 'Stonebraker', 'Bachman', 'Chen', 'Kahn', 'Metcalfe', 'Baran', 'Davies', 'Kleinrock',
  'Postel', 'Floyd', 'Tarjan', 'Hopcroft', 'Karp', 'Cook', 'Levin', 'Rabin', 'Scott', 'Blum', 'Yao',
  'Valiant', 'Wigderson', 'Sipser', 'Aho', 'Ullman', 'Kernighan', 'Pike', 'Bell', 'Mauchly', 'Eckert',
  'Zuse', 'Wilkes', 'Kilburn', 'Williams', 'Aiken', 'Atanasoff', 'Berry', 'Cray', 'Amdahl', 'Brooks',
  'Parnas', 'Meyer', 'Wadler', 'Hughes', 'Peyton', 'Steele', 'Sussman', 'Abelson', 'Felleisen', 'Hickey',
  ...MISLEADING_LAST_NAMES,
];

/** One person in five is called this: a filter that matches 20% of the table. */
export const COMMON_FIRST_NAME = 'Maria';
/** One person in a thousand has this last name: a filter that matches 0.1% of the table. */
export const RARE_LAST_NAME = 'Quillfeather';
/** The scale queries of those two names (the thresholds of issue #27 name them). */
export const COMMON_QUERY = 'common first_name (20%)';
export const RARE_QUERY = 'rare last_name (0.1%)';

/** Exactly 10 persons have this last name once 1 000 are seeded, however many follow. */
export const PLANTED_LAST_NAME = 'Zyzzyva';
/** The scale query of the bar of issue #26: that fragment, on 10 persons at every size. */
export const PLANTED_QUERY = 'planted on 10 persons';
const isPlanted = (n: number) => n < 1_000 && n % 100 === 37;

/**
 * The filters of the probe bar (issue #36), on the names above: for each, the bench compares the
 * postings the list read with those of the fragment's rarest gram in the data it seeded.
 */
export const MISLEADING_QUERIES: { query: string; parameters: Record<string, string> }[] = [
  { query: 'last_name lowski', parameters: { last_name: 'lowski' } },
  { query: 'last_name owski', parameters: { last_name: 'owski' } },
  { query: 'last_name rkovic', parameters: { last_name: 'rković' } },
  { query: 'last_name ovic', parameters: { last_name: 'ović' } },
  { query: 'last_name oglu', parameters: { last_name: 'oğlu' } },
  { query: 'last_name ansson', parameters: { last_name: 'ansson' } },
  { query: 'first_name mari, last_name owski', parameters: { first_name: 'mari', last_name: 'owski' } },
  { query: 'email -1234@', parameters: { email: '-1234@' } },
];

if (
  FIRST_NAMES.some((name) => fold(name).includes(fold(COMMON_FIRST_NAME))) ||
  LAST_NAMES.some((name) =>
    [RARE_LAST_NAME, PLANTED_LAST_NAME].some((rare) => fold(name).includes(fold(rare))),
  )
)
  throw new Error('A filler name contains a filter value: the match rates would be wrong');

/** A deterministic spread over the lists, so the index order is not the id order. */
const pick = <T>(list: readonly T[], n: number, salt: number) =>
  list[(Math.imul(n + salt, 2654435761) >>> 0) % list.length] as T;

/** The wire body of the n-th seeded person (0-based across every batch seeded into a table). */
export const seedBody = (n: number) => ({
  Names: {
    '@set': [
      {
        first_name: n % 5 === 0 ? COMMON_FIRST_NAME : pick(FIRST_NAMES, n, 7),
        last_name:
          n % 1000 === 500 ? RARE_LAST_NAME : isPlanted(n) ? PLANTED_LAST_NAME : pick(LAST_NAMES, n, 13),
      },
    ],
  },
  Emails: { '@set': [{ email: `seed-${n}@bench.example.org` }] },
});

/** The n-th seeded person as a spreadsheet row would give them: first and last name, email. */
const rowOf = (n: number) => {
  const { Names, Emails } = seedBody(n);
  const [{ first_name: first, last_name: last }] = Names['@set'] as [
    { first_name: string; last_name: string },
  ];
  const [{ email }] = Emails['@set'] as [{ email: string }];
  return { first, last, fullname: `${first} ${last}`, email };
};

/** A reconciliation query of the scale section (issue #37), and the seeded person it is about. */
export interface ReconcileBenchQuery {
  query: string;
  /** The index of the seeded person the row is about (who should come first), if any. */
  about?: number;
  request: ReconcileQuery;
}

/** The two queries whose answers the bench asserts: a wrong answer's cost is not worth measuring. */
export const RECONCILE_EMAIL_QUERY = 'exact name and email';
export const RECONCILE_ABSENT_QUERY = 'a person not in the store';
/** A name no seeded person has: neither word is in the name lists. */
const ABSENT = { first: 'Edith', last: 'Lovelock' };

/** What OpenRefine sends when the column is reconciled against the service's one type. */
const PERSON = { type: 'Person' } as const;

/**
 * A batch of 10 as OpenRefine sends one, each row about a seeded person under 100 (seeded first at
 * every size, the quick test's 100 too) but the rare name and the absent person: the kinds of row a
 * spreadsheet holds, from the cheapest (an email) to the dearest (a misspelt name reads its words').
 */
export const RECONCILE_QUERIES: ReconcileBenchQuery[] = [
  {
    query: RECONCILE_EMAIL_QUERY,
    about: 16,
    request: { query: rowOf(16).fullname, ...PERSON, properties: [{ pid: 'email', v: rowOf(16).email }] },
  },
  { query: 'exact name', about: 38, request: { query: rowOf(38).fullname, ...PERSON } },
  {
    query: 'misspelt name (a letter dropped)',
    about: 81,
    request: { query: rowOf(81).fullname.replace('Engelbart', 'Engebart'), ...PERSON },
  },
  {
    query: '"Last, First"',
    about: 19,
    request: { query: `${rowOf(19).last}, ${rowOf(19).first}`, ...PERSON },
  },
  {
    query: 'accents dropped',
    about: 49,
    request: { query: rowOf(49).fullname.normalize('NFD').replace(/\p{M}/gu, ''), ...PERSON },
  },
  {
    query: 'first_name and last_name properties',
    about: 33,
    request: {
      query: rowOf(33).fullname,
      ...PERSON,
      properties: [
        { pid: 'first_name', v: rowOf(33).first },
        { pid: 'last_name', v: rowOf(33).last },
      ],
    },
  },
  {
    query: `planted ${PLANTED_LAST_NAME} by full name`,
    about: 37,
    request: { query: rowOf(37).fullname, ...PERSON },
  },
  { query: `rare last name alone (${RARE_LAST_NAME})`, request: { query: RARE_LAST_NAME, ...PERSON } },
  {
    query: `common first name (${rowOf(10).fullname})`,
    about: 10,
    request: { query: rowOf(10).fullname, ...PERSON },
  },
  {
    query: RECONCILE_ABSENT_QUERY,
    request: {
      query: `${ABSENT.first} ${ABSENT.last}`,
      ...PERSON,
      properties: [{ pid: 'email', v: 'edith.lovelock@elsewhere.example.org' }],
    },
  },
];

/** The persons reconciled by email: the seeding writes their email claims, as their create would. */
export const RECONCILE_CLAIMED: ReadonlySet<number> = new Set(
  RECONCILE_QUERIES.flatMap(({ about, request }) =>
    about !== undefined && request.properties?.some(({ pid }) => pid === 'email') ? [about] : [],
  ),
);

// The rows are what their names say, whatever the name lists become.
if (
  !rowOf(81).last.includes('Engelbart') ||
  fold(rowOf(49).last) === rowOf(49).last.toLowerCase() ||
  !isPlanted(37) ||
  rowOf(10).first !== COMMON_FIRST_NAME ||
  FIRST_NAMES.includes(ABSENT.first) ||
  LAST_NAMES.includes(ABSENT.last)
)
  throw new Error('A reconciliation query no longer finds the seeded person its row is about');

/** Persons built at a time by one worker; their items go out 25 to a BatchWriteItem. */
const BATCH = 25;

/**
 * The claim items a create of the person puts (claimActions': their key, field, value and owner),
 * without the create's condition: the seeding writes each person once, into a table holding no claim.
 */
const claimItemsOf = (tableName: string, personId: number, take: readonly ClaimToTake[]) =>
  claimActions(tableName, { type: PERSON_TYPE, id: personId }, take, []).flatMap(([action]) =>
    action.Put?.Item ? [action.Put.Item] : [],
  );

const writeBatch = async ({ client, tableName }: Storage, items: readonly object[]) => {
  let pending: Record<string, unknown>[] = items.map((Item) => ({ PutRequest: { Item } }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(500, 20 * 2 ** attempt)));
    const { UnprocessedItems } = await client.send(
      new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }),
    );
    pending = (UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
  }
};

export interface SeedOptions {
  /** Index of the first person to seed (names and emails follow it). */
  from: number;
  count: number;
  concurrency?: number;
  /** After each batch: persons seeded so far, and items written (persons and postings). */
  progress?: (done: number, written: number) => void;
  /** Each person as it is stored (the bench counts its grams' postings). */
  seeded?: (person: Person) => void;
  /** Whether the n-th person's claims are written too, as its create would take them (none by default). */
  claimed?: (n: number) => boolean;
  /**
   * Adds the seeded postings to the posting counts as the stream's count-postings would (the bench's
   * tables have no stream); their lists read the counts once the table is marked (createBenchTable).
   */
  countPostings?: boolean;
  /** The wire body of the n-th person, instead of `seedBody` (the matching set's persons). */
  bodyOf?: (n: number) => unknown;
}

/** The abbreviations of the vocabulary a new table holds: a seeded Name may point at its entries (Jr., Dr.). */
const SEEDED_ABBREVIATIONS: Abbreviations = {
  NamePrefix: new Map(SEEDED_VOCABULARY.NamePrefix.map(({ id, abbreviation }) => [id, abbreviation])),
  NameSuffix: new Map(SEEDED_VOCABULARY.NameSuffix.map(({ id, abbreviation }) => [id, abbreviation])),
};

/** Seeds `count` persons and returns their ids, in seeding order. */
export const seedPersons = async (
  storage: Storage,
  {
    from,
    count,
    concurrency = 8,
    progress,
    seeded,
    claimed,
    countPostings = false,
    bodyOf = seedBody,
  }: SeedOptions,
): Promise<number[]> => {
  if (count <= 0) return [];
  const { client, tableName } = storage;
  const bodyAt = (n: number) => CreatePersonBody.parse(bodyOf(from + n));
  // Every `seedBody` needs the ids of the first; other bodies are counted one by one (they are few).
  const size =
    bodyOf === seedBody
      ? count * countNewIds(bodyAt(0), true)
      : Array.from({ length: count }, (_, n) => countNewIds(bodyAt(n), true)).reduce((a, b) => a + b, 0);
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: idCounterKey,
      UpdateExpression: 'ADD #value :size',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':size': size },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  let nextId = (Attributes?.value as number) - size + 1;
  const now = new Date().toISOString();
  const ids: number[] = [];
  let next = 0;
  let done = 0;
  let written = 0;
  /** Persons per person counter shard, added to each counter once at the end. */
  const shardCounts = new Map<string, { key: Key; count: number }>();
  /** Postings per gram, added to the posting counts once at the end. */
  const gramCounts = new Map<string, number>();
  const worker = async () => {
    while (next < count) {
      const start = next;
      const end = Math.min(count, next + BATCH);
      next = end;
      const items: object[] = [];
      for (let n = start; n < end; n++) {
        const body = bodyAt(n);
        const first = nextId;
        nextId += countNewIds(body, true);
        let id = first;
        const { person, take } = applyPatch(null, body, {
          requester: 0,
          now,
          nextId: () => id++,
          changeId: 0,
          abbreviations: SEEDED_ABBREVIATIONS,
        });
        ids[n] = first;
        seeded?.(person);
        const postings = postingItemsOf(person);
        if (countPostings)
          for (const posting of postings) {
            const gram = gramOfPostingKey(posting) as string;
            gramCounts.set(gram, (gramCounts.get(gram) ?? 0) + 1);
          }
        items.push(toPersonItem(person), ...postings);
        if (claimed?.(from + n)) items.push(...claimItemsOf(tableName, person.id, take));
        const shard = personCounterKey(person.id);
        shardCounts.set(shard.pk, { key: shard, count: (shardCounts.get(shard.pk)?.count ?? 0) + 1 });
      }
      for (let at = 0; at < items.length; at += BATCH) await writeBatch(storage, items.slice(at, at + BATCH));
      done += end - start;
      written += items.length;
      progress?.(done, written);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const { key, count: added } of shardCounts.values())
    await client.send(new UpdateCommand(counterUpdate(tableName, key, added)));
  await addPostingCounts(storage, gramCounts);
  return ids;
};

/** The average size of an entry of the `byName` index: keys plus projected attributes. */
export const averageIndexEntryBytes = async ({ client, tableName }: Storage, sample = 2_000) => {
  const { Items = [] } = await client.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: PERSON_LIST_INDEX,
      KeyConditionExpression: 'listPk = :partition',
      ExpressionAttributeValues: { ':partition': PERSON_LIST_PARTITIONS[0] },
      Limit: sample,
    }),
  );
  if (Items.length === 0) return 0;
  return Items.reduce((sum, item) => sum + itemSize(item), 0) / Items.length;
};
