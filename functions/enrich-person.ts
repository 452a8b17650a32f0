import { batchHandler } from '../lib/batch-handler';
import { socialAddressWriterFromEnv } from '../lib/db/from-env';
import { enrichPersons } from '../lib/enrichment/enrich-persons';
import { providerFromEnv } from '../lib/enrichment/from-env';
import { logger } from '../lib/logger';

/** SQS, fed by the bus's `person.created`: fills a new person's SocialAddresses from the enrichment provider (API.md 8). */
export const handler = batchHandler(
  enrichPersons({
    provider: providerFromEnv(),
    writer: socialAddressWriterFromEnv(),
    logger,
  }),
);
