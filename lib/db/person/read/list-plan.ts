/**
 * What a filtered list's reads of the postings cost in read units, and which of two ways to apply a
 * filter other than the one read first is cheaper (issue #60): posting-search.ts decides with these
 * figures, and the capacity model (lib/capacity/operations.ts) prices its lists with the same ones.
 *
 * Once the rarest probe is read, a list holds its candidates (C of them). Each other filter is then
 * either
 * - checked: one item a candidate by BatchGetItem (a posting of its check gram, or the person for a
 *   fragment under 3 code points), half a unit each, C × 0.5; or
 * - intersected: its own rarest probe read whole (a Query per shard, charged on the bytes read, about
 *   68 postings a unit), and the candidates kept whose id is among its postings holding the fragment.
 * `first_name=mari&last_name=owski` at 100 000 persons read "ows" (7 735 postings) and checked its
 * candidates for 3 995.5 units in all, where reading "ari" (20 000) whole costs about 300.
 */
import { readUnits } from '../../table/item-size';
import { PERSON_LIST_SHARDS } from '../../table/keys';
import { MAX_QUERY_LIMIT } from './list-reads';

/**
 * A posting's stored bytes as the list prices it before reading one: its key, fullname and values.
 * The bench's seeded postings average 121 (20 000 of "ari" read for 296 units); a posting with long
 * emails is larger, which moves the choice only where the two ways cost about the same.
 */
export const POSTING_BYTES_ESTIMATE = 120;

/** The read units and Queries of one shard's `postings` read whole, in pages of `MAX_QUERY_LIMIT`. */
export const shardReadUnits = (postings: number, postingBytes: number) => {
  const pages = Math.max(1, Math.ceil(postings / MAX_QUERY_LIMIT));
  return { pages, rcu: pages * readUnits((postings * postingBytes) / pages) };
};

/** A probe of `postings` read whole, a Query per shard, its postings split evenly between them. */
export const probeReadUnits = (postings: number, postingBytes = POSTING_BYTES_ESTIMATE) =>
  PERSON_LIST_SHARDS * shardReadUnits(postings / PERSON_LIST_SHARDS, postingBytes).rcu;

/** `candidates` checked one item each (an item under 4 KB, eventually consistent: half a unit). */
export const checkUnits = (candidates: number, itemBytes = POSTING_BYTES_ESTIMATE) =>
  candidates * readUnits(itemBytes);

/** How a filter other than the one read first is applied to the candidates. */
export type OtherFilterStep = 'check' | 'intersect';

/**
 * The cheaper way to apply a filter to `candidates`, given the postings of its rarest probe (none: a
 * fragment of one code point, which only a check can apply). A tie checks: it reads fewer items.
 */
export const cheaperStep = (candidates: number, probePostings: number | undefined): OtherFilterStep =>
  probePostings !== undefined && probeReadUnits(probePostings) < checkUnits(candidates)
    ? 'intersect'
    : 'check';
