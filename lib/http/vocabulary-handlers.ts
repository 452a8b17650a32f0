/**
 * Handlers of the NamePrefix and NameSuffix vocabularies (API.md 11.4) and of their `/Prefix`, `/Suffix`
 * view (API.md 6): the two vocabularies differ only in their names, so each function file picks a kind.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { listRequest, vocabularyListQuery } from '../domain/listing';
import type { VocabularyRepository } from '../domain/ports/vocabulary';
import { etagOf, referenceOut, resourceUrl, vocabularyOut } from '../domain/representation';
import {
  selectEntries,
  VOCABULARIES,
  type VocabularyBody,
  type VocabularyEntry,
  type VocabularyKind,
  vocabularyBody,
} from '../domain/vocabulary';
import type { HttpConfig } from './config';
import { readHandler, writeHandler } from './handler';
import { type IdempotencyOptions, keyedWrites } from './idempotency';
import { listResponse, pagedResponse } from './paged';
import { notModifiedRead, preconditionsOf } from './preconditions';
import { pathIdOf, queryOf } from './request';
import { type ApiResponse, created, notModified, ok } from './responses';

/** An answer about one entry, with the entry's version as its ETag (API.md 2.1). */
const tagged = (response: ApiResponse, entry: VocabularyEntry): ApiResponse => ({
  ...response,
  headers: { ...response.headers, ETag: etagOf(entry) },
});

/**
 * GET of an entry, or of its view: 412 when If-Match does not name the entry's current version, 304
 * when If-None-Match does.
 */
const entryOrNotModified = (
  event: APIGatewayProxyEventV2,
  kind: VocabularyKind,
  entry: VocabularyEntry,
  body: unknown,
): ApiResponse =>
  notModifiedRead(event, entry.CoreMetaData.version, kind)
    ? notModified(etagOf(entry))
    : tagged(ok(body), entry);

/** GET /{kind}: ordered by id, filtered, as GRC's list or (with page/perPage) a PaginatedList. */
export const vocabularyListHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) => {
  const query = vocabularyListQuery(kind);
  const { term } = VOCABULARIES[kind];
  return readHandler().handler(async ({ event, links }) => {
    const request = listRequest(queryOf(event, query) as Record<string, string | undefined>, [
      term,
      'abbreviation',
      'search',
    ]);
    const { filters } = request;
    const entries = selectEntries(
      await vocabulary.list(kind),
      { term: filters[term], abbreviation: filters.abbreviation, search: filters.search },
      request.descending,
    );
    const { offset, limit } = request.window;
    const items = entries.slice(offset, offset + limit).map((entry) => vocabularyOut(kind, entry, links));
    return listResponse(event, links, kind, request, { total: entries.length, items });
  });
};

/** GET /{kind}/{id}: with its ETag; 304 when If-None-Match names the current version. */
export const vocabularyItemHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  readHandler().handler(async ({ event, links }) => {
    const entry = await vocabulary.get(kind, pathIdOf(event, kind));
    return entryOrNotModified(event, kind, entry, vocabularyOut(kind, entry, links));
  });

/**
 * POST /{kind}: 201 with `Location` and `ETag`; a requester that is an existing person (0 is 400).
 * `idempotency`: where keyed writes keep their answers (API.md 5.6); every deployed function has it.
 */
export const vocabularyCreateHandler = (
  kind: VocabularyKind,
  vocabulary: VocabularyRepository,
  idempotency?: IdempotencyOptions,
  config?: HttpConfig,
) =>
  writeHandler(vocabularyBody(kind, true), 'update', { once: keyedWrites(idempotency), config }).handler(
    async ({ body, requester, write, links }) => {
      const entry = await vocabulary.create(kind, body as VocabularyBody, requester, write);
      return tagged(
        created(vocabularyOut(kind, entry, links), resourceUrl(links.baseUrl, kind, entry.id)),
        entry,
      );
    },
  );

/**
 * PATCH /{kind}/{id}: the entry as GET showed it, with changes; If-Match and If-None-Match, when sent,
 * must hold for the version it lands on.
 */
export const vocabularyUpdateHandler = (
  kind: VocabularyKind,
  vocabulary: VocabularyRepository,
  idempotency?: IdempotencyOptions,
  config?: HttpConfig,
) =>
  writeHandler(vocabularyBody(kind, false), 'update', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) => {
      const entry = await vocabulary.update(kind, pathIdOf(event, kind), body as VocabularyBody, requester, {
        ...write,
        conditions: preconditionsOf(event),
      });
      return tagged(ok(vocabularyOut(kind, entry, links)), entry);
    },
  );

/** GET /Prefix, /Suffix: the same entries in the PaginatedList envelope, by id. */
export const referenceListHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  readHandler().handler(async ({ event, links }) =>
    pagedResponse(event, links, VOCABULARIES[kind].view, async ({ offset, limit }) => {
      const entries = selectEntries(await vocabulary.list(kind), {}, false);
      return {
        total: entries.length,
        items: entries.slice(offset, offset + limit).map((entry) => referenceOut(kind, entry, links)),
      };
    }),
  );

/** GET /Prefix/{id}, /Suffix/{id}: a view of the entry, so with the entry's ETag (and 304). */
export const referenceItemHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  readHandler().handler(async ({ event, links }) => {
    const entry = await vocabulary.get(kind, pathIdOf(event, VOCABULARIES[kind].view));
    return entryOrNotModified(event, kind, entry, referenceOut(kind, entry, links));
  });
