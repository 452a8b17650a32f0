/**
 * The change feed on the stack's EventBridge bus (API.md 14, issue #41): the publisher puts each event
 * the feed took, from the `FeedEvent` items the table's stream carries, with the real AWS SDK against
 * an EventBridge endpoint on loopback that records what it is sent (EventBridge has no local engine).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { CloudEvent as SpecEvent } from 'cloudevents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvents } from '../../lib/db/feed/event-publisher';
import { feedLog } from '../../lib/db/feed/feed-log';
import { isFeedEventInsert } from '../../lib/db/table/stream-subscriptions';
import { NO_ORIGIN } from '../../lib/domain/change-history';
import { feedEventOf } from '../../lib/domain/feed';
import { createTestTable } from '../support/dynamo';
import { streamRecord } from '../support/events';

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

/** Stream records of the feed's event items, as the table's stream hands them over. */
const feedRecords = async (count: number) => {
  const table = await createTestTable();
  await feedLog(table).append(
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
    ),
  );
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.tableName }));
  return Items.map((item) => streamRecord('INSERT', { tableName: table.tableName, item }))
    .filter(isFeedEventInsert)
    .sort((a, b) => Number(a.dynamodb?.NewImage?.id?.N) - Number(b.dynamodb?.NewImage?.id?.N));
};

describe('the event bus publisher', () => {
  it('puts every event on the bus, ten a call: source the service, detail-type its type, detail the CloudEvent', async () => {
    calls.length = 0;
    const records = await feedRecords(25);
    expect(records).toHaveLength(25);
    await publishEvents({ busName: BUS, baseUrl: BASE, client: client() })({ Records: records });
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
    const records = await feedRecords(3);
    refuse = 1;
    await expect(
      publishEvents({ busName: BUS, baseUrl: BASE, client: client() })({ Records: records }),
    ).rejects.toThrow(/EventBridge refused 1 events: ThrottlingException/);
  });
});
