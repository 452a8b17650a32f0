/**
 * Handlers of the Prefix and Suffix reference lists: the two are alike but for their names, so each
 * function file only picks its kind.
 */
import type { ReferenceData, ReferenceKind } from '../db/reference-data';
import { NotFound } from '../domain/errors';
import { referenceOut } from '../domain/representation';
import { readHandler } from './handler';
import { pagedResponse } from './paged';
import { pathIdOf } from './request';
import { ok } from './responses';

/** GET /{kind}: the seeded list in the PaginatedList envelope. */
export const referenceListHandler = (kind: ReferenceKind, reference: ReferenceData) =>
  readHandler().handler(async ({ event, links }) =>
    pagedResponse(event, links, kind, async ({ offset, limit }) => {
      const all = await reference.list(kind);
      return {
        total: all.length,
        items: all.slice(offset, offset + limit).map((item) => referenceOut(kind, item, links)),
      };
    }),
  );

/** GET /{kind}/{id}: one item, or 404. */
export const referenceItemHandler = (kind: ReferenceKind, reference: ReferenceData) =>
  readHandler().handler(async ({ event, links }) => {
    const id = pathIdOf(event, kind);
    const item = await reference.get(kind, id);
    if (!item) throw new NotFound(kind, id);
    return ok(referenceOut(kind, item, links));
  });
