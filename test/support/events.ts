/** Realistic API Gateway HTTP API (payload format 2.0) events, as Lambda receives them. */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  DynamoDBRecord,
  SQSRecord,
} from 'aws-lambda';
import { deliveredEventOf } from '../../lib/bus/envelope';
import { fromHistoryItem } from '../../lib/db/history/change-history';
import type { Storage } from '../../lib/db/table/client';
import { historyKey } from '../../lib/db/table/keys';
import {
  type ChangeEvent,
  type ChangeEventType,
  DUPLICATE_DETECTED,
  type FeedEvent,
  feedEventOf,
} from '../../lib/domain/feed';
import type { AuthorizerContext } from '../../lib/domain/principal';
import { sqsRecordOf } from '../../lib/local/bus';
import { lambdaContext as localContext } from '../../lib/local/lambda-context';

export interface EventSpec {
  method: string;
  /** The route key's path pattern, e.g. `/Person/{id}`. */
  route: string;
  /** The concrete path, e.g. `/Person/12`; defaults to the route. */
  path?: string;
  pathParameters?: Record<string, string>;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** An object is sent as JSON with `content-type: application/json`; a string is sent as it is. */
  body?: unknown;
  requester?: number | string;
  /** What API Gateway's authorizer put in the context: a JWT's claims or the IAM caller (API.md 9.1). */
  authorizer?: AuthorizerContext;
}

export const httpEvent = (spec: EventSpec): APIGatewayProxyEventV2 => {
  const path = spec.path ?? spec.route;
  const rawQueryString = new URLSearchParams(spec.query ?? {}).toString();
  const headers: Record<string, string> = {
    accept: 'application/json',
    host: 'api.example.test',
    'x-forwarded-proto': 'https',
    'user-agent': 'vitest',
    ...(spec.body !== undefined && typeof spec.body !== 'string'
      ? { 'content-type': 'application/json' }
      : {}),
    ...(spec.requester !== undefined ? { 'x-requester-person': String(spec.requester) } : {}),
  };
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name.toLowerCase()] = value;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `${spec.method} ${spec.route}`,
    rawPath: path,
    rawQueryString,
    headers,
    ...(spec.query ? { queryStringParameters: spec.query } : {}),
    ...(spec.pathParameters ? { pathParameters: spec.pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method: spec.method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey: `${spec.method} ${spec.route}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
      ...(spec.authorizer ? { authorizer: spec.authorizer } : {}),
    },
    isBase64Encoded: false,
    ...(spec.body === undefined
      ? {}
      : { body: typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body) }),
  };
};

/** The context Lambda gives an HTTP function (its timeout, so the retry budget is the real one). */
export const lambdaContext = (): Context => localContext('test');

export interface Response<T = Record<string, unknown>> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

type Handler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Invokes a handler with an event and reads the result back as status, headers and parsed body. */
export const invoke = async <T = Record<string, unknown>>(
  handler: Handler,
  event: APIGatewayProxyEventV2,
  context: Context = lambdaContext(),
) => {
  const result = await handler(event, context);
  return {
    status: result.statusCode ?? 200,
    headers: Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    ),
    body: (result.body ? JSON.parse(result.body) : undefined) as T,
  } satisfies Response<T>;
};

let sequence = 100_000_000;

/**
 * A stream record as Lambda hands it to a function (NEW_AND_OLD_IMAGES): an INSERT has the new item,
 * a REMOVE the old one, a MODIFY both.
 */
export const streamRecord = (
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  {
    tableName,
    item,
    oldItem,
  }: { tableName: string; item?: Record<string, unknown>; oldItem?: Record<string, unknown> },
): DynamoDBRecord => {
  const image = (value: Record<string, unknown>) =>
    marshall(value, { removeUndefinedValues: true }) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];
  const keyed = (item ?? oldItem ?? {}) as Record<string, unknown>;
  const newImage = item ? image(item) : undefined;
  return {
    eventID: randomUUID().replaceAll('-', ''),
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'local',
    eventSourceARN: `arn:aws:dynamodb:local:000000000000:table/${tableName}/stream/2026-11-21T15:04:05.123`,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
      Keys: image({ pk: keyed.pk, sk: keyed.sk }),
      ...(newImage ? { NewImage: newImage } : {}),
      ...(oldItem ? { OldImage: image(oldItem) } : {}),
      SequenceNumber: String(++sequence).padStart(21, '0'),
      SizeBytes: JSON.stringify(newImage ?? keyed).length,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

/**
 * A bus consumer's queue message carrying the event, as Lambda's SQS event source hands it over: its
 * body what EventBridge delivers for the event (the same builder `npm start`'s bus uses).
 */
export const queueRecord = (
  event: FeedEvent,
  { receives = 1, baseUrl = 'http://127.0.0.1:3000' } = {},
): SQSRecord =>
  sqsRecordOf('test-queue', {
    messageId: randomUUID(),
    body: JSON.stringify(deliveredEventOf(event, baseUrl)),
    eventId: String(event.id),
    sentAt: Date.now(),
    receives,
  });

/**
 * The queue message of the event of a person's version, as the change feed made it from its
 * ChangeHistory entry (API.md 14); `type` overrides the event's own.
 */
export const personEventRecord = async (
  { client, tableName }: Storage,
  id: number,
  { version = 1, type }: { version?: number; type?: ChangeEventType } = {},
) => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: historyKey('Person', id, version), ConsistentRead: true }),
  );
  if (!Item) throw new Error(`Person ${id} has no version ${version}`);
  const event = feedEventOf(fromHistoryItem(Item));
  return queueRecord(type ? { ...event, type } : event);
};

/**
 * The events of a feed a test filled with changes alone, typed as changes' events: throws on a
 * duplicate pair's, which such a feed never holds.
 */
export const changeEventsOf = <E extends FeedEvent>(events: readonly E[]): Extract<E, ChangeEvent>[] =>
  events.map((event) => {
    if (event.type === DUPLICATE_DETECTED) throw new Error(`Event ${event.id} is a duplicate pair's`);
    return event as Extract<E, ChangeEvent>;
  });
