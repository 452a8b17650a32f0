/** Handlers of ChangeHistory (API.md 11.5): the list across objects and one entry by id. */
import { ChangeHistoryQuery, listRequest } from '../domain/listing';
import type { ChangeHistory, StoredChange } from '../domain/ports/history';
import { changeHistoryOut, type Links } from '../domain/representation';
import { readHandler } from './handler';
import { listResponse } from './paged';
import { pathIdOf, queryOf } from './request';
import { ok } from './responses';

const out = ({ entry, previous, current }: StoredChange, links: Links) =>
  changeHistoryOut(entry, previous, current, links);

/** GET /ChangeHistory: entries across objects, newest first. */
export const changeHistoryListHandler = ({ history }: { history: ChangeHistory }) =>
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
    return listResponse(event, links, 'ChangeHistory', request, { total, items });
  });

/** GET /ChangeHistory/{id} */
export const changeHistoryItemHandler = ({ history }: { history: ChangeHistory }) =>
  readHandler().handler(async ({ event, links }) =>
    ok(out(await history.get(pathIdOf(event, 'ChangeHistory')), links)),
  );
