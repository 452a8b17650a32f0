/** Handlers of ChangeHistory (API.md 11.5): the list across objects and one entry by id. */
import * as z from 'zod';
import type { ChangeHistory, StoredChange } from '../db/change-history';
import { ENDPOINTS } from '../domain/change-history';
import { integer, listQuery, listRequest, offsetList } from '../domain/listing';
import { changeHistoryOut, type Links } from '../domain/representation';
import { readHandler } from './handler';
import { paginatedResponse } from './paged';
import { pathIdOf, queryOf } from './request';
import { ok } from './responses';

/** At most this many entries a page: each carries two whole objects. */
export const MAX_CHANGES_PER_PAGE = 100;

/** `GET /ChangeHistory`: GRC's `endpoint` and `object_id` filters, newest first unless `sort_dir=1`. */
export const ChangeHistoryQuery = listQuery(
  { endpoint: z.enum(ENDPOINTS).optional(), object_id: integer(1, 999_999_999).optional() },
  MAX_CHANGES_PER_PAGE,
);

const out = ({ entry, previous, current }: StoredChange, links: Links) =>
  changeHistoryOut(entry, previous, current, links);

export const changeHistoryListHandler = (history: ChangeHistory) =>
  readHandler().handler(async ({ event, links }) => {
    const query = queryOf(event, ChangeHistoryQuery);
    const request = listRequest(query, [], { descendingByDefault: true });
    const { total, changes } = await history.page({
      endpoint: query.endpoint,
      object_id: query.object_id,
      descending: request.descending,
      window: request.window,
    });
    const items = changes.map((change) => out(change, links));
    return request.page
      ? paginatedResponse(event, links, 'ChangeHistory', request.page, { total, items })
      : ok(offsetList(links.contextUrl, total, request.window.offset, items));
  });

export const changeHistoryItemHandler = (history: ChangeHistory) =>
  readHandler().handler(async ({ event, links }) =>
    ok(out(await history.get(pathIdOf(event, 'ChangeHistory')), links)),
  );
