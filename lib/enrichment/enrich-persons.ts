/**
 * Enrichment, a consumer of `person.created` on the bus (lib/api/bus-subscriptions.ts): for each new
 * person with a primary email, ask the provider and write what it knows into the still-empty
 * SocialAddresses fields. A message that fails is reported alone and comes again from its queue
 * (lib/bus/consumer.ts). Each lookup's outcome is counted (EnrichmentFilled, EnrichmentUnknown,
 * EnrichmentProviderErrors); the function writes them when its invocation ends.
 *
 * At least once and in no set order is safe: it reads the person as it is now, and writes only on
 * the version it read and where no enrichment mark is, so a second delivery writes nothing.
 */

import { queueConsumer } from '../bus/consumer';
import type { SocialAddressWriter } from '../db/person/write/social-address-writer';
import type { CloudEvent } from '../domain/feed';
import { primaryEmailOf } from '../domain/person';
import type { logger as defaultLogger } from '../logger';
import { addMetric } from '../metrics';
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

export const enrichPersons = ({
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

  /** True when the person is done with (written, or nothing to do); false to have it delivered again. */
  const enrich = async (event: CloudEvent, deadline: number): Promise<boolean> => {
    if (event.type !== 'person.created') return true;
    const personId = event.data.id;
    const context = { personId, eventId: event.id, provider: provider.name };
    // A person merged into another since (API.md 13) has none to fill; one enriched already is done.
    const { person, enriched } = await writer.state(personId);
    const email = person && primaryEmailOf(person);
    if (!email || enriched) return true;
    const result = await lookup(email);
    switch (result.kind) {
      case 'found': {
        const outcome = await writer.fill(personId, result.profiles, deadline);
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

  return queueConsumer(
    async (event, deadline) => {
      let done: boolean;
      try {
        done = await enrich(event, deadline);
      } catch (error) {
        logger.error('enrichment failed', { error, eventId: event.id });
        throw error;
      }
      if (!done) throw new Error('Not enriched yet: delivered again');
    },
    { logger },
  );
};
