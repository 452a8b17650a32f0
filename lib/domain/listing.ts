/**
 * Listing (API.md 4 and 6): the query parameters, the stub of a Person, the searchable forms of a
 * Person, and the PaginatedList envelope every paged endpoint answers with.
 */
import * as z from 'zod';
import { RESOURCE_TYPES } from './change-history';
import { decodeFeedCursor, FEED_START, type FeedCursorKey, type FeedPosition } from './feed';
import { fullnameOfPerson, type Person } from './person';
import { integer, unknownParameters } from './query-parameters';
import { personUrl } from './representation';
import { LIMITS, wellFormed } from './schemas';
import { fold } from './text';
import { VOCABULARIES, type VocabularyKind } from './vocabulary';

export { integer, unknownParameters };

export const PAGE_DEFAULTS = { page: 1, perPage: 10, maxPerPage: 100 } as const;
export const LIST_DEFAULTS = { limit: 50, maxLimit: 500, offset: 0 } as const;

export interface PageRequest {
  page: number;
  perPage: number;
}

export const pageRequest = (query: {
  page?: number | undefined;
  perPage?: number | undefined;
}): PageRequest => ({
  page: query.page ?? PAGE_DEFAULTS.page,
  perPage: query.perPage ?? PAGE_DEFAULTS.perPage,
});

export const pageWindow = ({ page, perPage }: PageRequest): Window => ({
  offset: (page - 1) * perPage,
  limit: perPage,
});

const pageShape = {
  page: integer(1, 1_000_000_000).optional(),
  perPage: integer(1, PAGE_DEFAULTS.maxPerPage).optional(),
};

/** `page`/`perPage` of any PaginatedList endpoint (API.md 6). */
export const PageQuery = z.strictObject(pageShape, unknownParameters);

export interface ListRequest<F extends object = Record<string, string | undefined>> {
  filters: F;
  descending: boolean;
  window: Window;
  /** Set when the client paged with `page`/`perPage`: the answer is a PaginatedList. */
  page?: PageRequest;
}

/** A window of the ordered list: `offset` items skipped, at most `limit` taken. */
export interface Window {
  offset: number;
  limit: number;
}

/**
 * The query of a GRC list (API.md 4, 11.4, 11.5): the list's own parameters, `sort_dir`, and either
 * `limit`/`offset` (GRC's `Pagination` list) or `page`/`perPage` (the PaginatedList), never both.
 */
export const listQuery = <S extends z.ZodRawShape>(shape: S, maxLimit: number = LIST_DEFAULTS.maxLimit) =>
  z
    .strictObject(
      {
        ...shape,
        sort_dir: z.enum(['0', '1'], { error: 'Must be 1 (ascending) or 0 (descending)' }).optional(),
        limit: integer(0, maxLimit).optional(),
        offset: integer(0, 1_000_000_000).optional(),
        ...pageShape,
      },
      unknownParameters,
    )
    .superRefine((value, context) => {
      const query = value as ListQueryOutput;
      const paged = query.page !== undefined || query.perPage !== undefined;
      const offsetStyle = query.limit !== undefined || query.offset !== undefined;
      if (paged && offsetStyle)
        context.addIssue({
          code: 'custom',
          path: [query.page !== undefined ? 'page' : 'perPage'],
          message: 'Use either limit/offset or page/perPage, not both',
        });
    });

interface ListQueryOutput {
  sort_dir?: '0' | '1' | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  page?: number | undefined;
  perPage?: number | undefined;
}

/**
 * Turns a validated list query into filters (the set values of `filterKeys`), a direction and a
 * window. `newestFirst` lists (ChangeHistory) run descending unless `sort_dir=1` asks otherwise.
 */
export const listRequest = <Q extends ListQueryOutput, K extends keyof Q & string>(
  query: Q,
  filterKeys: readonly K[],
  { descendingByDefault = false } = {},
): ListRequest<Partial<Record<K, string>>> => {
  const filters = Object.fromEntries(
    filterKeys.flatMap((key) => (query[key] !== undefined ? [[key, String(query[key])]] : [])),
  ) as Partial<Record<K, string>>;
  const descending = query.sort_dir === undefined ? descendingByDefault : query.sort_dir === '0';
  if (query.page !== undefined || query.perPage !== undefined) {
    const page = pageRequest(query);
    return { filters, descending, window: pageWindow(page), page };
  }
  return {
    filters,
    descending,
    window: { offset: query.offset ?? LIST_DEFAULTS.offset, limit: query.limit ?? LIST_DEFAULTS.limit },
  };
};

/** A filter value, folded as stored values are; an empty value is the same as none (API.md 4). */
export const filter = wellFormed(z.string().max(LIMITS.text))
  .transform((value) => fold(value) || undefined)
  .optional();

/**
 * `local_reference_id`: the client's own key, matched exactly (not folded); at most as long as a
 * stored one (API.md 5.2), so a longer one is 400 like a body's. Empty is the same as none.
 */
const localReference = wellFormed(z.string().max(LIMITS.localReferenceId))
  .transform((value) => value || undefined)
  .optional();

/** `GET /Person`: filters, sort and either `limit`/`offset` or `page`/`perPage`, never both. */
export const ListPersonsQuery = listQuery({
  first_name: filter,
  last_name: filter,
  email: filter,
  search: filter,
  local_reference_id: localReference,
});

export type ListPersonsQuery = z.output<typeof ListPersonsQuery>;

/** At most this many ChangeHistory entries a page: each carries two whole objects. */
export const MAX_CHANGES_PER_PAGE = 100;

/** `GET /ChangeHistory`: GRC's `endpoint` and `object_id` filters, newest first unless `sort_dir=1`. */
export const ChangeHistoryQuery = listQuery(
  { endpoint: z.enum(RESOURCE_TYPES).optional(), object_id: integer(1, 999_999_999).optional() },
  MAX_CHANGES_PER_PAGE,
);

/** `GET /NamePrefix`, `GET /NameSuffix`: GRC's parameters (`prefix`, `abbreviation`, `search`). */
export const vocabularyListQuery = (kind: VocabularyKind) =>
  listQuery({ [VOCABULARIES[kind].term]: filter, abbreviation: filter, search: filter });

/** `GET /Person/export`: page sizes, and the longest cursor (a partition and an index key: ~1.6 KB). */
export const EXPORT_DEFAULTS = { limit: 100, maxLimit: 500, maxCursorLength: 4_096 } as const;

/**
 * `GET /Person/export`: `limit` 1..500, and the opaque `cursor` of the previous page's `next` link.
 * Only its form is checked here (base64url, bounded); what it decodes to is storage's to check
 * (lib/db/person/read/person-export.ts), as a position of its own making.
 */
export const ExportPersonsQuery = z.strictObject(
  {
    limit: integer(1, EXPORT_DEFAULTS.maxLimit).optional(),
    cursor: z
      .string()
      .max(EXPORT_DEFAULTS.maxCursorLength, 'Not a cursor of this export: send the one a `next` link holds')
      .regex(/^[A-Za-z0-9_-]+$/, 'Not a cursor of this export: send the one a `next` link holds')
      .optional(),
  },
  unknownParameters,
);

export type ExportPersonsQuery = z.output<typeof ExportPersonsQuery>;

export interface ExportRequest {
  limit: number;
  cursor?: string;
}

export const exportRequest = ({ limit, cursor }: ExportPersonsQuery): ExportRequest => ({
  limit: limit ?? EXPORT_DEFAULTS.limit,
  ...(cursor === undefined ? {} : { cursor }),
});

/** The absolute URL of the page of an export at `path` (below `baseUrl`) that starts at `cursor`. */
export const exportPageUrl = (baseUrl: string, path: string, limit: number, cursor: string): string =>
  `${baseUrl}${path}?${new URLSearchParams({ limit: String(limit), cursor })}`;

/**
 * A page of the export: full Persons as GET /Person/{id} answers them, and the link to the next page,
 * null on the last one. A page may hold fewer than `limit` persons, none even, before the end: a
 * client follows `next` until it is null.
 */
export const exportPage = <T>(contextUrl: string, persons: T[], next: string | null) => ({
  '@context': contextUrl,
  '@type': 'PersonExport' as const,
  '@set': persons,
  next,
});

/**
 * `GET /events` (API.md 14): page sizes, and the longest cursor (eight positions and a MAC: at most 113
 * characters).
 */
export const FEED_DEFAULTS = { limit: 100, maxLimit: 500, maxCursorLength: 128 } as const;

export const NOT_A_FEED_CURSOR =
  'Not a cursor of this feed: send the `next` of a page it answered, or leave `after` out to start at the first event';

const feedQueryOf = <A extends z.ZodType>(after: A) =>
  z.strictObject(
    { after: after.optional(), limit: integer(1, FEED_DEFAULTS.maxLimit).optional() },
    unknownParameters,
  );

const cursorText = () => z.string().max(FEED_DEFAULTS.maxCursorLength, NOT_A_FEED_CURSOR);

/**
 * `GET /events`: `after`, the `next` of an earlier page (opaque), and `limit` 1..500, as the documents
 * show them. The handler reads the query with `listEventsQuery`, which also checks the cursor's MAC.
 */
export const ListEventsQuery = feedQueryOf(cursorText());

const keyedQueries = new Map<FeedCursorKey, ReturnType<typeof keyedQuery>>();
const keyedQuery = (key: FeedCursorKey) =>
  feedQueryOf(
    cursorText().transform((cursor, context): FeedPosition => {
      const position = decodeFeedCursor(cursor, key);
      if (position) return position;
      context.addIssue({ code: 'custom', message: NOT_A_FEED_CURSOR });
      return z.NEVER;
    }),
  );

/**
 * `GET /events`'s query read with the feed's key: a cursor the feed did not issue with it (altered,
 * truncated, made up, or another server's) is refused (lib/domain/feed.ts `decodeFeedCursor`). One
 * schema per key, built once.
 */
export const listEventsQuery = (key: FeedCursorKey) => {
  let schema = keyedQueries.get(key);
  if (!schema) {
    schema = keyedQuery(key);
    keyedQueries.set(key, schema);
  }
  return schema;
};

export interface FeedRequest {
  /** Where the page starts: the position `after` holds, or before the first event. */
  position: FeedPosition;
  limit: number;
}

export const feedRequest = ({ after, limit }: z.output<ReturnType<typeof listEventsQuery>>): FeedRequest => ({
  position: after ?? FEED_START,
  limit: limit ?? FEED_DEFAULTS.limit,
});

export interface PersonFilters {
  first_name?: string;
  last_name?: string;
  email?: string;
  search?: string;
}

export interface PersonListRequest extends ListRequest<PersonFilters> {
  /** Only the persons whose root `local_reference_id` is exactly this (API.md 4). */
  localReferenceId?: string;
}

/** Turns the validated query into what storage needs: filters, direction and a window. */
export const personListRequest = ({ local_reference_id, ...query }: ListPersonsQuery): PersonListRequest => ({
  ...listRequest(query, ['first_name', 'last_name', 'email', 'search']),
  ...(local_reference_id === undefined ? {} : { localReferenceId: local_reference_id }),
});

/** GRC's list shape (API.md 4, 11.4): `Pagination` with count, limit and offset, and the `@set`. */
export const offsetList = <T>(contextUrl: string, count: number, offset: number, items: T[]) => ({
  '@context': contextUrl,
  Pagination: { '@context': contextUrl, '@type': 'Pagination', count, limit: items.length, offset },
  '@set': items,
});

/**
 * The folded, searchable forms of a Person, one string per filter with values separated by a line
 * break (which no folded filter value can contain, so a match never spans two values). Each value is
 * cut to the length of a field: folding can expand a character many times (NFKD turns U+FDFA into 18),
 * and these strings live in the Person item and the index. `search` matches these and `rest`: the
 * fullname and the freeform names, so nothing is stored twice.
 */
export const searchableForms = (person: Person) => {
  const folded = (value: string) => fold(value).slice(0, LIMITS.text);
  const join = (values: (string | null | undefined)[]) =>
    values.flatMap((value) => (value ? [folded(value)] : [])).join('\n');
  return {
    first_name: join(person.Names.map((name) => name.first_name)),
    last_name: join(person.Names.map((name) => name.last_name)),
    email: join(person.Emails.map((item) => item.email)),
    rest: join([fullnameOfPerson(person), ...person.Names.map((name) => name.freeform_name)]),
  };
};

export interface PersonSummary {
  id: number;
  fullname: string;
}

export const toStub = ({ id, fullname }: PersonSummary, baseUrl: string, contextUrl: string) => ({
  '@context': contextUrl,
  '@type': 'Stub',
  '@id': personUrl(baseUrl, id),
  id,
  property_name: 'fullname',
  property_value: fullname,
  thing_type: 'Person',
});

export type Stub = ReturnType<typeof toStub>;

/**
 * The absolute URL of any page of a list at `path` (below `baseUrl`): its query kept, `page` and
 * `perPage` set (API.md 6: links keep the other query parameters).
 */
export const listPageUrl =
  (baseUrl: string, path: string, query: string) =>
  (page: number, perPage: number): string => {
    const parameters = new URLSearchParams(query);
    parameters.set('page', String(page));
    parameters.set('perPage', String(perPage));
    return `${baseUrl}${path}?${parameters}`;
  };

/**
 * The PaginatedList envelope (API.md 6). `pageUrl` builds the absolute URL of any page of the same
 * list, keeping the request's other query parameters.
 */
export const paginatedList = <T>({
  itemType,
  items,
  total,
  request: { page, perPage },
  pageUrl,
  contextUrl,
}: {
  itemType: string;
  items: T[];
  total: number;
  request: PageRequest;
  pageUrl: (page: number, perPage: number) => string;
  contextUrl: string;
}) => {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  return {
    '@context': contextUrl,
    '@id': pageUrl(page, perPage),
    '@type': 'PaginatedList',
    itemType,
    page,
    perPage,
    total,
    previousPage: page > 1 ? pageUrl(Math.min(page - 1, lastPage), perPage) : null,
    nextPage: page < lastPage ? pageUrl(page + 1, perPage) : null,
    items,
  };
};
