/**
 * The prices and limits the capacity model answers with, in one dated table, each with where it comes
 * from. Written without network access from the pages below as they stood at `AS_OF`: check each page
 * before quoting a figure, and change it here (only here) when AWS does.
 */

export const AS_OF = '2025-06 (us-east-1; to be checked against the pages named)';
export const REGION = 'us-east-1';

/** Hours in AWS's billing month (AWS prices a month as 730 hours). */
export const HOURS_PER_MONTH = 730;
export const SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600;

export interface Price {
  usd: number;
  per: string;
  source: string;
}

const DYNAMODB_ON_DEMAND = 'https://aws.amazon.com/dynamodb/pricing/on-demand/';
const DYNAMODB_PROVISIONED = 'https://aws.amazon.com/dynamodb/pricing/provisioned/';

export const PRICES = {
  /** On-demand, after the 50% cut of 2024-11-01. */
  writeRequestUnit: { usd: 0.625 / 1e6, per: 'write request unit', source: DYNAMODB_ON_DEMAND },
  readRequestUnit: { usd: 0.125 / 1e6, per: 'read request unit', source: DYNAMODB_ON_DEMAND },
  wcuHour: { usd: 0.00065, per: 'provisioned WCU-hour', source: DYNAMODB_PROVISIONED },
  rcuHour: { usd: 0.00013, per: 'provisioned RCU-hour', source: DYNAMODB_PROVISIONED },
  storageGbMonth: { usd: 0.25, per: 'GB-month, Standard table class', source: DYNAMODB_ON_DEMAND },
  lambdaGbSecond: {
    usd: 0.0000133334,
    per: 'GB-second, arm64',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaRequest: { usd: 0.2 / 1e6, per: 'Lambda request', source: 'https://aws.amazon.com/lambda/pricing/' },
  httpApiRequest: {
    usd: 1 / 1e6,
    per: 'HTTP API request (first 300 million a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  /**
   * Each 64 KB chunk of an entry is billed as one event (a feed event is about 0.5 KB: one). What a
   * rule then delivers to a target in the same account (here, each consumer's SQS queue) is not a
   * charge of its own on that page: cross-account delivery is, as an event again.
   */
  eventBridgeEvent: {
    usd: 1 / 1e6,
    per: 'custom event put on a bus (each 64 KB chunk one event)',
    source: 'https://aws.amazon.com/eventbridge/pricing/',
  },
  /**
   * Every SQS API call is a request (SendMessage, ReceiveMessage, an empty one too, DeleteMessageBatch),
   * each 64 KB chunk of its payload one request; the first million a month are free (not subtracted
   * here, as no free tier is).
   */
  sqsRequest: {
    usd: 0.4 / 1e6,
    per: 'SQS standard queue request (each 64 KB chunk one request; first 100 billion a month)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
} as const satisfies Record<string, Price>;

/** Bytes of a chunk that EventBridge bills as one event and SQS as one request. */
export const BILLED_CHUNK_BYTES = 64 * 1024;

const LAMBDA_SQS = 'https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html';

/**
 * How Lambda reads a standard SQS queue (its event source mapping), as its page says: pollers long-poll
 * the queue until messages come, five batches at a time at first, then up to 300 more concurrent
 * batches a minute while messages wait, at most 1 000 batches at once. The pollers cost no Lambda
 * time; their ReceiveMessage calls are SQS requests, billed to the queue's owner. Assumed for a quiet
 * queue: the five pollers each waiting the longest long poll SQS allows, 20 s, so a queue with no
 * message still costs 5 × 3 600 / 20 = 900 requests an hour (Lambda may use as few as two).
 */
export const SQS_POLLING = {
  idlePollers: {
    value: 5,
    unit: 'pollers long-polling a quiet queue (assumed: the first five batches)',
    source: LAMBDA_SQS,
  },
  longPollSeconds: {
    value: 20,
    unit: 'seconds a long poll waits on an empty queue (the most ReceiveMessage allows)',
    source:
      'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-setting-up-long-polling.html',
  },
  scalingPerMinute: {
    value: 300,
    unit: 'more concurrent batches a minute while messages wait',
    source: LAMBDA_SQS,
  },
} as const satisfies Record<string, Limit>;

/**
 * Provisioned capacity is bought for the load at the target utilisation auto scaling keeps (its
 * default target, 70%), not for the load itself.
 */
export const PROVISIONED_TARGET_UTILISATION = 0.7;

export interface Limit {
  value: number;
  unit: string;
  source: string;
}

const DYNAMODB_QUOTAS = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html';

export const LIMITS = {
  partitionWcu: {
    value: 1_000,
    unit: 'write units a second per partition (a GSI partition too: its back-pressure throttles the table)',
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations',
  },
  partitionRcu: { value: 3_000, unit: 'read units a second per partition', source: DYNAMODB_QUOTAS },
  transactionActions: { value: 100, unit: 'actions per transaction', source: DYNAMODB_QUOTAS },
  transactionBytes: { value: 4 * 1024 * 1024, unit: 'bytes per transaction', source: DYNAMODB_QUOTAS },
  itemBytes: { value: 400 * 1024, unit: 'bytes per item', source: DYNAMODB_QUOTAS },
  tableWcu: {
    value: 40_000,
    unit: 'write units a second per on-demand table (account default, raisable)',
    source: DYNAMODB_QUOTAS,
  },
  tableRcu: {
    value: 40_000,
    unit: 'read units a second per on-demand table (account default, raisable)',
    source: DYNAMODB_QUOTAS,
  },
  lambdaConcurrency: {
    value: 1_000,
    unit: 'concurrent executions per region (account default, raisable)',
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  httpApiRps: {
    value: 10_000,
    unit: 'requests a second per region across HTTP APIs (account default, burst 5 000)',
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html',
  },
  putEventsEntries: {
    value: 10,
    unit: 'entries per PutEvents call',
    source: 'https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html',
  },
  sqsConcurrentBatches: {
    value: 1_000,
    unit: 'batches a standard SQS event source mapping processes at once',
    source: LAMBDA_SQS,
  },
  streamReaders: {
    value: 2,
    unit: 'concurrent readers per stream shard before GetRecords throttles',
    source:
      'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html#Streams.Processing',
  },
} as const satisfies Record<string, Limit>;
