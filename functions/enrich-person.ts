import { socialAddressWriterFromEnv } from '../lib/db/from-env';
import { enrichRecords } from '../lib/enrichment/enrich-records';
import { providerFromEnv } from '../lib/enrichment/from-env';
import { logger } from '../lib/logger';
import { streamHandler } from '../lib/stream-handler';

/** DynamoDB Streams: fills a new person's SocialAddresses from the enrichment provider (API.md 8). */
export const handler = streamHandler(
  enrichRecords({
    provider: providerFromEnv(),
    writer: socialAddressWriterFromEnv(),
    logger,
  }),
);
