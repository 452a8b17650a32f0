/**
 * The enrichment stream handler's work: for each INSERT of a Person with a primary email, ask the
 * provider and write what it knows into the still-empty SocialAddresses fields. Failures are
 * reported per record (`batchItemFailures`, by Powertools' batch processing) so only those are
 * delivered again. Each lookup's outcome is counted (EnrichmentFilled, EnrichmentUnknown,
 * EnrichmentProviderErrors); the function writes them when its invocation ends.
 */

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { personFromImage } from '../db/person/person-items';
import type { SocialAddressWriter } from '../db/person/write/social-address-writer';
import { isPersonInsert } from '../db/table/stream-subscriptions';
import { primaryEmailOf } from '../domain/person';
import type { logger as defaultLogger } from '../logger';
import { addMetric } from '../metrics';
import { retryDeadline } from '../timeouts';
import type { LookupResult, PersonDataProvider } from './provider';

type Logger = Pick<typeof defaultLogger, 'info' | 'warn' | 'error'>;

export interface EnrichDeps {
  provider: PersonDataProvider;
  writer: SocialAddressWriter;
  logger: Logger;
  /** Lookups per record within one invocation before it is handed back as a failure. */
  attempts?: number;
  /** The longest wait between two lookups, whatever `Retry-After` asks. */
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export const enrichRecords = ({
  provider,
  writer,
  logger,
  attempts = 3,
  maxDelayMs = 5_000,
  sleep = (ms) => new Promise((wait) => setTimeout(wait, ms)),
}: EnrichDeps) => {
  const lookup = async (email: string): Promise<LookupResult> => {
    let result: LookupResult = { kind: 'retry', reason: 'not tried' };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      result = await provider.lookup(email);
      if (result.kind !== 'retry' || attempt === attempts) return result;
      await sleep(Math.min(maxDelayMs, result.retryAfterMs ?? 250 * 2 ** attempt));
    }
    return result;
  };

  /** True when the record is done with (written, or nothing to do); false to have it delivered again. */
  const enrich = async (record: DynamoDBRecord, deadline: number): Promise<boolean> => {
    const person = personFromImage(record.dynamodb?.NewImage as Record<string, AttributeValue>);
    const email = primaryEmailOf(person);
    const context = { personId: person.id, provider: provider.name };
    if (!email) return true;
    if ((await writer.state(person.id)).enriched) return true;
    const result = await lookup(email);
    switch (result.kind) {
      case 'found': {
        const outcome = await writer.fill(person.id, result.profiles, deadline);
        if (outcome === 'written') addMetric('EnrichmentFilled');
        logger.info('enrichment', { ...context, outcome, found: Object.keys(result.profiles) });
        return true;
      }
      case 'not-found':
        addMetric('EnrichmentUnknown');
        logger.info('enrichment', { ...context, outcome: 'not-found' });
        return true;
      case 'provider-error':
        // A warning: one failed lookup is the provider's weather, and an ERROR line would page through
        // the function's error alarm; EnrichmentFailureRate watches how many fail.
        addMetric('EnrichmentProviderErrors');
        logger.warn('enrichment provider error', { ...context, reason: result.reason });
        return true;
      case 'configuration-error':
        // Retrying will not help until an operator fixes the key or the plan: the record goes to the
        // retry limit and the dead-letter queue, to be replayed after the fix.
        addMetric('EnrichmentProviderErrors');
        logger.error('ENRICHMENT CONFIGURATION ERROR', { ...context, reason: result.reason });
        return false;
      case 'retry':
        // Each delivery that ends so is counted when the provider failed it (a timeout, a rate limit);
        // a lookup it still has queued is no failure, and is counted once it is answered.
        if (!result.queued) addMetric('EnrichmentProviderErrors');
        logger.warn('enrichment will be retried', { ...context, reason: result.reason });
        return false;
    }
  };

  // Powertools' batch processing reports each record that throws in `batchItemFailures`, so a bad record
  // fails alone; one at a time, in stream order, as before.
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  return async (event: DynamoDBStreamEvent, context?: Context): Promise<DynamoDBBatchResponse> => {
    // Writes retry within the invocation's time; a record that runs out is delivered again.
    const deadline = retryDeadline(context?.getRemainingTimeInMillis());
    const handle = async (record: DynamoDBRecord) => {
      if (!isPersonInsert(record)) return;
      let done: boolean;
      try {
        done = await enrich(record, deadline);
      } catch (error) {
        logger.error('enrichment failed', { error, eventID: record.eventID });
        throw error;
      }
      if (!done) throw new Error('Not enriched yet: delivered again');
    };
    return processPartialResponse(event, handle, processor, {
      ...(context ? { context } : {}),
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
  };
};
