/**
 * Every consumer of the bus (lib/api/bus-subscriptions.ts) is safe under what EventBridge and
 * standard SQS do (issue #55 step 3): an event delivered twice, and an event delivered after a later
 * one, leave the store as one delivery in order would. Each consumer has its check here; a consumer
 * added to the catalogue without one fails the first test.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUS_SUBSCRIPTIONS } from '../../lib/api/bus-subscriptions';
import { duplicateReads } from '../../lib/db/duplicates/duplicate-reads';
import { pairStore } from '../../lib/db/duplicates/pair-store';
import { feedLog } from '../../lib/db/feed/feed-log';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { laneStore } from '../../lib/db/webhooks/lane-store';
import { subscriptionStore } from '../../lib/db/webhooks/subscription-store';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import { type FeedEvent, feedEventOf } from '../../lib/domain/feed';
import { newSecret, newSubscription } from '../../lib/domain/subscriptions';
import { detectDuplicates } from '../../lib/duplicates/detect-duplicates';
import { clearbitProvider } from '../../lib/enrichment/clearbit';
import { enrichPersons } from '../../lib/enrichment/enrich-persons';
import { finishErasures } from '../../lib/erasure/finish-erasures';
import { FIXTURE_EMAILS, startFixtureProvider } from '../../lib/local/fixture-provider';
import { laneRunner } from '../../lib/webhooks/deliver-lane';
import { localSecretBox } from '../../lib/webhooks/secret-box';
import { laneWaker, wakeOnMessages } from '../../lib/webhooks/wake-lanes';
import { personBody, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { personEventRecord, queueRecord } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { snapshot, textOf } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const noFailures: SQSBatchResponse = { batchItemFailures: [] };

let provider: Awaited<ReturnType<typeof startFixtureProvider>>;
beforeAll(async () => {
  provider = await startFixtureProvider();
});
afterAll(() => provider?.stop());

/** Each consumer's check: twice, then out of order, against what one delivery in order leaves. */
const CHECKS: Record<string, () => Promise<void>> = {
  'enrich-person': async () => {
    const consume = enrichPersons({
      provider: clearbitProvider({ url: provider.url, apiKey: provider.apiKey }),
      writer: socialAddressWriter(suite.table),
      logger: quiet,
    });
    const deliver = (...records: SQSEvent['Records']) => consume({ Records: records });
    const { body: person } = await suite.api.post(
      personBody('Ada', uniqueTag('Twice'), FIXTURE_EMAILS[0] as string),
    );
    // A change lands before the person.created is delivered: the events arrive out of order.
    expect((await suite.api.patch(person.id, { local_reference_id: 'first-change' })).status).toBe(200);
    const created = await personEventRecord(suite.table, person.id);
    const updated = await personEventRecord(suite.table, person.id, { version: 2 });

    expect(await deliver(updated, created)).toEqual(noFailures);
    const once = await snapshot(suite.table);
    const { body: enriched } = await suite.api.get(person.id);
    expect(enriched.CoreMetaData.version).toBe(3);
    expect(enriched.local_reference_id).toBe('first-change');
    expect(enriched.SocialAddresses.twitter).not.toBeNull();

    // Twice, and the older event after the newer one once more: nothing changes.
    expect(await deliver(created, created)).toEqual(noFailures);
    expect(await deliver(await personEventRecord(suite.table, person.id, { version: 3 }), created)).toEqual(
      noFailures,
    );
    expect(await snapshot(suite.table)).toEqual(once);
  },
  'finish-erasure': async () => {
    const finish = finishErasures({ persons: testRepository(suite.table), logger: quiet });
    const deliver = (...records: SQSEvent['Records']) => finish({ Records: records });
    const tag = uniqueTag('erased').toLowerCase();
    const { body: person } = await suite.api.post(personBody('Ada', tag));
    expect((await suite.api.patch(person.id, { local_reference_id: `ref-${tag}` })).status).toBe(200);
    // The erasure's chain cut short at its first transaction: every entry still holds the person.
    const stop = injectFaults(suite.table.client, (name, input) =>
      name === 'TransactWriteItemsCommand' && JSON.stringify(input).includes('#snapshot')
        ? sdkError('ThrottlingException')
        : undefined,
    );
    try {
      expect((await suite.api.erase(person.id)).status).toBe(503);
    } finally {
      stop();
    }
    const created = await personEventRecord(suite.table, person.id);
    const erased = await personEventRecord(suite.table, person.id, { version: 3 });

    expect(await deliver(erased, created)).toEqual(noFailures);
    const once = await snapshot(suite.table);
    expect(once.filter((item) => textOf(item).includes(tag))).toEqual([]);

    // Twice, and the older event after it once more: nothing changes.
    expect(await deliver(erased, erased)).toEqual(noFailures);
    expect(await deliver(created, erased)).toEqual(noFailures);
    expect(await snapshot(suite.table)).toEqual(once);
  },
  'detect-duplicates': async () => {
    const detect = detectDuplicates({
      reads: duplicateReads(suite.table),
      pairs: pairStore(suite.table),
      logger: quiet,
    });
    const deliver = (...records: SQSEvent['Records']) => detect({ Records: records });
    const last = uniqueTag('Twin').replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)] as string);
    const phone = { PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0777' }] } };
    const { body: first } = await suite.api.post({
      ...personBody('Ada', last, `${last}@example.org`),
      ...phone,
    });
    const { body: twin } = await suite.api.post(personBody('Ada', last));
    // The twin's phone added before its person.created is delivered: the events arrive out of order.
    expect((await suite.api.patch(twin.id, phone)).status).toBe(200);
    const created = await personEventRecord(suite.table, twin.id);
    const updated = await personEventRecord(suite.table, twin.id, { version: 2 });
    const firstCreated = await personEventRecord(suite.table, first.id);

    expect(await deliver(updated, created, firstCreated)).toEqual(noFailures);
    const once = await snapshot(suite.table);
    // Checked as they are now, whichever event came first: one pair, certain (the same name and phone).
    expect(once.filter((item) => String(item.pk).startsWith('DUPPAIR#'))).toEqual([
      expect.objectContaining({
        persons: [first.id, twin.id],
        grade: 'certain',
        status: 'open',
        revision: 1,
      }),
    ]);

    // Twice, and the older events after the newer one once more: nothing changes.
    expect(await deliver(created, created, firstCreated)).toEqual(noFailures);
    expect(await deliver(updated, created)).toEqual(noFailures);
    expect(await snapshot(suite.table)).toEqual(once);
  },
  'wake-webhooks': async () => {
    // A receiver on loopback, and a subscription to it whose lane runs in process when woken.
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      request.resume().on('end', () => {
        received.push(String(request.headers['webhook-id']));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const box = localSecretBox(randomBytes(32).toString('base64url'));
    const subscriptions = subscriptionStore(suite.table);
    const { body: requester } = await suite.api.post(personBody('Wake', uniqueTag('Hooks')));
    const id = randomUUID();
    await subscriptions.create(
      newSubscription(id, { url, types: ['person.*'] }, await box.seal(newSecret(), id), {
        requester: requester.id,
        now: new Date(),
      }),
    );
    const runner = laneRunner({
      subscriptions,
      lanes: laneStore(suite.table),
      feed: feedLog(suite.table),
      box,
      baseUrl: 'http://127.0.0.1:3000',
      guard: { allowLoopback: true },
    });
    const wake = wakeOnMessages(laneWaker(subscriptions, async (lane) => void (await runner.run(lane))));
    const deliver = (...records: SQSEvent['Records']) => wake({ Records: records });
    // Two changes in the feed after the subscription; their wakes come the later first.
    const [created, updated] = [1, 2].map((version) =>
      feedEventOf({
        id: 8_000_000 + version,
        endpoint: 'Person',
        object_id: requester.id,
        version,
        action: version === 1 ? 'create' : 'update',
        requester: requester.id,
        at: new Date().toISOString(),
        changed: ['/Names'],
        provider_data: NO_ORIGIN,
      }),
    ) as [FeedEvent, FeedEvent];
    await feedLog(suite.table).append([created, updated]);

    try {
      expect(await deliver(queueRecord(updated), queueRecord(created))).toEqual(noFailures);
      // Delivered once each, in feed order, whichever wake came first.
      expect(received).toEqual([String(created.id), String(updated.id)]);
      const once = await snapshot(suite.table);

      // Twice, and the older event after the newer one once more: nothing sent, nothing changes.
      expect(await deliver(queueRecord(created), queueRecord(created))).toEqual(noFailures);
      expect(await deliver(queueRecord(updated), queueRecord(created))).toEqual(noFailures);
      expect(received).toHaveLength(2);
      expect(await snapshot(suite.table)).toEqual(once);
    } finally {
      receiver.close();
    }
  },
};

describe('every consumer of the bus, delivered to twice and out of order', () => {
  it('has a check for each consumer the catalogue lists, and none for one it does not', () => {
    expect(Object.keys(CHECKS).sort()).toEqual(BUS_SUBSCRIPTIONS.map(({ handler }) => handler).sort());
  });

  it.each(BUS_SUBSCRIPTIONS.map(({ handler }) => handler))(
    '%s: leaves what one delivery in order leaves',
    async (handler) => {
      await CHECKS[handler]?.();
    },
  );
});
