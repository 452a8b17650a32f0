/**
 * zod schemas of the responses that lib/domain builds without one (the two list shapes, stubs,
 * AuditEntry, the NamePrefix and NameSuffix entries and their Prefix and Suffix view, ChangeHistory,
 * the change feed's page of CloudEvents, problem+json), so the OpenAPI document describes them from zod
 * like the Person. Each is checked against its builder's return type at compile time: a field added to
 * or dropped from a builder fails `tsc` here until the schema follows.
 */
import * as z from 'zod';
import { PROBLEM_TYPE_NAMES, type ProblemBody, problemTypeUri } from '../api/problems';
import type { AuditEntry } from '../domain/audit';
import { CHANGE_TYPES, type ChangeEntry, RESOURCE_TYPES, type RequestOrigin } from '../domain/change-history';
import { DUPLICATES_DEFAULTS, DuplicatePairOut, type duplicatePage } from '../domain/duplicates';
import { CHANGE_EVENT_TYPES, DUPLICATE_DETECTED, type eventPage } from '../domain/feed';
import {
  EXPORT_DEFAULTS,
  type exportPage,
  FEED_DEFAULTS,
  LIST_DEFAULTS,
  MAX_CHANGES_PER_PAGE,
  type offsetList,
  PAGE_DEFAULTS,
  type paginatedList,
  type Stub,
} from '../domain/listing';
import type {
  auditEntryOut,
  changeHistoryOut,
  erasedPersonOut,
  mergedPersonOut,
  referenceOut,
  vocabularyOut,
} from '../domain/representation';
import { CoreMetaDataOut, localReferenceId, PersonOut } from '../domain/schemas';
import { DELIVERIES_DEFAULTS, type replayOut, type subscriptionOut } from '../domain/subscriptions';
import { VOCABULARIES, type VocabularyKind } from '../domain/vocabulary';

const context = PersonOut.shape['@context'];
const id = PersonOut.shape.id;
const count = z.int().nonnegative();

export const StubOut = z.object({
  '@context': context,
  '@type': z.literal('Stub'),
  '@id': z.url(),
  id,
  property_name: z.literal('fullname'),
  property_value: z.string(),
  thing_type: z.literal('Person'),
});

/**
 * GRC's list shape (API.md 4, 11.4, 11.5), answered with `limit`/`offset` (or neither): `count` is how
 * many match, `limit` how many came, `offset` where they start.
 */
export const offsetListOf = <I extends z.ZodType>(item: I, maxLimit: number) =>
  z.object({
    '@context': context,
    Pagination: z.object({
      '@context': context,
      '@type': z.literal('Pagination'),
      count: count.describe('How many items match the filters'),
      limit: z.int().min(0).max(maxLimit).describe('How many items this answer holds'),
      offset: count.describe('The position of the first of them'),
    }),
    '@set': z.array(item).max(maxLimit),
  });

/** `GET /Person` with `limit`/`offset` (API.md 4). */
export const StubListOut = offsetListOf(StubOut, LIST_DEFAULTS.maxLimit);

/** The PaginatedList envelope (API.md 6) around items of one schema, answered with `page`/`perPage`. */
export const paginatedListOf = <I extends z.ZodType>(itemType: string, item: I) =>
  z.object({
    '@context': context,
    '@id': z.url(),
    '@type': z.literal('PaginatedList'),
    itemType: z.literal(itemType),
    page: z.int().min(1),
    perPage: z.int().min(1).max(PAGE_DEFAULTS.maxPerPage),
    total: count,
    previousPage: z.url().nullable(),
    nextPage: z.url().nullable(),
    items: z.array(item).max(PAGE_DEFAULTS.maxPerPage),
  });

/** A page of `GET /Person/export`: full Persons and the link to the next page. */
export const PersonExportOut = z.object({
  '@context': context,
  '@type': z.literal('PersonExport'),
  '@set': z
    .array(PersonOut)
    .max(EXPORT_DEFAULTS.maxLimit)
    .describe(
      'Full Persons, each as GET /Person/{id} answers it; fewer than `limit`, even none, before the end',
    ),
  next: z.url().nullable().describe('The next page (the same `limit` and a `cursor`); null on the last page'),
});

export const AuditEntryOut = z.object({
  '@type': z.literal('AuditEntry'),
  '@id': z.url(),
  id,
  person_id: id,
  action: z.enum([
    'create',
    'update',
    'enrich',
    'merge',
    'unmerge',
    'erase',
  ] as const satisfies readonly AuditEntry['action'][]),
  requester: id.nullable().describe('The person who asked; null for the service (enrichment)'),
  at: z.iso.datetime(),
  changed: z.array(z.string()).describe('JSON Pointers of the top-level parts that changed'),
});

/** The key of a kind's text: `prefix` or `suffix`. */
type Term<K extends VocabularyKind> = (typeof VOCABULARIES)[K]['term'];

/** `{ prefix: schema }` or `{ suffix: schema }`, typed by the kind (a computed key alone types as any string). */
const termOf = <K extends VocabularyKind, S extends z.ZodType>(kind: K, schema: S) =>
  ({ [VOCABULARIES[kind].term]: schema }) as Record<Term<K>, S>;

/** A NamePrefix or NameSuffix entry as its own endpoints answer it (API.md 11.4). */
const vocabularyEntryOf = <K extends VocabularyKind>(kind: K) =>
  z.object({
    '@context': context,
    '@type': z.literal(kind),
    '@id': z.url(),
    id,
    ...termOf(
      kind,
      z.string().describe(kind === 'NamePrefix' ? 'The prefix: "Doctor"' : 'The suffix: "Esquire"'),
    ),
    abbreviation: z
      .string()
      .describe('What a fullname shows; unique within the vocabulary, compared without case and accents'),
    local_reference_id: localReferenceId,
    CoreMetaData: CoreMetaDataOut.extend({
      created_by: id.nullable().describe('The person who created the entry; null for a seeded one'),
    }),
  });

export const NamePrefixOut = vocabularyEntryOf('NamePrefix');
export const NameSuffixOut = vocabularyEntryOf('NameSuffix');

/** The same entries in the `/Prefix`, `/Suffix` view (API.md 6). */
const referenceOf = <K extends VocabularyKind>(kind: K) =>
  z.object({
    '@context': context,
    '@type': z.literal(VOCABULARIES[kind].view as (typeof VOCABULARIES)[K]['view']),
    '@id': z.url(),
    id,
    ...termOf(kind, z.string()),
    abbreviation: z.string(),
  });

export const PrefixOut = referenceOf('NamePrefix');
export const SuffixOut = referenceOf('NameSuffix');

/** A person merged into another (API.md 13), as its GET answers it beside the 301: no personal data. */
export const MergedPersonOut = z.object({
  '@context': context,
  '@type': z.literal('Person'),
  '@id': z.url(),
  id: id.describe('The merged person'),
  superceded_by: id.describe('The person it was merged into'),
  CoreMetaData: CoreMetaDataOut.extend({
    live_status: z.literal(0).describe('0: merged into another person'),
    superceded_by: id.describe('The person it was merged into'),
  }),
});

/** An unmerge's answer (API.md 13.1): both persons as GET now shows them. */
export const UnmergeOut = z.object({
  '@type': z.literal('Unmerge'),
  survivor: PersonOut.describe('The person the merge was undone on, without what came from the source'),
  source: PersonOut.describe('The person merged into it, live again under its own id'),
});

/**
 * An erased person's tombstone (API.md 15), as its GET answers it with 410 and its DELETE with 200: the
 * id, and when it was made and erased; nothing personal, not even who created or erased it.
 */
export const ErasedPersonOut = z
  .object({
    '@context': context,
    '@type': z.literal('Person'),
    '@id': z.url(),
    id: id.describe('The erased person: its id is kept, and never given to another person'),
    CoreMetaData: z.object({
      date_created: z.iso.datetime(),
      date_modified: z.iso.datetime().describe('When it was erased'),
      version: z.int().positive().describe('Its version: the one its erasure made'),
      live_status: z.literal(0).describe('0: erased (as a merged person is 0 too)'),
      erased: z.iso.datetime().describe('When it was erased'),
    }),
  })
  .describe('An erased person: its id resolves to this and nothing more');

/**
 * A Person (or a merged or erased person), NamePrefix or NameSuffix as GET /{endpoint}/{object_id} answered it,
 * or null.
 */
const snapshot = z.union([
  PersonOut,
  MergedPersonOut,
  ErasedPersonOut,
  NamePrefixOut,
  NameSuffixOut,
  z.null(),
]);

/** One ChangeHistory entry (API.md 11.5). */
export const ChangeHistoryOut = z.object({
  '@context': context,
  '@type': z.literal('ChangeHistory'),
  '@id': z.url(),
  id: id.describe('Named by the CoreMetaData `created_audit_id`/`modified_audit_id` of the object'),
  endpoint: z.enum(RESOURCE_TYPES).describe('The kind of object that changed'),
  object_id: id.describe('The id of the object that changed'),
  person_fk: id.nullable().describe('The person who asked; null for the service (seed, enrichment)'),
  organization_fk: z.null(),
  team_fk: z.null(),
  type: z
    .enum(Object.values(CHANGE_TYPES))
    .describe(
      'The change: POST (created), PATCH (updated), ENRICH (enriched by the service), MERGE (on both persons of a merge) or ERASE (the person erased)',
    ),
  changed: z.array(z.string()).describe('JSON Pointers of the top-level parts that changed'),
  previous_object: snapshot.describe('The object as GET showed it before the change; null before a create'),
  current_object: snapshot.describe('The object as GET showed it after the change'),
  provider_data: z
    .object({
      request_id: z.string().nullable().describe('The API Gateway request id'),
      user_agent: z.string().nullable(),
      caller: z
        .string()
        .nullable()
        .describe('The authenticated caller: an IAM principal ARN or a JWT subject'),
    } satisfies Record<keyof RequestOrigin, z.ZodType>)
    .describe('Where the change came from; never cookies, tokens or authorization headers'),
  timestamp: z.iso.datetime(),
});

/** What every event of the change feed says alike: CloudEvents 1.0 in JSON (structured mode). */
const specversion = z.literal('1.0');
const source = z.url().describe("The service's base URL");
const datacontenttype = z.literal('application/json');

/** A change's event (API.md 14): thin on purpose. */
const ChangeCloudEventOut = z
  .object({
    specversion,
    id: z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .describe("The change's ChangeHistory entry id, as a string: unique across the feed"),
    source,
    type: z
      .enum(CHANGE_EVENT_TYPES)
      .describe(
        "What changed and how. `person.merged` is the source of a merge (the survivor's side is a " +
          '`person.updated`)',
      ),
    subject: z
      .string()
      .regex(new RegExp(`^(${RESOURCE_TYPES.join('|')})/[1-9][0-9]*$`))
      .describe('The object that changed, `<endpoint>/<id>`: `Person/30863`'),
    time: z.iso.datetime().describe('When the change was written'),
    datacontenttype,
    data: z.object({
      id: id.describe('The id of the object that changed'),
      version: z.int().min(1).describe('Its version after the change (its `CoreMetaData.version`)'),
      changed: z.array(z.string()).describe('JSON Pointers of the top-level parts that changed'),
      requester: id.nullable().describe('The person who asked; null for the service (enrichment)'),
      changeHistory: z
        .url()
        .describe('The ChangeHistory entry of the change, with the object before and after it'),
      superceded_by: id.optional().describe('On `person.merged`: the person it was merged into'),
    }),
  })
  .describe('A change: no personal data, GET the object (or the ChangeHistory entry) for that');

/** A duplicate pair's event (API.md 12.1): the pair found, no ChangeHistory entry. */
const DuplicateCloudEventOut = z
  .object({
    specversion,
    id: z
      .string()
      .regex(/^[1-9][0-9]*$/)
      .describe("The pair's event id, as a string: unique across the feed (no ChangeHistory entry has it)"),
    source,
    type: z.literal(DUPLICATE_DETECTED).describe('A duplicate pair found for the first time'),
    subject: z
      .string()
      .regex(/^duplicates\/[1-9][0-9]*-[1-9][0-9]*$/)
      .describe('The pair, `duplicates/<pair id>`: `duplicates/30863-41207`'),
    time: z.iso.datetime().describe('When the pair was found (its `detected`)'),
    datacontenttype,
    data: z.object({
      id: DuplicatePairOut.shape.id
        .regex(/^[1-9][0-9]*-[1-9][0-9]*$/)
        .describe('The pair id: its two person ids, lower first (`30863-41207`)'),
      persons: DuplicatePairOut.shape.persons.describe('The two persons, lower id first'),
      grade: DuplicatePairOut.shape.grade.describe('`certain`, `probable` or `possible` (API.md 12.1)'),
      score: DuplicatePairOut.shape.score.describe('0 to 100, one decimal'),
    }),
  })
  .describe('A duplicate pair: GET /duplicates/{pairId} for its features and status');

/** One event of the change feed (API.md 14): a change's or a duplicate pair's, told apart by `type`. */
export const CloudEventOut = z
  .discriminatedUnion('type', [ChangeCloudEventOut, DuplicateCloudEventOut])
  .describe('CloudEvents 1.0 in JSON (structured mode), thin on purpose');

/** A page of `GET /events`: events oldest first, and the cursor to ask for the next page with. */
export const EventPageOut = z.object({
  '@context': context,
  '@type': z.literal('EventPage'),
  events: z
    .array(CloudEventOut)
    .max(FEED_DEFAULTS.maxLimit)
    .describe(
      "At most `limit` events, oldest first; each object's in `version` order. Fewer may come while more " +
        'are waiting; none when nothing is new',
    ),
  next: z
    .string()
    .describe(
      'An opaque cursor: send it as `after` to get the events after these. On an empty page it is at ' +
        'least as far as the cursor sent, so polling goes on from it',
    ),
});

/** A page of `GET /duplicates` (API.md 12.1): pairs best first, and the cursor of the next page. */
export const DuplicatePageOut = z.object({
  '@type': z.literal('DuplicatePage'),
  pairs: z
    .array(DuplicatePairOut)
    .max(DUPLICATES_DEFAULTS.maxLimit)
    .describe('At most `limit` pairs, highest score first, then by id'),
  next: z
    .string()
    .nullable()
    .describe('An opaque cursor: send it as `after` for the pairs after these; null on the last page'),
});

/** A webhook subscription (API.md 16), as every answer about it shows it. */
export const SubscriptionOut = z.object({
  '@context': context,
  '@type': z.literal('Subscription'),
  '@id': z.url(),
  id: z.uuid().describe('A random UUID'),
  url: z.url().describe('Where events are POSTed: https, a public address'),
  types: z.array(z.string()).describe('The event types delivered; `*` ends a prefix (`person.*`)'),
  description: z.string().nullable(),
  paused: z.boolean().describe('Nothing is delivered while true; events wait in the feed'),
  paused_reason: z
    .string()
    .nullable()
    .describe('Who paused it, or what its receiver answered when retries ran out or it said 410'),
  CoreMetaData: z.object({
    '@type': z.literal('CoreMetaData'),
    date_created: z.iso.datetime(),
    date_modified: z.iso.datetime(),
    created_by: id,
    modified_by: id,
    version: z.int().positive(),
  }),
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
    .optional()
    .describe(
      'The signing secret (Standard Webhooks): only in the answer of a create or a rotation, never again',
    ),
});

/** A page of `GET /Subscription/{id}/deliveries`: attempts newest first, and where the next page starts. */
export const DeliveryPageOut = z.object({
  '@type': z.literal('DeliveryPage'),
  deliveries: z
    .array(
      z.object({
        event: z.int().positive().describe("The event's id (its `webhook-id`)"),
        type: z.string().describe("The event's type"),
        at: z.iso.datetime().describe('When the attempt started'),
        status: z.int().nullable().describe("The receiver's HTTP status; null when it gave none"),
        outcome: z.enum(['delivered', 'failed', 'timeout', 'refused', 'forbidden']),
        duration_ms: z.int().nonnegative(),
        attempt: z.int().positive().describe('Its number for this event, from 1'),
        error: z.string().optional().describe('What went wrong, when anything did'),
      }),
    )
    .max(DELIVERIES_DEFAULTS.maxLimit),
  next: z.string().nullable().describe('Send it as `after` for older attempts; null on the last page'),
});

/** A replay's answer: the subscription, and the feed cursor its lane goes on after. */
export const ReplayOut = z.object({
  '@context': context,
  '@type': z.literal('Replay'),
  subscription: z.url(),
  after: z.string(),
});

/** RFC 9457 problem+json as lib/http/problems.ts writes it. */
export const ProblemOut = z.object({
  type: z.enum(PROBLEM_TYPE_NAMES.map(problemTypeUri)),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  instance: z.string().describe('The path of the request'),
  errors: z
    .array(
      z.object({
        path: z.string().describe('JSON Pointer of the offending element ("" is the whole body)'),
        message: z.string(),
        existing: z
          .url()
          .optional()
          .describe('The record (a Person, NamePrefix or NameSuffix) that already holds a unique value'),
      }),
    )
    .optional(),
});

/**
 * The response schemas by the name `components.schemas` gives them. A list of a kind of item comes in
 * GRC's list shape (`<Item>List`) and in the PaginatedList envelope (`Paginated<Item>List`).
 */
export const RESPONSE_SCHEMAS = {
  Person: PersonOut,
  MergedPerson: MergedPersonOut,
  Unmerge: UnmergeOut,
  ErasedPerson: ErasedPersonOut,
  PersonExport: PersonExportOut,
  Stub: StubOut,
  StubList: StubListOut,
  PaginatedStubList: paginatedListOf('Stub', StubOut),
  AuditEntry: AuditEntryOut,
  PaginatedAuditEntryList: paginatedListOf('AuditEntry', AuditEntryOut),
  NamePrefix: NamePrefixOut,
  NamePrefixList: offsetListOf(NamePrefixOut, LIST_DEFAULTS.maxLimit),
  PaginatedNamePrefixList: paginatedListOf('NamePrefix', NamePrefixOut),
  NameSuffix: NameSuffixOut,
  NameSuffixList: offsetListOf(NameSuffixOut, LIST_DEFAULTS.maxLimit),
  PaginatedNameSuffixList: paginatedListOf('NameSuffix', NameSuffixOut),
  Prefix: PrefixOut,
  PaginatedPrefixList: paginatedListOf('Prefix', PrefixOut),
  Suffix: SuffixOut,
  PaginatedSuffixList: paginatedListOf('Suffix', SuffixOut),
  ChangeHistory: ChangeHistoryOut,
  ChangeHistoryList: offsetListOf(ChangeHistoryOut, MAX_CHANGES_PER_PAGE),
  PaginatedChangeHistoryList: paginatedListOf('ChangeHistory', ChangeHistoryOut),
  EventPage: EventPageOut,
  DuplicatePair: DuplicatePairOut,
  DuplicatePage: DuplicatePageOut,
  Subscription: SubscriptionOut,
  PaginatedSubscriptionList: paginatedListOf('Subscription', SubscriptionOut),
  DeliveryPage: DeliveryPageOut,
  Replay: ReplayOut,
  Problem: ProblemOut,
} satisfies Record<string, z.ZodType>;

export type ResponseSchemaName = Exclude<keyof typeof RESPONSE_SCHEMAS, 'Problem'>;

// ---------------------------------------------------------------------------------------------------
// Compile-time checks against the builders
// ---------------------------------------------------------------------------------------------------

/** True when the schema's output has exactly the builder's keys and fits the builder's type. */
type Describes<S extends z.ZodType, Built> = [z.output<S>] extends [Built]
  ? [keyof Built] extends [keyof z.output<S>]
    ? [keyof z.output<S>] extends [keyof Built]
      ? true
      : false
    : false
  : false;

/** A type without its index signatures: only the keys it names. */
type KnownKeys<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/**
 * What a vocabulary builder returns for one kind. The builders key the text by `VOCABULARIES[kind].term`,
 * which TypeScript types as an index signature, and type `@type` as any of the kinds; this puts the
 * kind's own key back and narrows `@type` to the kind's, each taken from what the builder's type allows,
 * so the checks still fail when a builder drops, renames or retypes a key.
 */
type ForKind<Built, K extends VocabularyKind, Type extends string> = Omit<KnownKeys<Built>, '@type'> & {
  '@type': Extract<KnownKeys<Built>['@type' & keyof KnownKeys<Built>], Type>;
} & Record<Term<K>, Extract<Built[keyof Built & string], string>>;

type Entry<K extends VocabularyKind> = ForKind<ReturnType<typeof vocabularyOut>, K, K>;
type Reference<K extends VocabularyKind> = ForKind<
  ReturnType<typeof referenceOut>,
  K,
  (typeof VOCABULARIES)[K]['view']
>;

/** The `@type`s of a union of objects; null stays null. */
type TypesOf<T> = T extends { '@type': infer Type } ? Type : T;

/** The entry builder with its two objects typed as what they are, one kind of entry each. */
type ChangeHistoryOf = Omit<ReturnType<typeof changeHistoryOut>, 'previous_object' | 'current_object'> &
  Record<
    'previous_object' | 'current_object',
    | z.output<typeof PersonOut>
    | ReturnType<typeof mergedPersonOut>
    | ReturnType<typeof erasedPersonOut>
    | Entry<'NamePrefix'>
    | Entry<'NameSuffix'>
    | null
  >;

true satisfies Describes<typeof StubOut, Stub>;
true satisfies Describes<typeof PersonExportOut, ReturnType<typeof exportPage<z.output<typeof PersonOut>>>>;
true satisfies Describes<typeof StubListOut, ReturnType<typeof offsetList<Stub>>>;
true satisfies Describes<
  ReturnType<typeof paginatedListOf<typeof StubOut>>,
  ReturnType<typeof paginatedList<Stub>>
>;
true satisfies Describes<typeof AuditEntryOut, ReturnType<typeof auditEntryOut>>;
true satisfies Describes<typeof MergedPersonOut, ReturnType<typeof mergedPersonOut>>;
true satisfies Describes<typeof ErasedPersonOut, ReturnType<typeof erasedPersonOut>>;
true satisfies Describes<typeof NamePrefixOut, Entry<'NamePrefix'>>;
true satisfies Describes<typeof NameSuffixOut, Entry<'NameSuffix'>>;
true satisfies Describes<typeof PrefixOut, Reference<'NamePrefix'>>;
true satisfies Describes<typeof SuffixOut, Reference<'NameSuffix'>>;
true satisfies Describes<typeof ChangeHistoryOut, ChangeHistoryOf>;
// Both ways for what varies: every kind of object (by its `@type`) and every endpoint the builder can
// answer with, so a kind the schema leaves out fails here too.
true satisfies [TypesOf<ChangeHistoryOf['current_object']>] extends [
  TypesOf<z.output<typeof ChangeHistoryOut>['current_object']>,
]
  ? true
  : false;
true satisfies [ChangeEntry['endpoint']] extends [z.output<typeof ChangeHistoryOut>['endpoint']]
  ? true
  : false;
// And the builder's own type admits what the schema says.
true satisfies [z.output<typeof ChangeHistoryOut>] extends [ReturnType<typeof changeHistoryOut>]
  ? true
  : false;
true satisfies Describes<typeof EventPageOut, ReturnType<typeof eventPage>>;
true satisfies Describes<typeof CloudEventOut, ReturnType<typeof eventPage>['events'][number]>;
true satisfies Describes<typeof ProblemOut, ProblemBody>;
true satisfies Describes<typeof DuplicatePageOut, ReturnType<typeof duplicatePage>>;
true satisfies Describes<typeof SubscriptionOut, ReturnType<typeof subscriptionOut>>;
true satisfies Describes<typeof ReplayOut, ReturnType<typeof replayOut>>;
