/**
 * A traffic mix (`npm run capacity -- --mix FILE`): requests a second per operation, the filters by
 * how rare their rarest gram is, imports, enrichment, the feed's consumers. Parsed at the boundary.
 */
import { z } from 'zod';

const rate = z.number().min(0);
const share = z.number().min(0).max(1);

export const Mix = z.strictObject({
  name: z.string().default('unnamed mix'),
  /** Overridden by `--persons`. */
  persons: z.number().int().positive().optional(),
  /** Regions serving the API: only 1 is modelled (a second needs a home region for writes). */
  regions: z.number().int().positive().default(1),
  /** The typical person: what one create sends (defaults to the bench's). */
  person: z
    .strictObject({
      first_name: z.string().min(1),
      last_name: z.string().min(1),
      email: z.string().includes('@'),
      local_reference_id: z.string().optional(),
    })
    .optional(),
  /** Share of persons holding the typical person's busiest posting prefix (1: all, the worst case). */
  commonPrefixShare: share.default(1),
  /** ChangeHistory entries a person has on average over its life (its create, PATCHes, merges). */
  historyEntriesPerPerson: z.number().min(1).default(2),
  /** Requests a second, per operation. */
  rates: z
    .strictObject({
      create: rate.default(0),
      patch: rate.default(0),
      get: rate.default(0),
      list: rate.default(0),
      merge: rate.default(0),
      history: rate.default(0),
    })
    .default({ create: 0, patch: 0, get: 0, list: 0, merge: 0, history: 0 }),
  /**
   * Filtered lists: `share` of persons hold the filter's rarest gram; `length` its code points;
   * `others`, the list's other fragments (`length` each, the share of candidates `holding` it, and
   * where known the `share` of persons holding its rarest gram, which lets the list read that gram
   * instead of checking the candidates when it costs less: lib/db/person/read/list-plan.ts).
   */
  filters: z
    .array(
      z.strictObject({
        name: z.string(),
        rate,
        share,
        length: z.number().int().min(1),
        others: z
          .array(z.strictObject({ length: z.number().int().min(1), holding: share, share: share.optional() }))
          .default([]),
      }),
    )
    .default([]),
  /** Reconciliation queries a second; `share` of persons hold the name's rarest gram. */
  reconcile: z.strictObject({ rate, share }).default({ rate: 0, share: 0 }),
  /** `npm run import` lines a second (each a create with an Idempotency-Key). */
  import: z.strictObject({ rate }).default({ rate: 0 }),
  /** Share of created persons that enrichment finds something for (and so writes). */
  enrichment: z.strictObject({ share }).default({ share: 0 }),
  /** Consumers of GET /events, each polling every `pollSeconds`, `limit` events a page. */
  feed: z
    .strictObject({
      consumers: z.number().int().min(0),
      pollSeconds: z.number().positive(),
      limit: z.number().int().min(1).max(1_000).default(100),
    })
    .default({ consumers: 0, pollSeconds: 5, limit: 100 }),
  /**
   * A what-if shard design (operations.ts's `Design`: list and posting shards, person counter, change
   * counter and feed shards), each where it is not the code's. Moving to it is a code change and a
   * migration of the keys that hold a shard; the model prices it as if done.
   */
  design: z
    .strictObject({
      listShards: z.number().int().positive(),
      personCounterShards: z.number().int().positive(),
      changeShards: z.number().int().positive(),
      feedShards: z.number().int().positive(),
    })
    .partial()
    .default({}),
  /** The stage's throttle (deploy option `throttleRate`), when not the stack's default. */
  throttleRate: z.number().positive().optional(),
  /** Milliseconds a Lambda invocation takes, per operation, where not the model's assumption. */
  durationsMs: z.record(z.string(), z.number().positive()).default({}),
});

export type Mix = z.infer<typeof Mix>;
