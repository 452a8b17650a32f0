/**
 * Handlers of the NamePrefix and NameSuffix vocabularies (API.md 11.4) and of their `/Prefix`, `/Suffix`
 * view (API.md 6): the two vocabularies differ only in their names, so each function file picks a kind.
 */
import type { VocabularyRepository } from '../db/vocabulary-repository';
import { listRequest, vocabularyListQuery } from '../domain/listing';
import { referenceOut, resourceUrl, vocabularyOut } from '../domain/representation';
import {
  selectEntries,
  VOCABULARIES,
  type VocabularyBody,
  type VocabularyKind,
  vocabularyBody,
} from '../domain/vocabulary';
import { readHandler, writeHandler } from './handler';
import { listResponse, pagedResponse } from './paged';
import { pathIdOf, queryOf } from './request';
import { created, ok } from './responses';

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

/** GET /{kind}/{id} */
export const vocabularyItemHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  readHandler().handler(async ({ event, links }) =>
    ok(vocabularyOut(kind, await vocabulary.get(kind, pathIdOf(event, kind)), links)),
  );

/** POST /{kind}: 201 with `Location`; a requester that is an existing person (0 is 400). */
export const vocabularyCreateHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  writeHandler(vocabularyBody(kind, true), 'update').handler(async ({ body, requester, write, links }) => {
    const entry = await vocabulary.create(kind, body as VocabularyBody, requester, write);
    return created(vocabularyOut(kind, entry, links), resourceUrl(links.baseUrl, kind, entry.id));
  });

/** PATCH /{kind}/{id}: the entry as GET showed it, with changes. */
export const vocabularyUpdateHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  writeHandler(vocabularyBody(kind, false), 'update').handler(
    async ({ event, body, requester, write, links }) => {
      const entry = await vocabulary.update(
        kind,
        pathIdOf(event, kind),
        body as VocabularyBody,
        requester,
        write,
      );
      return ok(vocabularyOut(kind, entry, links));
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

/** GET /Prefix/{id}, /Suffix/{id} */
export const referenceItemHandler = (kind: VocabularyKind, vocabulary: VocabularyRepository) =>
  readHandler().handler(async ({ event, links }) =>
    ok(referenceOut(kind, await vocabulary.get(kind, pathIdOf(event, VOCABULARIES[kind].view)), links)),
  );
