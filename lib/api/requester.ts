import type { WriteCallers } from '../domain/principal';

/**
 * Who a write may name as its requester (`x-requester-person`, API.md 5.1) and, with requester binding
 * on (API.md 9.1), who may send it at all:
 * - `create`: 0 (a person registering themselves) or an existing person's id;
 * - `update`: an existing person's id;
 * - `delegate`: an existing person's id, and with binding on a delegate's operation (anyone else 403
 *   `delegate-required`, nothing written): the write rewrites who someone is, as binding a principal
 *   does (a merge moves the source's binding to the survivor; the unmerge and a duplicate pair's
 *   decision will too).
 * Write routes state theirs once, to `writeHandler` (lib/http), which reads the header and checks the
 * caller by it; lib/docs describes it.
 */
export type RequesterRule = 'create' | 'update' | 'delegate';

/** Who may send a write of this rule with binding on (lib/domain/principal.ts `requesterRuling`). */
export const callersOf = (rule: RequesterRule): WriteCallers =>
  rule === 'delegate' ? 'delegates' : 'persons';
