/**
 * Feeds DynamoDB Local's stream to stream handlers as Lambda's event source mapping would: batches
 * of records as a `DynamoDBStreamEvent`, retried from the first failed record when the handler
 * reports `batchItemFailures` or throws, and given up after a few tries.
 */

import { readFile, rename, writeFile } from 'node:fs/promises';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { localClientConfig } from './dynamo-local';

/** A stream handler; it may answer with the records that failed (`ReportBatchItemFailures`). */
export type StreamFunction = (event: DynamoDBStreamEvent) => Promise<unknown>;

export interface StreamConsumer {
  name: string;
  handler: StreamFunction;
  accepts?: (record: DynamoDBRecord) => boolean;
}

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  consumers: StreamConsumer[];
  intervalMs?: number;
  batchSize?: number;
  maxAttempts?: number;
  log?: (message: string, details?: unknown) => void;
  /**
   * Where the poller keeps how far it has delivered each shard (`npm start --data`): a restart goes on
   * after the last record delivered, as Lambda's event source mapping does, so none written while it
   * was down, or not delivered yet when it stopped, is missed. Without it a start reads from now on.
   */
  positionsFile?: string;
}

/** A stream record as Lambda hands it over (epoch seconds, `aws:dynamodb`, the stream ARN). */
export const toLambdaRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord => {
  const { ApproximateCreationDateTime, ...dynamodb } = record.dynamodb ?? {};
  return {
    eventID: record.eventID ?? '',
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? 'local',
    eventSourceARN: streamArn,
    dynamodb: {
      ...(dynamodb as DynamoDBRecord['dynamodb']),
      ...(ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(new Date(ApproximateCreationDateTime).getTime() / 1000) }
        : {}),
    },
  };
};

/** Delivers one batch to one consumer, retrying from the first failed record. */
const deliver = async (
  consumer: StreamConsumer,
  records: DynamoDBRecord[],
  maxAttempts: number,
  log: StreamPollerOptions['log'],
) => {
  let pending = records.filter((record) => consumer.accepts?.(record) ?? true);
  for (let attempt = 1; pending.length > 0; attempt++) {
    let failedFrom = -1;
    try {
      const result = (await consumer.handler({ Records: pending })) as DynamoDBBatchResponse | undefined;
      const failures = new Set((result?.batchItemFailures ?? []).map(({ itemIdentifier }) => itemIdentifier));
      failedFrom = pending.findIndex((record) => failures.has(record.dynamodb?.SequenceNumber ?? ''));
    } catch (error) {
      log?.(`stream handler ${consumer.name} failed`, error);
      failedFrom = 0;
    }
    if (failedFrom < 0) return;
    if (attempt >= maxAttempts) {
      log?.(`stream handler ${consumer.name} gave up on ${pending.length - failedFrom} records`);
      return;
    }
    pending = pending.slice(failedFrom);
    await new Promise((wait) => setTimeout(wait, 100 * 2 ** attempt));
  }
};

/** The positions a poller kept, or null when it kept none (a first start). */
const readPositions = async (file: string): Promise<Record<string, string> | null> => {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

/** Written whole to a file beside it, then renamed over it: a kill mid-write leaves the old one. */
const writePositions = async (file: string, positions: Record<string, string>) => {
  await writeFile(`${file}.next`, JSON.stringify(positions));
  await rename(`${file}.next`, file);
};

export const startStreamPoller = async ({
  endpoint,
  tableName,
  consumers,
  intervalMs = 250,
  batchSize = 100,
  maxAttempts = 3,
  log,
  positionsFile,
}: StreamPollerOptions) => {
  const config = localClientConfig(endpoint);
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: tableName }));
  dynamo.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${tableName} has no stream`);

  /** How far each shard was delivered in an earlier run (`positionsFile`), or null on a first start. */
  const delivered: Record<string, string> | null = positionsFile ? await readPositions(positionsFile) : null;
  const resumed = delivered !== null;
  const positions: Record<string, string> = { ...delivered };

  /**
   * Shard id to its next iterator. A first start reads the shards open then from now on, and later
   * ones whole; a restart goes on after each shard's last delivered record, and reads whole the
   * shards it had not seen.
   */
  const iterators = new Map<string, string | undefined>();
  const discover = async (from: 'LATEST' | 'TRIM_HORIZON') => {
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      const after = positions[shard.ShardId];
      const type = after
        ? 'AFTER_SEQUENCE_NUMBER'
        : shard.SequenceNumberRange?.EndingSequenceNumber || resumed
          ? 'TRIM_HORIZON'
          : from;
      if (from === 'LATEST' && type === 'TRIM_HORIZON' && !resumed) {
        iterators.set(shard.ShardId, undefined); // closed before we started: history, not news
        continue;
      }
      const { ShardIterator } = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: type,
          ...(after ? { SequenceNumber: after } : {}),
        }),
      );
      iterators.set(shard.ShardId, ShardIterator);
    }
  };
  await discover('LATEST');

  let running = true;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      let handed = 0;
      try {
        await discover('TRIM_HORIZON');
        for (const [shardId, iterator] of iterators) {
          if (!iterator) continue;
          const { Records, NextShardIterator } = await streams.send(
            new GetRecordsCommand({ ShardIterator: iterator, Limit: batchSize }),
          );
          iterators.set(shardId, NextShardIterator);
          const records = (Records ?? []).map((record) => toLambdaRecord(record, streamArn));
          handed += records.length;
          for (const consumer of consumers)
            if (records.length > 0) await deliver(consumer, records, maxAttempts, log);
          const last = records.at(-1)?.dynamodb?.SequenceNumber;
          if (positionsFile && last) {
            positions[shardId] = last;
            await writePositions(positionsFile, positions);
          }
        }
      } catch (error) {
        if (running) log?.('reading the stream failed', error);
      }
      if (handed === 0 && running)
        await new Promise<void>((resolve) => {
          wake = resolve;
          idle = setTimeout(resolve, intervalMs);
        });
    }
  })();

  return {
    streamArn,
    async stop() {
      running = false;
      clearTimeout(idle);
      wake?.();
      await loop;
      streams.destroy();
    },
  };
};
