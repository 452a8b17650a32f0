/**
 * Webhook subscriptions (API.md 16): create (the secret shown once), list, read, patch, delete and
 * rotate. Writes are authorized as person writes (the requester rule `update`); a URL is checked by
 * the SSRF guard (lib/webhooks/url-guard.ts) before anything is stored.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { NotFound } from '../domain/errors';
import type { SecretBox, SubscriptionStore } from '../domain/ports/subscriptions';
import { etagOf } from '../domain/representation';
import {
  isSubscriptionId,
  newSecret,
  newSubscription,
  patchedSubscription,
  rotatedSubscription,
  type StoredSubscription,
  SubscriptionBody,
  SubscriptionPatch,
  subscriptionOut,
  subscriptionUrl,
} from '../domain/subscriptions';
import { allowsLoopback, checkWebhookUrl, type Resolve } from '../webhooks/url-guard';
import type { HttpConfig } from './config';
import { readHandler, writeHandler } from './handler';
import { type IdempotencyOptions, keyedWrites } from './idempotency';
import { pagedResponse } from './paged';
import { notModifiedRead, preconditionsOf } from './preconditions';
import { type ApiResponse, created, noContent, notModified, ok } from './responses';

export interface SubscriptionDeps {
  subscriptions: SubscriptionStore;
}

export interface SubscriptionWriteDeps extends SubscriptionDeps {
  /** Seals a new secret before it is stored (KMS deployed). */
  box: SecretBox;
  /** How a URL's host is resolved for its check; tests give their own. */
  resolve?: Resolve;
  /** Without it `Idempotency-Key` is not honoured: the deployed functions have it. */
  idempotency?: IdempotencyOptions;
  config?: HttpConfig;
}

/** The `{id}` of the path: anything but a subscription's UUID names none (404). */
export const subscriptionIdOf = (event: APIGatewayProxyEventV2) => {
  const id = event.pathParameters?.id ?? '';
  if (!isSubscriptionId(id)) throw new NotFound('Subscription', id);
  return id;
};

/** An answer about one subscription, its version as its ETag. */
const tagged = (response: ApiResponse, stored: StoredSubscription): ApiResponse => ({
  ...response,
  headers: { ...response.headers, ETag: etagOf(stored) },
});

/** The URL as it is kept (WHATWG's form), once the guard took it: https, and a public address. */
const checkedUrl = async (url: string, resolve: Resolve | undefined) =>
  (await checkWebhookUrl(url, { allowLoopback: allowsLoopback(), ...(resolve ? { resolve } : {}) })).url.href;

/**
 * A keyed create or rotation keeps its answer for a retry (API.md 5.6), and that answer holds the
 * secret: it is kept sealed like the subscription's own, and opened for whoever gets it.
 */
const secretSealedWhileKept = (box: SecretBox, idempotency: IdempotencyOptions | undefined) =>
  idempotency && {
    ...idempotency,
    kept: {
      seal: async (body: Record<string, unknown>) =>
        typeof body.secret === 'string'
          ? { ...body, secret: await box.seal(body.secret, `answer:${body.id}`) }
          : body,
      open: async (body: Record<string, unknown>) =>
        typeof body.secret === 'string'
          ? { ...body, secret: await box.open(body.secret, `answer:${body.id}`) }
          : body,
    },
  };

/** GET /Subscription: every subscription, oldest first, in the PaginatedList envelope. */
export const listSubscriptionsHandler = ({ subscriptions }: SubscriptionDeps) =>
  readHandler().handler(async ({ event, links }) =>
    pagedResponse(event, links, 'Subscription', async ({ offset, limit }) => {
      const all = await subscriptions.list();
      return {
        total: all.length,
        items: all.slice(offset, offset + limit).map((stored) => subscriptionOut(stored, links)),
      };
    }),
  );

/** GET /Subscription/{id}: with its ETag; 304 when If-None-Match names the current version. */
export const getSubscriptionHandler = ({ subscriptions }: SubscriptionDeps) =>
  readHandler().handler(async ({ event, links }) => {
    const stored = await subscriptions.get(subscriptionIdOf(event));
    return notModifiedRead(event, stored.CoreMetaData.version, 'Subscription')
      ? notModified(etagOf(stored))
      : tagged(ok(subscriptionOut(stored, links)), stored);
  });

/** POST /Subscription: 201 with `Location`, `ETag` and the signing secret, shown this once. */
export const createSubscriptionHandler = ({
  subscriptions,
  box,
  resolve,
  idempotency,
  config,
}: SubscriptionWriteDeps) =>
  writeHandler(SubscriptionBody, 'update', {
    once: keyedWrites(secretSealedWhileKept(box, idempotency)),
    config,
  }).handler(async ({ body, requester, write, links }) => {
    const url = await checkedUrl(body.url, resolve);
    const id = randomUUID();
    const secret = newSecret();
    const made = newSubscription(id, { ...body, url }, await box.seal(secret, id), {
      requester,
      now: new Date(),
    });
    const stored = await subscriptions.create(made, { ruling: write.ruling });
    return tagged(
      created(subscriptionOut(stored, links, secret), subscriptionUrl(links.baseUrl, id)),
      stored,
    );
  });

/**
 * PATCH /Subscription/{id}: `url`, `types`, `description`, `paused`; If-Match and If-None-Match, when
 * sent, must hold for the version it lands on. Resuming (`"paused": false`) clears why it was paused.
 */
export const updateSubscriptionHandler = ({
  subscriptions,
  resolve,
  idempotency,
  config,
}: Omit<SubscriptionWriteDeps, 'box'>) =>
  writeHandler(SubscriptionPatch, 'update', { once: keyedWrites(idempotency), config }).handler(
    async ({ event, body, requester, write, links }) => {
      const id = subscriptionIdOf(event);
      const patch = body.url === undefined ? body : { ...body, url: await checkedUrl(body.url, resolve) };
      const stored = await subscriptions.update(
        id,
        requester,
        (current, acting) => patchedSubscription(current, patch, { requester: acting, now: new Date() }),
        { ruling: write.ruling, conditions: preconditionsOf(event) },
      );
      return tagged(ok(subscriptionOut(stored, links)), stored);
    },
  );

/** DELETE /Subscription/{id}: 204; nothing more is delivered to it. */
export const deleteSubscriptionHandler = ({
  subscriptions,
  config,
}: Pick<SubscriptionWriteDeps, 'subscriptions' | 'config'>) =>
  writeHandler(undefined, 'update', { config }).handler(async ({ event, requester, write }) => {
    await subscriptions.remove(subscriptionIdOf(event), requester, {
      ruling: write.ruling,
      conditions: preconditionsOf(event),
    });
    return noContent;
  });

/**
 * POST /Subscription/{id}/rotate: a new secret, shown this once; the one it replaces signs beside it
 * for 24 hours, so a receiver can change over without losing a delivery.
 */
export const rotateSubscriptionHandler = ({
  subscriptions,
  box,
  idempotency,
  config,
}: SubscriptionWriteDeps) =>
  writeHandler(undefined, 'update', {
    once: keyedWrites(secretSealedWhileKept(box, idempotency)),
    config,
  }).handler(async ({ event, requester, write, links }) => {
    const id = subscriptionIdOf(event);
    const secret = newSecret();
    const sealed = await box.seal(secret, id);
    const stored = await subscriptions.update(
      id,
      requester,
      (current, acting) => rotatedSubscription(current, sealed, { requester: acting, now: new Date() }),
      { ruling: write.ruling, conditions: preconditionsOf(event) },
    );
    return tagged(ok(subscriptionOut(stored, links, secret)), stored);
  });
