/**
 * `npm start`'s event bus (lib/local/bus.ts, issue #55 step 2): each consumer its own queue of the
 * event types its rule names, messages as EventBridge delivers them, batches of at most its size,
 * failed messages received again until `maxReceiveCount` and then dead-lettered with a line saying so,
 * and a consumer that hangs or fails delays no other.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { cloudEventOfMessage } from '../../../lib/bus/envelope';
import { NO_ORIGIN } from '../../../lib/domain/change-history';
import {
  type ChangeEventType,
  cloudEventOf,
  type EventType,
  type FeedEvent,
  feedEventOf,
} from '../../../lib/domain/feed';
import { type LocalBusConsumer, startLocalBus } from '../../../lib/local/bus';

const BASE = 'http://127.0.0.1:3000';

let nextId = 1;
const eventOf = (type: ChangeEventType): FeedEvent => {
  const id = nextId++;
  const [endpoint, verb] = type.split('.') as [string, string];
  return {
    ...feedEventOf({
      id,
      endpoint: endpoint === 'person' ? 'Person' : 'NamePrefix',
      object_id: 1000 + id,
      version: 1,
      action: verb === 'created' ? 'create' : 'update',
      requester: null,
      at: new Date().toISOString(),
      changed: [],
      provider_data: NO_ORIGIN,
    }),
    type,
  };
};

/** A consumer that keeps every batch it is handed and answers as `answer` says. */
const consumer = (
  name: string,
  eventTypes: EventType[],
  answer: (event: SQSEvent) => Promise<SQSBatchResponse> = async () => ({ batchItemFailures: [] }),
  { batchSize = 10, maxReceiveCount = 3 } = {},
) => {
  const batches: SQSEvent[] = [];
  const spec: LocalBusConsumer = {
    name,
    eventTypes,
    batchSize,
    maxReceiveCount,
    handler: async (event) => {
      batches.push(event);
      return answer(event);
    },
  };
  return {
    spec,
    batches,
    ids: () => batches.flatMap(({ Records }) => Records.map((r) => cloudEventOfMessage(r).id)),
  };
};

const until = async (done: () => boolean, ms = 2_000) => {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('Timed out');
    await new Promise((wait) => setTimeout(wait, 5));
  }
};

describe("npm start's event bus", () => {
  it('hands each consumer the events of its types only, as EventBridge delivers them, in batches of its size', async () => {
    const created = consumer('created', ['person.created'], undefined, { batchSize: 2 });
    const all = consumer('all', ['person.created', 'person.updated', 'nameprefix.created']);
    const bus = startLocalBus({ baseUrl: BASE, consumers: [created.spec, all.spec] });
    const events = [
      eventOf('person.created'),
      eventOf('person.updated'),
      eventOf('person.created'),
      eventOf('person.created'),
    ];
    await bus.publish(events);
    await until(() => created.ids().length === 3 && all.ids().length === 4);
    await bus.stop();

    expect(created.ids()).toEqual(
      events.filter(({ type }) => type === 'person.created').map(({ id }) => String(id)),
    );
    expect(created.batches.every(({ Records }) => Records.length <= 2)).toBe(true);
    expect(all.ids()).toEqual(events.map(({ id }) => String(id)));
    const [record] = all.batches[0]?.Records ?? [];
    expect(record).toMatchObject({ eventSource: 'aws:sqs', attributes: { ApproximateReceiveCount: '1' } });
    expect(JSON.parse(record?.body ?? '{}')).toMatchObject({ source: BASE, 'detail-type': 'person.created' });
    expect(cloudEventOfMessage(record as { body: string })).toEqual(
      cloudEventOf(events[0] as FeedEvent, BASE),
    );
  });

  it('receives a failed message again, alone, until its receives run out; then dead-letters it and says so', async () => {
    const lines: string[] = [];
    const failing = consumer('failing', ['person.created'], async ({ Records }) => ({
      batchItemFailures: Records.filter((record) => cloudEventOfMessage(record).id === String(poison.id)).map(
        ({ messageId }) => ({ itemIdentifier: messageId }),
      ),
    }));
    const poison = eventOf('person.created');
    const fine = eventOf('person.created');
    const bus = startLocalBus({
      baseUrl: BASE,
      consumers: [failing.spec],
      retryDelayMs: 1,
      log: (line) => lines.push(line),
    });
    await bus.publish([poison, fine]);
    await until(() => bus.deadLetters('failing').length === 1);
    await bus.stop();

    expect(failing.ids()).toEqual([String(poison.id), String(fine.id), String(poison.id), String(poison.id)]);
    expect(
      failing.batches.flatMap(({ Records }) =>
        Records.map(({ attributes }) => attributes.ApproximateReceiveCount),
      ),
    ).toEqual(['1', '1', '2', '3']);
    expect(bus.deadLetters('failing').map((record) => cloudEventOfMessage(record).id)).toEqual([
      String(poison.id),
    ]);
    expect(lines).toEqual([
      `bus consumer failing gave up on event ${poison.id} after 3 receives: it is in the consumer's dead-letter list`,
    ]);
  });

  it('receives the whole batch again when the consumer throws', async () => {
    let throws = 1;
    const throwing = consumer('throwing', ['person.created'], async () => {
      if (throws-- > 0) throw new Error('down');
      return { batchItemFailures: [] };
    });
    const bus = startLocalBus({
      baseUrl: BASE,
      consumers: [throwing.spec],
      retryDelayMs: 1,
      log: () => undefined,
    });
    const events = [eventOf('person.created'), eventOf('person.created')];
    await bus.publish(events);
    await until(() => throwing.ids().length === 4);
    await bus.stop();

    const ids = events.map(({ id }) => String(id));
    expect(throwing.ids().slice(0, 2)).toEqual(ids);
    expect(throwing.ids().slice(2).sort()).toEqual([...ids].sort());
    expect(bus.deadLetters('throwing')).toEqual([]);
  });

  it('lets no consumer delay another: one that hangs holds up only its own queue', async () => {
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hanging = consumer('hanging', ['person.created'], async () => {
      await hung;
      return { batchItemFailures: [] };
    });
    const quick = consumer('quick', ['person.created']);
    const bus = startLocalBus({ baseUrl: BASE, consumers: [hanging.spec, quick.spec] });
    await bus.publish([eventOf('person.created')]);
    await until(() => hanging.ids().length === 1);
    await bus.publish([eventOf('person.created')]);
    await until(() => quick.ids().length === 2);

    expect(hanging.ids()).toHaveLength(1);
    release();
    await until(() => hanging.ids().length === 2);
    await bus.stop();
  });

  it('stops: waits for the batch being handled, and drops the retries waiting', async () => {
    let calls = 0;
    const failing = consumer('failing', ['person.created'], async ({ Records }) => {
      calls += 1;
      return { batchItemFailures: Records.map(({ messageId }) => ({ itemIdentifier: messageId })) };
    });
    const bus = startLocalBus({ baseUrl: BASE, consumers: [failing.spec], retryDelayMs: 50 });
    await bus.publish([eventOf('person.created')]);
    await until(() => calls === 1);
    await bus.stop();
    await new Promise((wait) => setTimeout(wait, 120));

    expect(calls).toBe(1);
  });
});
