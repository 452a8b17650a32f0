/**
 * Pure builders of a person's search postings (keys.ts has the design): which postings a write puts
 * and deletes, and how they travel: in the write's own transaction while they fit its 100 actions,
 * else after a `POSTINGS` item that says they are pending, in transactions that follow the write.
 */
import { isDeepStrictEqual } from 'node:util';
import { fullnameOfPerson, type Person } from '../../../domain/person';
import {
  NO_TERMS,
  type Posting,
  postingsOf,
  type SearchTerms,
  searchTerms,
  unionOfTerms,
} from '../../../domain/search';
import { keyString } from '../../table/batch-get';
import { type Key, postingKey, postingsPendingKey } from '../../table/keys';
import {
  type Action,
  MAX_TRANSACTION_ACTIONS,
  transactionOf,
  type WriteTransaction,
} from '../../write/actions';

/** What a person's postings were before a write. */
export interface PostingsBefore {
  /** The stored person the write applied its patch to; null for a create. */
  person: Person | null;
  /** The terms of the `POSTINGS` item, when an earlier write had not finished its postings. */
  pending: SearchTerms | null;
}

export const NOTHING_BEFORE: PostingsBefore = { person: null, pending: null };

export type PostingItem = Key & { type: 'Posting'; id: number; fullname: string; values: Posting['values'] };

export const postingItem = (person: Person, { gram, values }: Posting): PostingItem => ({
  ...postingKey(gram, person.id),
  type: 'Posting',
  id: person.id,
  fullname: fullnameOfPerson(person),
  values,
});

/** Every posting a stored person implies. */
export const postingItemsOf = (person: Person): PostingItem[] =>
  postingsOf(searchTerms(person)).map((posting) => postingItem(person, posting));

export interface PostingChanges {
  puts: PostingItem[];
  deletes: Key[];
}

const sameContent = (a: PostingItem | undefined, b: PostingItem) =>
  a !== undefined && a.fullname === b.fullname && isDeepStrictEqual(a.values, b.values);

/**
 * The postings to put and delete so that the stored ones become exactly `after`'s. Normally the
 * difference from the person before: new postings and changed ones put, those it no longer has
 * deleted. After an unfinished write (`pending`), nothing stored can be trusted: every posting of
 * `after` is put, and every one that either terms could have left is deleted unless `after` has it.
 */
export const postingChanges = ({ person, pending }: PostingsBefore, after: Person): PostingChanges => {
  const next = postingItemsOf(after);
  const nextKeys = new Set(next.map(keyString));
  const previous = person ? postingItemsOf(person) : [];
  const stored = new Map(previous.map((item) => [keyString(item), item]));
  const left = pending ? postingsOf(pending).map(({ gram }) => postingKey(gram, after.id)) : [];
  const deletes = new Map<string, Key>();
  for (const { pk, sk } of [...previous, ...left])
    if (!nextKeys.has(keyString({ pk, sk }))) deletes.set(keyString({ pk, sk }), { pk, sk });
  return {
    puts: pending ? next : next.filter((item) => !sameContent(stored.get(keyString(item)), item)),
    deletes: [...deletes.values()],
  };
};

export const postingActions = (tableName: string, { puts, deletes }: PostingChanges): Action[] => [
  ...puts.map((Item): Action => [{ Put: { TableName: tableName, Item } }, { kind: 'posting' }]),
  ...deletes.map((Key): Action => [{ Delete: { TableName: tableName, Key } }, { kind: 'posting' }]),
];

/** The `POSTINGS` item of a write whose postings follow it: its token, and what may still be stored. */
export const pendingPut = (
  tableName: string,
  personId: number,
  token: string,
  terms: SearchTerms,
): Action => [
  {
    Put: {
      TableName: tableName,
      Item: { ...postingsPendingKey(personId), type: 'PostingsPending', token, terms },
    },
  },
  { kind: 'pending' },
];

const tokenCondition = (token: string) => ({
  ConditionExpression: '#token = :token',
  ExpressionAttributeNames: { '#token': 'token' },
  ExpressionAttributeValues: { ':token': token },
});

/** Postings of a chain go on only while the `POSTINGS` item still holds the chain's token. */
const tokenCheck = (tableName: string, personId: number, token: string): Action => [
  { ConditionCheck: { TableName: tableName, Key: postingsPendingKey(personId), ...tokenCondition(token) } },
  { kind: 'pending' },
];

/** The last transaction of a chain deletes the `POSTINGS` item, if it still holds the chain's token. */
export const tokenRelease = (tableName: string, personId: number, token: string): Action => [
  { Delete: { TableName: tableName, Key: postingsPendingKey(personId), ...tokenCondition(token) } },
  { kind: 'pending' },
];

export interface PostingPlan {
  /** Sent before the write when not even the `POSTINGS` item fits into it. */
  prelude: Action[];
  /** What goes into the write's own transaction. */
  inWrite: Action[];
  /** Sent one after another once the write has landed. */
  chain: WriteTransaction[];
}

export interface PostingPlanInput {
  tableName: string;
  personId: number;
  before: PostingsBefore;
  changes: PostingChanges;
  /** Actions the write's transaction has left for postings. */
  room: number;
  /** Names this write's chain, should it need one. */
  token: string;
  /** Checked by every transaction of the chain besides the token (the backfill's person version). */
  guard?: Action;
}

/**
 * Postings that fit go into the write (with the `POSTINGS` item deleted, if there was one). Those that
 * do not fit follow in a chain: the write puts the `POSTINGS` item (or the prelude does, when the
 * write has no room at all), then transactions of postings, each checking the token, the last one
 * deleting the item.
 */
export const planPostings = ({
  tableName,
  personId,
  before,
  changes,
  room,
  token,
  guard,
}: PostingPlanInput): PostingPlan => {
  // A write of over 100 actions without its postings is refused whatever they are (sendWrite).
  if (room < 0) return { prelude: [], inWrite: [], chain: [] };
  const actions = postingActions(tableName, changes);
  const hadPending = before.pending !== null;
  if (actions.length + (hadPending ? 1 : 0) <= room)
    return {
      prelude: [],
      inWrite: hadPending
        ? [
            ...actions,
            [{ Delete: { TableName: tableName, Key: postingsPendingKey(personId) } }, { kind: 'pending' }],
          ]
        : actions,
      chain: [],
    };
  const terms = unionOfTerms(
    before.person ? searchTerms(before.person) : NO_TERMS,
    before.pending ?? NO_TERMS,
  );
  const marker = pendingPut(tableName, personId, token, terms);
  const inWrite = room >= 1 ? [marker, ...actions.slice(0, room - 1)] : [];
  const rest = actions.slice(Math.max(0, room - 1));
  const perChunk = MAX_TRANSACTION_ACTIONS - 1 - (guard ? 1 : 0);
  const chunks = Array.from({ length: Math.max(1, Math.ceil(rest.length / perChunk)) }, (_, index) =>
    rest.slice(index * perChunk, (index + 1) * perChunk),
  );
  return {
    prelude: room >= 1 ? [] : [marker],
    inWrite,
    chain: chunks.map((chunk, index) =>
      transactionOf([
        ...(guard ? [guard] : []),
        ...chunk,
        index === chunks.length - 1
          ? tokenRelease(tableName, personId, token)
          : tokenCheck(tableName, personId, token),
      ]),
    ),
  };
};
