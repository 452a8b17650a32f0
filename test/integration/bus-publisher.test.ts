/**
 * The change feed on the stack's EventBridge bus (API.md 14, issues #41 and #55): the publisher puts
 * each event the feed's appender appended, with the real AWS SDK against an EventBridge endpoint on
 * loopback that records what it is sent (EventBridge has no local engine); what a rule's queue then
 * receives reads back into the same CloudEvent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { CloudEvent as SpecEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEventOfMessage, deliveredEventOf } from '../../lib/bus/envelope';
import { eventBridgePublisher } from '../../lib/bus/publisher';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import { cloudEventOf, feedEventOf } from '../../lib/domain/feed';

const BASE = 'https://persons.example.org';
const BUS = 'person-service-changes';

interface PutEntry {
  EventBusName: string;
  Source: string;
  DetailType: string;
  Detail: string;
  Time?: number;
}

let server: Server;
let endpoint: string;
const calls: { target: string | undefined; entries: PutEntry[] }[] = [];
/** How many entries the next call refuses (a throttled PutEvents answers 200 with failed entries). */
let refuse = 0;

const bodyOf = async (request: IncomingMessage) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  return JSON.parse(text) as { Entries: PutEntry[] };
};

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const { Entries } = await bodyOf(request);
    calls.push({ target: request.headers['x-amz-target'] as string | undefined, entries: Entries });
    const failed = Math.min(refuse, Entries.length);
    refuse = 0;
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(
      JSON.stringify({
        FailedEntryCount: failed,
        Entries: Entries.map((_, index) =>
          index < failed ? { ErrorCode: 'ThrottlingException' } : { EventId: `event-${index}` },
        ),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const client = () =>
  new EventBridgeClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

/** The events of `count` changes, as the appender hands them to the bus. */
const feedEvents = (count: number) =>
  Array.from({ length: count }, (_, n) =>
    feedEventOf({
      id: 40_000 + n,
      endpoint: n % 5 === 0 ? 'NamePrefix' : 'Person',
      object_id: 30_000 + n,
      version: 1,
      action: 'create',
      requester: n % 5 === 0 ? 30_000 : 30_000 + n,
      at: new Date(Date.UTC(2026, 10, 26, 12, 0, n)).toISOString(),
      changed: [],
      provider_data: NO_ORIGIN,
    }),
  );

describe('the event bus publisher', () => {
  it('puts every event on the bus, ten a call: source the service, detail-type its type, detail the CloudEvent', async () => {
    calls.length = 0;
    await eventBridgePublisher({ busName: BUS, baseUrl: BASE, client: client() })(feedEvents(25));
    expect(calls.map(({ target, entries }) => [target, entries.length])).toEqual([
      ['AWSEvents.PutEvents', 10],
      ['AWSEvents.PutEvents', 10],
      ['AWSEvents.PutEvents', 5],
    ]);
    const entries = calls.flatMap((call) => call.entries);
    expect(entries.map(({ Detail }) => JSON.parse(Detail).id)).toEqual(
      Array.from({ length: 25 }, (_, n) => String(40_000 + n)),
    );
    for (const entry of entries) {
      const detail = JSON.parse(entry.Detail);
      expect(entry).toMatchObject({ EventBusName: BUS, Source: BASE, DetailType: detail.type });
      expect(entry.Time).toBe(new Date(detail.time).getTime() / 1000);
      expect(() => new SpecEvent(detail, true)).not.toThrow();
      expect(detail.source).toBe(BASE);
      expect(detail.data.changeHistory).toBe(`${BASE}/ChangeHistory/${detail.id}`);
    }
    expect(entries[0]).toMatchObject({ DetailType: 'nameprefix.created' });
    expect(entries[1]).toMatchObject({ DetailType: 'person.created' });
  });

  it('fails the batch when the bus refuses an entry, so the stream delivers it again', async () => {
    calls.length = 0;
    refuse = 1;
    await expect(
      eventBridgePublisher({ busName: BUS, baseUrl: BASE, client: client() })(feedEvents(3)),
    ).rejects.toThrow(/EventBridge refused 1 events: ThrottlingException/);
  });

  it('gives a rule’s queue what reads back into the CloudEvent it put', () => {
    for (const event of feedEvents(6)) {
      const delivered = deliveredEventOf(event, BASE);
      expect(delivered).toMatchObject({ source: BASE, 'detail-type': event.type });
      expect(cloudEventOfMessage({ body: JSON.stringify(delivered) })).toEqual(cloudEventOf(event, BASE));
    }
  });
});
