/**
 * The invariant checker: scans a table and reports every way its claims and persons disagree. Run at
 * the end of every integration file; an empty list means the uniqueness rules hold in storage.
 */
import { isDeepStrictEqual } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { decodeSnapshot } from '../../lib/db/history/snapshots';
import { MERGED_FROM_TYPE } from '../../lib/db/person/merged-from';
import { fromPersonItem } from '../../lib/db/person/person-items';
import { localReferenceItemOf, mergedReferenceItem } from '../../lib/db/person/write/local-references';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import {
  LOCAL_REFERENCE_PREFIX,
  mergedFromKey,
  PERSON_COUNTER_KEYS,
  personKey,
} from '../../lib/db/table/keys';
import { claimsOf, type Person } from '../../lib/domain/person';
import { abbreviationClaim, type VocabularyKind } from '../../lib/domain/vocabulary';
import type { TestTable } from './dynamo';

export type Item = Record<string, unknown>;

export const scanAll = async ({ client, tableName }: TestTable): Promise<Item[]> => {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/**
 * Every stored item but the id counter, in key order: what "a refused request changes nothing" is
 * checked against. Ids a refused request reserved are not handed out again; that is not a change.
 */
export const snapshot = async (table: TestTable): Promise<Item[]> =>
  (await scanAll(table))
    .filter((item) => item.pk !== 'COUNTER#ids')
    .sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));

/** An item as lowercase text, its ChangeHistory snapshot opened: what a scan of the table for a value reads. */
export const textOf = (item: Item) =>
  JSON.stringify({
    ...item,
    snapshot: item.snapshot ? decodeSnapshot(item.snapshot as Uint8Array) : undefined,
  }).toLowerCase();

export const checkInvariants = async (table: TestTable): Promise<string[]> => {
  const items = await scanAll(table);
  const persons = new Map(
    items.filter((item) => item.type === 'Person').map((item) => [item.id as number, fromPersonItem(item)]),
  );
  const personClaim = (item: Item) => item.field === 'email' || item.field === 'name';
  const claims = new Map(
    items
      .filter((item) => item.type === 'Claim' && personClaim(item))
      .map((item) => [`${item.field}:${item.value}`, item.personId as number]),
  );
  const history = items.filter((item) => item.type === 'ChangeHistory');
  const entriesOf = (endpoint: string, id: number) =>
    history.filter((entry) => entry.endpoint === endpoint && entry.object_id === id).length;
  const problems: string[] = [];

  // Vocabulary entries: one abbreviation claim each, naming the entry, and one history entry per version.
  const entries = items.filter((item) => item.type === 'NamePrefix' || item.type === 'NameSuffix');
  const abbreviationClaims = new Map(
    items
      .filter((item) => item.type === 'Claim' && !personClaim(item))
      .map((item) => [`${item.field}:${item.value}`, item.entryId as number]),
  );
  for (const entry of entries) {
    const key = `${entry.type}:${abbreviationClaim(entry.type as VocabularyKind, entry.abbreviation as string).value}`;
    if (abbreviationClaims.get(key) !== entry.id)
      problems.push(`${entry.type} ${entry.id} does not hold claim ${key}`);
    abbreviationClaims.delete(key);
    const version = (entry.CoreMetaData as { version: number }).version;
    const count = entriesOf(entry.type as string, entry.id as number);
    if (count !== version)
      problems.push(`${entry.type} ${entry.id} is at version ${version} with ${count} entries`);
  }
  for (const key of abbreviationClaims.keys())
    problems.push(`abbreviation claim ${key} names no entry holding it`);

  // The change counters count every ChangeHistory entry exactly once.
  const counted = items
    .filter((item) => String(item.pk).startsWith('COUNTER#changes#'))
    .reduce((sum, item) => sum + (item.value as number), 0);
  if (counted !== history.length)
    problems.push(`the change counters say ${counted}, there are ${history.length} entries`);

  // The person counters (the shards and the one of tables written before them) count every person.
  const counters = new Set(PERSON_COUNTER_KEYS.map(({ pk }) => pk));
  const personCount = items
    .filter((item) => counters.has(item.pk as string))
    .reduce((sum, item) => sum + (item.value as number), 0);
  if (personCount !== persons.size)
    problems.push(`the person counters say ${personCount}, there are ${persons.size} persons`);

  for (const [key, personId] of claims) {
    const person = persons.get(personId);
    if (!person) problems.push(`claim ${key} points at missing person ${personId}`);
    else if (!claimsOf(person).some((claim) => `${claim.field}:${claim.value}` === key))
      problems.push(`claim ${key} points at person ${personId}, who does not hold it`);
  }
  for (const person of persons.values()) {
    for (const claim of claimsOf(person)) {
      const holder = claims.get(`${claim.field}:${claim.value}`);
      if (holder !== person.id)
        problems.push(
          `person ${person.id} holds ${claim.field} ${claim.value} but the claim is ${holder ?? 'missing'}`,
        );
    }
    const versions = entriesOf('Person', person.id);
    if (versions !== person.CoreMetaData.version)
      problems.push(
        `person ${person.id} is at version ${person.CoreMetaData.version} with ${versions} ChangeHistory entries`,
      );
  }
  // Merged persons (API.md 13): one history entry per version, a survivor that is stored; no claim,
  // posting or reference item names them (the checks above and below count only live persons).
  const stored = new Set(items.filter((item) => item.sk === 'PERSON').map((item) => item.id));
  for (const merged of items.filter((item) => item.type === 'MergedPerson')) {
    const { id, superceded_by, CoreMetaData } = merged as {
      id: number;
      superceded_by: number;
      CoreMetaData: { version: number };
    };
    if (!stored.has(superceded_by))
      problems.push(`merged person ${id} names missing survivor ${superceded_by}`);
    const versions = entriesOf('Person', id);
    if (versions !== CoreMetaData.version)
      problems.push(
        `merged person ${id} is at version ${CoreMetaData.version} with ${versions} ChangeHistory entries`,
      );
  }
  problems.push(...mergedFromProblems(items));
  // Erased persons (API.md 15): one history entry per version, and no binding left on either side; no
  // claim, posting or reference item names them (the checks above and below count only live persons).
  for (const erased of items.filter((item) => item.type === 'ErasedPerson')) {
    const { id, CoreMetaData } = erased as { id: number; CoreMetaData: { version: number } };
    const versions = entriesOf('Person', id);
    if (versions !== CoreMetaData.version)
      problems.push(`erased person ${id} is at version ${CoreMetaData.version} with ${versions} entries`);
    if (items.some((item) => item.pk === erased.pk && item.type === 'PersonPrincipal'))
      problems.push(`erased person ${id} is still bound`);
    if (items.some((item) => item.type === 'Binding' && item.personId === id))
      problems.push(`a principal is still bound to erased person ${id}`);
  }
  problems.push(...postingProblems(items, persons));
  problems.push(...localReferenceProblems(items, persons));
  problems.push(...mergedReferenceProblems(items));
  return problems;
};

/**
 * Every merged person's survivor holds its link to it (lib/db/person/merged-from.ts), and every link
 * names a person merged into the survivor whose partition holds it. The survivor may have been merged
 * since (a chain) or erased (API.md 15): its links stay.
 */
export const mergedFromProblems = (items: Item[]): string[] => {
  const keyOf = (item: { pk?: unknown; sk?: unknown }) => `${item.pk} ${item.sk}`;
  const byKey = new Map(items.map((item) => [keyOf(item), item]));
  const links = items.filter((item) => item.type === MERGED_FROM_TYPE);
  const problems: string[] = [];
  for (const merged of items.filter((item) => item.type === 'MergedPerson')) {
    const { id, superceded_by } = merged as { id: number; superceded_by: number };
    const link = byKey.get(keyOf(mergedFromKey(superceded_by, id)));
    if (link?.type !== MERGED_FROM_TYPE || link.sourceId !== id)
      problems.push(`merged person ${id} has no link in its survivor ${superceded_by}'s partition`);
  }
  const SURVIVOR_TYPES = new Set(['Person', 'MergedPerson', 'ErasedPerson']);
  for (const link of links) {
    const survivor = byKey.get(`${link.pk} ${personKey(0).sk}`);
    const source = byKey.get(keyOf(personKey(link.sourceId as number)));
    if (!survivor || !SURVIVOR_TYPES.has(survivor.type as string))
      problems.push(`link ${keyOf(link)} is in the partition of no stored person`);
    else if (keyOf(link) !== keyOf(mergedFromKey(survivor.id as number, link.sourceId as number)))
      problems.push(`link ${keyOf(link)} names person ${link.sourceId} under another key`);
    else if (source?.type !== 'MergedPerson' || source.superceded_by !== survivor.id)
      problems.push(
        `link ${keyOf(link)} names person ${link.sourceId}, which is not merged into ${survivor.id}`,
      );
  }
  return problems;
};

/**
 * The search postings are exactly those the stored persons imply (lib/db/person/write/postings.ts), content and
 * all, and no write has left its postings unfinished.
 */
export const postingProblems = (items: Item[], persons: ReadonlyMap<number, Person>): string[] => {
  const keyOf = (item: { pk?: unknown; sk?: unknown }) => `${item.pk} ${item.sk}`;
  const expected = new Map(
    [...persons.values()].flatMap((person) => postingItemsOf(person)).map((item) => [keyOf(item), item]),
  );
  const stored = new Map(items.filter((item) => item.type === 'Posting').map((item) => [keyOf(item), item]));
  const problems: string[] = [];
  for (const [key, item] of expected) {
    const found = stored.get(key);
    if (!found) problems.push(`person ${item.id} has no posting ${key}`);
    else if (!isDeepStrictEqual(found, item))
      problems.push(
        `posting ${key} holds ${JSON.stringify(found)}, person ${item.id} implies ${JSON.stringify(item)}`,
      );
  }
  for (const [key, item] of stored)
    if (!expected.has(key))
      problems.push(`posting ${key} of person ${item.id} is not implied by that person`);
  for (const item of items.filter((entry) => entry.type === 'PostingsPending'))
    problems.push(`${item.pk} has postings pending (${item.sk})`);
  return problems;
};

/**
 * Every person with a (non-empty) root `local_reference_id` has exactly its one reference item, stub
 * and all (lib/db/person/write/local-references.ts), and no other reference item is stored but the
 * merged references (`mergedReferenceProblems`).
 */
export const localReferenceProblems = (items: Item[], persons: ReadonlyMap<number, Person>): string[] => {
  const keyOf = (item: { pk?: unknown; sk?: unknown }) => `${item.pk} ${item.sk}`;
  const expected = new Map(
    [...persons.values()].flatMap((person) => {
      const item = localReferenceItemOf(person);
      return item ? [[keyOf(item), item] as const] : [];
    }),
  );
  const stored = new Map(
    items
      .filter((item) => item.type === 'LocalReference' && item.merged !== true)
      .map((item) => [keyOf(item), item]),
  );
  const problems: string[] = [];
  for (const [key, item] of expected) {
    const found = stored.get(key);
    if (!found) problems.push(`person ${item.id} has no reference item ${key}`);
    else if (!isDeepStrictEqual(found, item))
      problems.push(
        `reference item ${key} holds ${JSON.stringify(found)}, person ${item.id} implies ${JSON.stringify(item)}`,
      );
  }
  for (const [key, item] of stored)
    if (!expected.has(key))
      problems.push(`reference item ${key} of person ${item.id} is not implied by that person`);
  return problems;
};

/**
 * The merged references (API.md 13.1, local-references.ts): each names a merged person, under its
 * root key (the one its merge's record keeps, when the link still holds the record) with no stub;
 * every merged person whose merge's record keeps a root key has its one. None is left of a merged
 * person whose chain ends in an erased person once that erasure's chain is done (API.md 15: its
 * tombstone's `historyPending` mark gone).
 */
export const mergedReferenceProblems = (items: Item[]): string[] => {
  const keyOf = (item: { pk?: unknown; sk?: unknown }) => `${item.pk} ${item.sk}`;
  const byKey = new Map(items.map((item) => [keyOf(item), item]));
  const persons = new Map(items.filter((item) => item.sk === 'PERSON').map((item) => [item.id, item]));
  const liveEnd = (item: Item | undefined) => {
    let end = item;
    for (let hop = 0; hop < 100 && end?.type === 'MergedPerson'; hop++) end = persons.get(end.superceded_by);
    return end;
  };
  const keptKey = (link: Item | undefined) =>
    (link?.record as { local_reference_id?: string | null } | undefined)?.local_reference_id || undefined;
  const problems: string[] = [];
  for (const link of items.filter((item) => item.type === MERGED_FROM_TYPE)) {
    const value = keptKey(link);
    const expected = value && mergedReferenceItem(value, link.sourceId as number);
    if (
      expected &&
      liveEnd(persons.get(link.sourceId))?.type !== 'ErasedPerson' &&
      !byKey.has(keyOf(expected))
    )
      problems.push(`merged person ${link.sourceId} has no merged reference ${keyOf(expected)}`);
  }
  for (const item of items.filter((entry) => entry.type === 'LocalReference' && entry.merged === true)) {
    const value = String(item.pk).slice(LOCAL_REFERENCE_PREFIX.length);
    const person = persons.get(item.id);
    const end = liveEnd(person);
    const link = person && byKey.get(keyOf(mergedFromKey(person.superceded_by as number, item.id as number)));
    if (person?.type !== 'MergedPerson')
      problems.push(`merged reference ${keyOf(item)} names person ${item.id}, who is not merged`);
    else if (!isDeepStrictEqual(item, mergedReferenceItem(value, item.id as number)))
      problems.push(`merged reference ${keyOf(item)} holds ${JSON.stringify(item)}`);
    else if (keptKey(link) !== undefined && keptKey(link) !== value)
      problems.push(`merged reference ${keyOf(item)}: the merge's record keeps the key ${keptKey(link)}`);
    else if (end?.type === 'ErasedPerson' && end.historyPending !== true)
      problems.push(`merged reference ${keyOf(item)} survives the erasure of ${end.id}`);
  }
  return problems;
};
