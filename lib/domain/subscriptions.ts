/**
 * Webhook subscriptions (API.md 16): what a subscriber sends and is shown, which feed events a
 * subscription takes (`types`, where `*` ends a prefix), and its signing secrets: a new one shown once,
 * kept sealed (lib/webhooks/secret-box.ts), and after a rotation both signing for 24 hours. Pure:
 * storage is lib/db/webhooks/, the URL's check lib/webhooks/url-guard.ts.
 */
import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { EVENT_TYPES } from './feed';
import { integer, unknownParameters } from './query-parameters';
import type { Links } from './representation';
import { closedObject, readOnly, text } from './schemas';

/** The Standard Webhooks secret prefix; the rest is base64 of the key (Standard Webhooks 1.0). */
export const SECRET_PREFIX = 'whsec_';

/** Bytes of a signing key: 32, as HMAC-SHA256's block wants at least (Standard Webhooks: 24 to 64). */
const SECRET_BYTES = 32;

/** How long a rotated secret keeps signing beside the new one (API.md 16: 24 hours). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** A URL no longer than browsers and API Gateway take in practice; its scheme and host are checked later. */
const MAX_URL_LENGTH = 2048;
const MAX_TYPES = 20;
const MAX_DESCRIPTION = 500;

/** Whether a pattern of `types` matches an event type: itself, or a prefix before `*`. */
export const typeMatches = (pattern: string, type: string) =>
  pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type;

/** Whether a subscription of these `types` takes an event of this type. */
export const takesType = (types: readonly string[], type: string) =>
  types.some((pattern) => typeMatches(pattern, type));

/**
 * A pattern is refused when it matches no event type the feed has: a typo (`person.create`) would
 * otherwise subscribe to nothing, silently.
 */
const typePattern = z
  .string()
  .max(64)
  .refine((pattern) => EVENT_TYPES.some((type) => typeMatches(pattern, type)), {
    error: `Not an event type: one of ${EVENT_TYPES.join(', ')}, or a prefix ending in * (person.*, *)`,
  });

const url = z.string().min(1).max(MAX_URL_LENGTH);
const types = z.array(typePattern).min(1).max(MAX_TYPES);
const description = text.max(MAX_DESCRIPTION).nullable();

/** What GET shows and a client may send back unchanged: ignored on writes. */
const shown = { id: readOnly, paused_reason: readOnly, CoreMetaData: readOnly };

/** POST /Subscription: a URL, the event types (all of them when left out), a description. */
export const SubscriptionBody = closedObject({
  '@type': z.literal('Subscription').optional(),
  url,
  types: types.optional(),
  description: description.optional(),
  ...shown,
});
export type SubscriptionBody = z.output<typeof SubscriptionBody>;

/** PATCH /Subscription/{id}: any of `url`, `types`, `description`, `paused`. */
export const SubscriptionPatch = closedObject({
  '@type': z.literal('Subscription').optional(),
  url: url.optional(),
  types: types.optional(),
  description: description.optional(),
  paused: z.boolean().optional(),
  ...shown,
});
export type SubscriptionPatch = z.output<typeof SubscriptionPatch>;

/** A subscription's id: a random UUID, so that none is guessed from another and no counter is shared. */
export const isSubscriptionId = (id: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id);

/** A signing secret as it is kept: sealed, and when it stops signing (none while it is the newest). */
export interface SealedSecret {
  sealed: string;
  created: string;
  expires?: string;
}

export interface SubscriptionMetaData {
  date_created: string;
  date_modified: string;
  created_by: number;
  modified_by: number;
  version: number;
}

/** A subscription as it is shown (without its secrets). */
export interface Subscription {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  paused: boolean;
  /** Why it was paused: by whom, or what its receiver answered (API.md 16); null when it is not. */
  paused_reason: string | null;
  CoreMetaData: SubscriptionMetaData;
}

/** A subscription as it is kept: with its sealed secrets, newest last. */
export interface StoredSubscription extends Subscription {
  secrets: SealedSecret[];
}

/** A new signing secret, as the subscriber is shown it once: `whsec_` and base64 of 32 random bytes. */
export const newSecret = () => `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;

export interface SubscriptionWrite {
  requester: number;
  now: Date;
}

/** The subscription a POST makes, with its first secret (sealed by the caller). */
export const newSubscription = (
  id: string,
  body: SubscriptionBody,
  sealed: string,
  { requester, now }: SubscriptionWrite,
): StoredSubscription => {
  const at = now.toISOString();
  return {
    id,
    url: body.url,
    types: body.types ?? ['*'],
    description: body.description ?? null,
    paused: false,
    paused_reason: null,
    CoreMetaData: {
      date_created: at,
      date_modified: at,
      created_by: requester,
      modified_by: requester,
      version: 1,
    },
    secrets: [{ sealed, created: at }],
  };
};

/** The next version of a subscription, when anything changed: who and when, one version on. */
const touched = (
  stored: StoredSubscription,
  next: StoredSubscription,
  { requester, now }: SubscriptionWrite,
) => ({
  ...next,
  CoreMetaData: {
    ...stored.CoreMetaData,
    date_modified: now.toISOString(),
    modified_by: requester,
    version: stored.CoreMetaData.version + 1,
  },
});

/**
 * A PATCH applied: the fields sent replace the stored ones. Pausing by hand says who paused it;
 * resuming clears the reason, whatever paused it. Null when nothing would change (nothing is written).
 */
export const patchedSubscription = (
  stored: StoredSubscription,
  patch: SubscriptionPatch,
  write: SubscriptionWrite,
): StoredSubscription | null => {
  const paused = patch.paused ?? stored.paused;
  const next: StoredSubscription = {
    ...stored,
    url: patch.url ?? stored.url,
    types: patch.types ?? stored.types,
    description: patch.description === undefined ? stored.description : patch.description,
    paused,
    paused_reason:
      paused === stored.paused ? stored.paused_reason : paused ? `Paused by person ${write.requester}` : null,
  };
  const same =
    next.url === stored.url &&
    next.description === stored.description &&
    next.paused === stored.paused &&
    next.types.join('\n') === stored.types.join('\n');
  return same ? null : touched(stored, next, write);
};

/**
 * Paused by the service itself, saying why (API.md 16: retries ran out, or the receiver answered
 * 410): one version on, `modified_by` left as the last person's.
 */
export const pausedByService = (
  stored: StoredSubscription,
  reason: string,
  now: Date,
): StoredSubscription => ({
  ...stored,
  paused: true,
  paused_reason: reason,
  CoreMetaData: {
    ...stored.CoreMetaData,
    date_modified: now.toISOString(),
    version: stored.CoreMetaData.version + 1,
  },
});

/**
 * A rotation: the new secret (sealed) becomes the newest; the one that was newest signs on for 24
 * hours; one already past its time is dropped.
 */
export const rotatedSubscription = (
  stored: StoredSubscription,
  sealed: string,
  write: SubscriptionWrite,
): StoredSubscription => {
  const at = write.now.toISOString();
  const until = new Date(write.now.getTime() + ROTATION_OVERLAP_MS).toISOString();
  const kept = stored.secrets
    .filter((secret) => secret.expires === undefined || secret.expires > at)
    .map((secret) => (secret.expires === undefined ? { ...secret, expires: until } : secret));
  return touched(stored, { ...stored, secrets: [...kept, { sealed, created: at }] }, write);
};

/** The secrets that sign at `now`: the newest, and any rotated away less than 24 hours ago. */
export const signingSecrets = (stored: Pick<StoredSubscription, 'secrets'>, now: Date) => {
  const at = now.toISOString();
  return stored.secrets.filter((secret) => secret.expires === undefined || secret.expires > at);
};

/** A subscription's URL in the API. */
export const subscriptionUrl = (baseUrl: string, id: string) => `${baseUrl}/Subscription/${id}`;

/**
 * A subscription as every answer about it shows it: never its sealed secrets; `secret` only in the
 * answer that made it (a create, a rotation), the one time the subscriber is shown it.
 */
export const subscriptionOut = (
  { secrets: _secrets, CoreMetaData, ...subscription }: StoredSubscription,
  links: Links,
  secret?: string,
) => ({
  '@context': links.contextUrl,
  '@type': 'Subscription' as const,
  '@id': subscriptionUrl(links.baseUrl, subscription.id),
  ...subscription,
  CoreMetaData: { '@type': 'CoreMetaData' as const, ...CoreMetaData },
  ...(secret === undefined ? {} : { secret }),
});

/** A page of `GET /Subscription/{id}/deliveries`: `limit` 1..100 (default 50), newest first. */
export const DELIVERIES_DEFAULTS = { limit: 50, maxLimit: 100 } as const;

const NOT_A_DELIVERIES_CURSOR = 'Not a cursor of this list: send the `next` of a page it answered';

/**
 * `GET /Subscription/{id}/deliveries`: `limit`, and `after`, the `next` of an earlier page (where an
 * attempt sits in the list, no personal data: a time, an event id, an attempt number).
 */
export const DeliveriesQuery = z.strictObject(
  {
    limit: integer(1, DELIVERIES_DEFAULTS.maxLimit).optional(),
    after: z
      .string()
      .regex(/^DELIVERY#\d{13}#\d{16}#\d{1,6}$/, NOT_A_DELIVERIES_CURSOR)
      .optional(),
  },
  unknownParameters,
);

/** The answer of `GET /Subscription/{id}/deliveries`: attempts newest first, and where the next page starts. */
export const deliveryPage = <D>(deliveries: D[], next: string | null) => ({
  '@type': 'DeliveryPage' as const,
  deliveries,
  next,
});

/** `POST /Subscription/{id}/replay`: the feed cursor to deliver again after (a `next` of `GET /events`). */
export const ReplayBody = closedObject({ after: z.string().min(1).max(128) });

/** What a replay answers: the subscription, and the cursor its lane goes on after. */
export const replayOut = (id: string, after: string, links: Links) => ({
  '@context': links.contextUrl,
  '@type': 'Replay' as const,
  subscription: subscriptionUrl(links.baseUrl, id),
  after,
});
