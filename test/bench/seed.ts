/**
 * Persons straight into a table through BatchWriteItem, built by the same code a create uses
 * (`applyPatch`, then `toPersonItem` with its `byName` index attributes and `postingItemsOf`, the
 * search postings a create writes in its transaction), and counted in the
 * person counters (each person in its id's shard, as a create counts it) that the list sums. Ids come
 * from the id counter, as a container's block would. No claims and no audit entries are written: listing reads neither.
 */
import { BatchWriteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { toPersonItem } from '../../lib/db/person/person-items';
import { addPostingCounts } from '../../lib/db/search/posting-counts';
import { postingItemsOf } from '../../lib/db/search/postings';
import type { Storage } from '../../lib/db/table/client';
import {
  gramOfPostingKey,
  idCounterKey,
  type Key,
  PERSON_LIST_INDEX,
  PERSON_LIST_PARTITIONS,
  personCounterKey,
} from '../../lib/db/table/keys';
import { counterUpdate } from '../../lib/db/write/actions';
import { applyPatch, countNewIds } from '../../lib/domain/patch';
import { NO_ABBREVIATIONS, type Person } from '../../lib/domain/person';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { fold } from '../../lib/domain/text';
import { itemSize } from './capacity';

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

/** Persons built at a time by one worker; their items go out 25 to a BatchWriteItem. */
const BATCH = 25;

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
  /**
   * Adds the seeded postings to the posting counts as the stream's count-postings would (the bench's
   * tables have no stream); their lists read the counts once the table is marked (createBenchTable).
   */
  countPostings?: boolean;
}

/** Seeds `count` persons and returns their ids, in seeding order. */
export const seedPersons = async (
  storage: Storage,
  { from, count, concurrency = 8, progress, seeded, countPostings = false }: SeedOptions,
): Promise<number[]> => {
  if (count <= 0) return [];
  const { client, tableName } = storage;
  const idsEach = countNewIds(CreatePersonBody.parse(seedBody(from)), true);
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: idCounterKey,
      UpdateExpression: 'ADD #value :size',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':size': count * idsEach },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  let nextId = (Attributes?.value as number) - count * idsEach + 1;
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
        const body = CreatePersonBody.parse(seedBody(from + n));
        const first = nextId;
        nextId += idsEach;
        let id = first;
        const { person } = applyPatch(null, body, {
          requester: 0,
          now,
          nextId: () => id++,
          changeId: 0,
          abbreviations: NO_ABBREVIATIONS,
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
