/**
 * The examples of the OpenAPI document's success responses, built by the service's own builders (the
 * patch, the representation, the list envelopes, the link builder) from one sample: the person the
 * create example of operations.ts makes, changed by its PATCH example, and the seeded vocabularies. So
 * an example cannot show a field, a value or a link the service does not answer, and the request and
 * response examples tell one story: the PATCH example changes the Email that GET shows.
 */

import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import type { OperationId } from '../api/routes';
import { type ChangeEntry, changeEntry, type RequestOrigin, toAuditEntry } from '../domain/change-history';
import { type DuplicatePair, decidedPair, duplicatePage, pairIdOf } from '../domain/duplicates';
import { tombstoneOf } from '../domain/erasure';
import {
  cloudEventOf,
  duplicateEventOf,
  encodeFeedCursor,
  eventPage,
  FEED_START,
  type FeedEvent,
  type FeedPosition,
  feedEventOf,
  shardOfEvent,
} from '../domain/feed';
import {
  EXPORT_DEFAULTS,
  exportPage,
  exportPageUrl,
  listPageUrl,
  offsetList,
  type PageRequest,
  paginatedList,
  toStub,
} from '../domain/listing';
import { mergePersons } from '../domain/merge';
import { applyPatch } from '../domain/patch';
import { type Abbreviations, PERSON_TYPE, type Person } from '../domain/person';
import {
  ALL_VISIBLE,
  manifestOf,
  matchRequestOf,
  PERSON_ENTITY_TYPE,
  proposedProperties,
  rankCandidates,
  resultOf,
} from '../domain/reconcile';
import {
  auditEntryOut,
  changeHistoryOut,
  erasedPersonOut,
  type Links,
  mergedPersonOut,
  referenceOut,
  toPersonOut,
  vocabularyOut,
} from '../domain/representation';
import { CreatePersonBody, PatchPersonBody, SET_NAMES, setPointer } from '../domain/schemas';
import {
  deliveryPage,
  newSubscription,
  patchedSubscription,
  replayOut,
  rotatedSubscription,
  SECRET_PREFIX,
  subscriptionOut,
} from '../domain/subscriptions';
import { unmergePersons } from '../domain/unmerge';
import {
  applyEntryPatch,
  seededEntry,
  VOCABULARIES,
  type VocabularyEntry,
  type VocabularyKind,
  vocabularyBody,
} from '../domain/vocabulary';
import { OPERATIONS } from './operations';
import { problemIndex, problemTypePage } from './problem-page';
import type { ResponseSchemaName } from './response-schemas';

/** An OpenAPI Example Object. */
export interface Example {
  summary: string;
  value: unknown;
}

/** Where the local server answers (API.md 3's links). */
const LINKS: Links = {
  baseUrl: 'http://127.0.0.1:3000',
  contextUrl: 'http://127.0.0.1:3000/context.jsonld',
};

/** The times of the sample: the seed, the person's create and its PATCH, a new vocabulary entry. */
const SEEDED_AT = '2026-11-20T08:00:00.000Z';
const CREATED_AT = '2026-11-21T15:04:05.123Z';
const CHANGED_AT = '2026-11-22T09:30:12.345Z';
const MERGED_AT = '2026-11-24T16:05:00.000Z';
const UNMERGED_AT = '2026-11-24T16:30:00.000Z';
const ERASED_AT = '2026-11-24T11:42:17.908Z';
const ENTRY_CREATED_AT = '2026-11-23T10:15:00.000Z';
const ENTRY_CHANGED_AT = '2026-11-23T10:20:00.000Z';

/** The sample person's id (API.md 3); it registered itself and made its own change. */
const PERSON_ID = 30863;

/** Where a change came from, as an IAM-authorized request through API Gateway records it. */
const origin = (requestId: string): RequestOrigin => ({
  request_id: requestId,
  user_agent: 'curl/8.5.0',
  caller: 'arn:aws:iam::123456789012:user/records-steward',
});

/** Hands out these ids in order, as a reserved block does. */
const idsOf = (ids: readonly number[]) => {
  let next = 0;
  return () => {
    const id = ids[next++];
    if (id === undefined) throw new Error(`The sample reserved only ${ids.length} ids`);
    return id;
  };
};

/** The page links of a list the handlers build: the request's path and query with page and perPage. */
const pageUrl = (path: string, query = '') => listPageUrl(LINKS.baseUrl, path, query);

/** The first page of a PaginatedList of `items` (of `total` in all) at `path`, as the handlers build it. */
const firstPage = <T>(
  itemType: string,
  items: T[],
  path: string,
  query = '',
  total = items.length,
  perPage = 10,
) =>
  paginatedList({
    itemType,
    items,
    total,
    request: { page: 1, perPage } satisfies PageRequest,
    pageUrl: pageUrl(path, query),
    contextUrl: LINKS.contextUrl,
  });

/** The abbreviations of the seeded vocabularies, which the sample's Name points at. */
const SEEDED_ABBREVIATIONS: Abbreviations = {
  NamePrefix: new Map(SEEDED_VOCABULARY.NamePrefix.map(({ id, abbreviation }) => [id, abbreviation])),
  NameSuffix: new Map(SEEDED_VOCABULARY.NameSuffix.map(({ id, abbreviation }) => [id, abbreviation])),
};

// ---------------------------------------------------------------------------------------------------
// The person: created, then changed
// ---------------------------------------------------------------------------------------------------

/**
 * The create example of operations.ts, applied as POST /Person applies it. Its Name and Email get API.md
 * 3's ids (689, 610), which the PATCH example names.
 */
const created = (() => {
  const body = CreatePersonBody.parse(OPERATIONS.createPerson.body?.example);
  const changeId = 30864;
  const patched = applyPatch(null, body, {
    requester: 0,
    now: CREATED_AT,
    nextId: idsOf([PERSON_ID, 689, 610]),
    changeId,
    abbreviations: SEEDED_ABBREVIATIONS,
  });
  const entry = changeEntry(PERSON_TYPE, patched.person, {
    id: changeId,
    action: 'create',
    requester: patched.person.CoreMetaData.created_by,
    at: CREATED_AT,
    changed: patched.changed,
    origin: origin('Q0dbpj2yIAMEbGw='),
  });
  return { person: patched.person, tombstones: patched.tombstones, entry };
})();

/** The PATCH example of operations.ts applied to the created person by the person itself. */
const changed = (() => {
  const body = PatchPersonBody.parse(OPERATIONS.updatePerson.body?.example);
  const changeId = 30903;
  const patched = applyPatch(created.person, body, {
    requester: PERSON_ID,
    now: CHANGED_AT,
    nextId: idsOf([30901, 30902]),
    changeId,
    abbreviations: SEEDED_ABBREVIATIONS,
  });
  const entry = changeEntry(PERSON_TYPE, patched.person, {
    id: changeId,
    action: 'update',
    requester: PERSON_ID,
    at: CHANGED_AT,
    changed: patched.changed,
    origin: origin('Q0kQ5hZKIAMEb7A='),
  });
  return { person: patched.person, tombstones: patched.tombstones, entry };
})();

const createdOut = toPersonOut(created.person, LINKS, created.tombstones);
const changedOut = toPersonOut(changed.person, LINKS, changed.tombstones);

/** The person's changes, newest first, with the object before and after each. */
const PERSON_CHANGES: { entry: ChangeEntry; previous: Person | null; current: Person }[] = [
  { entry: changed.entry, previous: created.person, current: changed.person },
  { entry: created.entry, previous: null, current: created.person },
];
const changeEntries = PERSON_CHANGES.map(({ entry, previous, current }) =>
  changeHistoryOut(entry, previous, current, LINKS),
);
const auditEntries = PERSON_CHANGES.map(({ entry }) => auditEntryOut(toAuditEntry(entry), LINKS.baseUrl));

/** `GET /Person?last_name=smith`: the sample is the one match. */
const STUB_QUERY = 'last_name=smith';
const stubs = [changed.person].map((person) => toStub(person, LINKS.baseUrl, LINKS.contextUrl));

/**
 * The cursor of the example export page: opaque to clients, what the service sends when a page ended
 * with its partition of the index (lib/db/person/read/person-export.ts writes it; the docs import no
 * storage code, so it is spelled out here).
 */
const EXAMPLE_CURSOR = Buffer.from(JSON.stringify({ p: 2 })).toString('base64url');

/** The person that the sample person was merged into, a duplicate found later (API.md 13). */
const SURVIVOR_ID = 30958;
/** The merge's ChangeHistory entry of the sample person (the source of the merge). */
const MERGE_CHANGE_ID = 30961;

/** The sample person after a merge into its survivor: no personal data, a link to the survivor. */
const mergedOut = mergedPersonOut(
  {
    id: PERSON_ID,
    superceded_by: SURVIVOR_ID,
    CoreMetaData: {
      ...changed.person.CoreMetaData,
      version: changed.person.CoreMetaData.version + 1,
      date_modified: MERGED_AT,
      modified_by: SURVIVOR_ID,
      modified_audit_id: MERGE_CHANGE_ID,
    },
  },
  LINKS,
);

/**
 * The merge undone (API.md 13.1), made by the service's own code: the survivor as it stood (a person of
 * its own, created by a steward), the sample person merged into it, then given back.
 */
const unmergeOut = (() => {
  const survivor = applyPatch(
    null,
    CreatePersonBody.parse({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith', primary: true }] },
      Emails: { '@set': [{ email: 'john.smith@example.org', primary: true }] },
    }),
    {
      requester: 0,
      now: CREATED_AT,
      nextId: idsOf([SURVIVOR_ID, 30959, 30960]),
      changeId: 30957,
      abbreviations: SEEDED_ABBREVIATIONS,
    },
  ).person;
  const merge = mergePersons(survivor, changed.person, {
    requester: SURVIVOR_ID,
    now: MERGED_AT,
    changeId: MERGE_CHANGE_ID - 1,
    sourceChangeId: MERGE_CHANGE_ID,
  });
  const undone = unmergePersons(merge.person, merge.source, merge.record, {
    requester: SURVIVOR_ID,
    now: UNMERGED_AT,
    changeId: MERGE_CHANGE_ID + 1,
    sourceChangeId: MERGE_CHANGE_ID + 2,
    abbreviations: SEEDED_ABBREVIATIONS,
  });
  return {
    '@type': 'Unmerge',
    survivor: toPersonOut(undone.survivor, LINKS),
    source: toPersonOut(undone.source, LINKS),
  };
})();

/**
 * The sample person as an erasure after its PATCH leaves it (API.md 15, another ending than the merge):
 * its id and times, nothing personal.
 */
const erasedOut = erasedPersonOut(tombstoneOf(changed.person, ERASED_AT), LINKS);

// ---------------------------------------------------------------------------------------------------
// The change feed: the person's changes as events
// ---------------------------------------------------------------------------------------------------

/** The merge's entry of the source, as a merge writes it: every part the person held, and its link. */
const mergedEntry = changeEntry(PERSON_TYPE, mergedOut, {
  id: MERGE_CHANGE_ID,
  action: 'merge',
  requester: SURVIVOR_ID,
  at: MERGED_AT,
  changed: [
    '/local_reference_id',
    ...SET_NAMES.filter((set) => changed.person[set].length > 0).map(setPointer),
    '/superceded_by',
  ],
  origin: origin('Q0xVn8dkIAMEc3Q='),
});

/**
 * The duplicate pair of the sample person and its survivor, found before the merge (API.md 12.1):
 * its event's id from the same allocator as the entries'.
 */
const pairFound = duplicateEventOf(
  {
    id: pairIdOf(PERSON_ID, SURVIVOR_ID),
    persons: [PERSON_ID, SURVIVOR_ID],
    grade: 'probable',
    score: 91,
    detected: '2026-11-24T15:58:30.000Z',
  },
  30960,
);

/** That pair as the queue shows it while open, and once a steward merged it (API.md 12.1). */
const openPair: DuplicatePair = {
  '@type': 'DuplicatePair',
  id: pairIdOf(PERSON_ID, SURVIVOR_ID),
  persons: [PERSON_ID, SURVIVOR_ID],
  score: 91,
  grade: 'probable',
  features: [
    { id: 'name', value: 0.86 },
    { id: 'first_name', value: true },
    { id: 'last_name', value: true },
    { id: 'phones', value: true },
  ],
  detected: '2026-11-24T15:58:30.000Z',
  status: 'open',
};
const mergedPair = decidedPair(openPair, 'merged', SURVIVOR_ID, '2026-11-24T16:02:11.000Z');

/** The sample person's create, PATCH, duplicate pair and merge, as the feed holds them. */
const FEED_EVENTS: FeedEvent[] = [
  feedEventOf(created.entry),
  feedEventOf(changed.entry),
  pairFound,
  feedEventOf(mergedEntry, SURVIVOR_ID),
];

/** Where the example page starts: a feed that holds earlier events, a few hundred a shard. */
const FEED_AFTER: FeedPosition = FEED_START.map((_, shard) => 400 + ((shard * 7) % 23));

/**
 * The key the example's cursors are signed with: no server's (each has its own secret key), so a
 * server refuses them, as it refuses every cursor it did not issue.
 */
export const EXAMPLE_FEED_CURSOR_KEY = 'the documents example key, no server has it';

/** The position after the page: its events counted on their shards. */
const FEED_NEXT: FeedPosition = FEED_EVENTS.reduce(
  (position, event) => position.map((at, shard) => (shard === shardOfEvent(event) ? at + 1 : at)),
  FEED_AFTER,
);

// ---------------------------------------------------------------------------------------------------
// The vocabularies: the seed, and an entry a person adds and changes
// ---------------------------------------------------------------------------------------------------

/** The seeded entries as the seed stores them: their change ids come from one block above the seeded ids. */
const seeded = (kind: VocabularyKind): VocabularyEntry[] => {
  const before = kind === 'NamePrefix' ? 0 : SEEDED_VOCABULARY.NamePrefix.length;
  return SEEDED_VOCABULARY[kind].map(
    (entry, index) => seededEntry(kind, entry, SEEDED_AT, 1001 + before + index).entry,
  );
};

/** The entry the sample's Name points at (prefix 21 "Dr."), or GRC's suffix 19 "Esquire". */
const SHOWN_SEEDED_ID: Record<VocabularyKind, number> = { NamePrefix: 21, NameSuffix: 19 };

/** How many seeded entries a list example shows, so that it has a next page. */
const LISTED = 3;

const vocabularyExamples = (kind: VocabularyKind) => {
  const { term, view } = VOCABULARIES[kind];
  const entries = seeded(kind);
  const shown = entries.find(({ id }) => id === SHOWN_SEEDED_ID[kind]) as VocabularyEntry;
  const operations = OPERATIONS[`create${kind}`];
  const [id, createId, changeId] = kind === 'NamePrefix' ? [30911, 30912, 30915] : [30913, 30914, 30916];
  const added = applyEntryPatch(kind, null, id, vocabularyBody(kind, true).parse(operations.body?.example), {
    requester: PERSON_ID,
    now: ENTRY_CREATED_AT,
    changeId: createId,
  }).entry;
  const patched = applyEntryPatch(
    kind,
    added,
    id,
    vocabularyBody(kind, false).parse(OPERATIONS[`update${kind}`].body?.example),
    { requester: PERSON_ID, now: ENTRY_CHANGED_AT, changeId },
  ).entry;
  const listed = entries.slice(0, LISTED);
  const page = <T>(itemType: string, path: string, items: T[]) =>
    firstPage(itemType, items, path, '', entries.length, LISTED);
  const out = (entry: VocabularyEntry) => vocabularyOut(kind, entry, LINKS);
  const reference = (entry: VocabularyEntry) => referenceOut(kind, entry, LINKS);
  return {
    entry: { summary: `The seeded ${kind} ${shown.id}, "${shown.term}"`, value: out(shown) },
    added: { summary: `The ${term} the request example adds`, value: out(added) },
    patched: { summary: `The added ${term} after the request example`, value: out(patched) },
    list: {
      summary: `GRC's list (limit=${LISTED}): the first seeded entries`,
      value: offsetList(LINKS.contextUrl, entries.length, 0, listed.map(out)),
    },
    paginated: {
      summary: `PaginatedList (page=1, perPage=${LISTED})`,
      value: page(kind, `/${kind}`, listed.map(out)),
    },
    view: { summary: `The ${kind} ${shown.id} in the /${view} view`, value: reference(shown) },
    viewList: {
      summary: `The first page (perPage=${LISTED})`,
      value: page(view, `/${view}`, listed.map(reference)),
    },
  };
};

const prefixes = vocabularyExamples('NamePrefix');
const suffixes = vocabularyExamples('NameSuffix');

/**
 * A webhook subscription of the sample person's directory (API.md 16): as created, with its secret (a
 * fixed one here: a real one is 32 random bytes), paused and resumed by the PATCH example, rotated.
 */
const SUBSCRIBED = new Date('2026-11-24T16:10:00.000Z');
const EXAMPLE_SECRET = `${SECRET_PREFIX}${Buffer.from('an example secret; real ones are random').toString('base64')}`;
const subscription = newSubscription(
  '3f1c2a9e-6b7d-4e21-9a4f-0c8d5e7b1a62',
  { url: 'https://directory.example.org/hooks/persons', types: ['person.*'], description: 'Directory sync' },
  'sealed',
  { requester: PERSON_ID, now: SUBSCRIBED },
);
const pausedSubscription =
  patchedSubscription(
    subscription,
    { paused: true },
    { requester: PERSON_ID, now: new Date('2026-11-25T09:00:00.000Z') },
  ) ?? subscription;
const resumedSubscription =
  patchedSubscription(
    pausedSubscription,
    { paused: false },
    { requester: PERSON_ID, now: new Date('2026-11-25T09:30:00.000Z') },
  ) ?? pausedSubscription;
const rotatedOut = subscriptionOut(
  rotatedSubscription(subscription, 'sealed', {
    requester: PERSON_ID,
    now: new Date('2026-11-26T08:00:00.000Z'),
  }),
  LINKS,
  `${SECRET_PREFIX}${Buffer.from('another example secret, made by the rotation').toString('base64')}`,
);

// ---------------------------------------------------------------------------------------------------
// The examples by response schema and by operation
// ---------------------------------------------------------------------------------------------------

const CHANGE_QUERY = `endpoint=Person&object_id=${PERSON_ID}`;

/** Schemas of list items only: no operation answers one alone. */
type ItemOnly = 'Stub' | 'AuditEntry';

/** The example of each response schema, wherever an operation answers with it. */
const BY_SCHEMA: Record<Exclude<ResponseSchemaName, ItemOnly>, Example> = {
  Person: { summary: 'The person the create example made', value: createdOut },
  MergedPerson: {
    summary: 'The sample person once merged into the person that survived it: a link, no personal data',
    value: mergedOut,
  },
  Unmerge: {
    summary: 'The merge of the sample person undone: the survivor without it, the sample person live again',
    value: unmergeOut,
  },
  ErasedPerson: {
    summary: 'The sample person once erased after its PATCH: its tombstone, no personal data',
    value: erasedOut,
  },
  PersonExport: {
    summary: `A page of GET /Person/export?limit=${EXPORT_DEFAULTS.limit}: the sample person, and the next page`,
    value: exportPage(
      LINKS.contextUrl,
      // As GET shows the person after its PATCH: no tombstones, which only the PATCH's answer echoes.
      [toPersonOut(changed.person, LINKS)],
      exportPageUrl(LINKS.baseUrl, '/Person/export', EXPORT_DEFAULTS.limit, EXAMPLE_CURSOR),
    ),
  },
  StubList: {
    summary: `GRC's list (limit/offset): GET /Person?${STUB_QUERY}`,
    value: offsetList(LINKS.contextUrl, stubs.length, 0, stubs),
  },
  PaginatedStubList: {
    summary: `PaginatedList (page/perPage): GET /Person?${STUB_QUERY}&page=1&perPage=10`,
    value: firstPage('Stub', stubs, '/Person', STUB_QUERY),
  },
  PaginatedAuditEntryList: {
    summary: "The sample person's create and change, newest first",
    value: firstPage('AuditEntry', auditEntries, `/Person/${PERSON_ID}/audit`),
  },
  NamePrefix: prefixes.entry,
  NamePrefixList: prefixes.list,
  PaginatedNamePrefixList: prefixes.paginated,
  NameSuffix: suffixes.entry,
  NameSuffixList: suffixes.list,
  PaginatedNameSuffixList: suffixes.paginated,
  Prefix: prefixes.view,
  PaginatedPrefixList: prefixes.viewList,
  Suffix: suffixes.view,
  PaginatedSuffixList: suffixes.viewList,
  ChangeHistory: {
    summary: 'The change the PATCH example makes, with the person before and after it',
    value: changeEntries[0],
  },
  ChangeHistoryList: {
    summary: `GRC's list (limit/offset): GET /ChangeHistory?${CHANGE_QUERY}`,
    value: offsetList(LINKS.contextUrl, changeEntries.length, 0, changeEntries),
  },
  PaginatedChangeHistoryList: {
    summary: `PaginatedList (page/perPage): GET /ChangeHistory?${CHANGE_QUERY}&page=1&perPage=10`,
    value: firstPage('ChangeHistory', changeEntries, '/ChangeHistory', CHANGE_QUERY),
  },
  DuplicatePair: { summary: `GET /duplicates/${openPair.id}: the pair while open`, value: openPair },
  DuplicatePage: {
    summary:
      'GET /duplicates?grade=certain,probable: the one open pair of the queue (the last page: no next)',
    value: duplicatePage([openPair], null),
  },
  Subscription: {
    summary: 'A subscription of every person event',
    value: subscriptionOut(subscription, LINKS),
  },
  PaginatedSubscriptionList: {
    summary: 'GET /Subscription: the one subscription',
    value: firstPage('Subscription', [subscriptionOut(subscription, LINKS)], '/Subscription'),
  },
  DeliveryPage: {
    summary: "GET /Subscription/{id}/deliveries: the sample person's PATCH delivered on the second attempt",
    value: deliveryPage(
      [
        {
          event: 30911,
          type: 'person.updated',
          at: '2026-11-24T16:20:07.114Z',
          status: 204,
          outcome: 'delivered',
          duration_ms: 88,
          attempt: 2,
        },
        {
          event: 30911,
          type: 'person.updated',
          at: '2026-11-24T16:20:02.031Z',
          status: 503,
          outcome: 'failed',
          duration_ms: 41,
          attempt: 1,
          error: 'the receiver answered 503',
        },
      ],
      null,
    ),
  },
  Replay: {
    summary: "The sample subscription's lane set back to a cursor of the feed",
    value: replayOut(subscription.id, encodeFeedCursor(FEED_AFTER, EXAMPLE_FEED_CURSOR_KEY), LINKS),
  },
  EventPage: {
    summary:
      `GET /events?after=${encodeFeedCursor(FEED_AFTER, EXAMPLE_FEED_CURSOR_KEY)}: the sample person's create, its PATCH, ` +
      `its duplicate pair with person ${SURVIVOR_ID} found, and its merge into that person, the last events of the ` +
      'feed, and the cursor after them',
    value: eventPage(
      LINKS.contextUrl,
      FEED_EVENTS.map((event) => cloudEventOf(event, LINKS.baseUrl)),
      encodeFeedCursor(FEED_NEXT, EXAMPLE_FEED_CURSOR_KEY),
    ),
  },
};

/** Where an operation answers another state than GET shows: the object it created or changed. */
const BY_OPERATION: Partial<Record<OperationId, Partial<Record<ResponseSchemaName, Example>>>> = {
  decideDuplicate: {
    DuplicatePair: { summary: 'The pair once the request example merged it', value: mergedPair },
  },
  createPerson: { Person: { summary: 'The person the request example makes', value: createdOut } },
  createSubscription: {
    Subscription: {
      summary: 'The subscription the request example makes, and its secret, shown this once',
      value: subscriptionOut(subscription, LINKS, EXAMPLE_SECRET),
    },
  },
  updateSubscription: {
    Subscription: {
      summary: 'Resumed by the request example after a steward paused it',
      value: subscriptionOut(resumedSubscription, LINKS),
    },
  },
  rotateSubscriptionSecret: {
    Subscription: { summary: 'The new secret; the old one signs beside it for 24 hours', value: rotatedOut },
  },
  updatePerson: {
    Person: {
      summary:
        'After the request example: the Email changed, a PhoneNumber and a PersonTeam added, and the ' +
        'deleted PostalAddress that carried a local_reference_id echoed',
      value: changedOut,
    },
  },
  createNamePrefix: { NamePrefix: prefixes.added },
  updateNamePrefix: { NamePrefix: prefixes.patched },
  createNameSuffix: { NameSuffix: suffixes.added },
  updateNameSuffix: { NameSuffix: suffixes.patched },
};

/** The example of a JSON body an operation answers, by the body's response schema. */
export const responseExample = (operation: string, schema: ResponseSchemaName): Example | undefined =>
  BY_OPERATION[operation as OperationId]?.[schema] ??
  (schema in BY_SCHEMA ? BY_SCHEMA[schema as Exclude<ResponseSchemaName, ItemOnly>] : undefined);

/** Bodies of a fixed media type (`content` in operations.ts), by operation and media type. */
const adaFacts = {
  id: 30711,
  fullname: 'Ada Lovelace',
  names: ['ada lovelace'],
  firstNames: ['ada'],
  lastNames: ['lovelace'],
  emails: ['ada@example.org'],
  phones: ['442079460958'],
};
const reconcileAnswer = (query: Parameters<typeof matchRequestOf>[0]) =>
  resultOf(rankCandidates(matchRequestOf(query), [adaFacts]));

const BY_MEDIA_TYPE: Partial<Record<OperationId, Record<string, Example>>> = {
  reconcile: {
    'application/json': { summary: 'GET /reconcile: the service manifest', value: manifestOf(LINKS) },
  },
  reconcileBatch: {
    'application/json': {
      summary:
        'POST /reconcile with queries={"q0":{"query":"Ada Lovelace"},"q1":{"query":"A. Lovelace",...}}',
      value: {
        q0: reconcileAnswer({ query: 'Ada Lovelace' }),
        q1: reconcileAnswer({ query: 'A. Lovelace', properties: [{ pid: 'email', v: 'ada@example.org' }] }),
      },
    },
  },
  suggestReconcile: {
    'application/json': {
      summary: 'GET /reconcile/suggest/entity?prefix=lovel',
      value: { result: [{ id: '30711', name: 'Ada Lovelace', notable: [{ ...PERSON_ENTITY_TYPE }] }] },
    },
  },
  proposeProperties: {
    'application/json': {
      summary: 'GET /reconcile/properties?type=Person',
      value: proposedProperties(ALL_VISIBLE),
    },
  },
  listProblems: {
    'application/json': {
      summary: 'GET /problems with Accept: application/json',
      value: problemIndex(),
    },
  },
  getProblem: {
    'application/json': {
      summary: 'GET /problems/duplicate-email with Accept: application/json',
      value: problemTypePage('duplicate-email'),
    },
  },
};

/** The example of a body of a fixed media type an operation answers, if it has one. */
export const contentExample = (operation: string, mediaType: string): Example | undefined =>
  BY_MEDIA_TYPE[operation as OperationId]?.[mediaType];
