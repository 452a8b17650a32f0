import { logger } from '../logger';
import { clearbitProvider } from './clearbit';
import type { PersonDataProvider } from './provider';

/** No provider configured: every lookup is "nothing known", and the operator is told once. */
const unconfigured: PersonDataProvider = {
  name: 'none',
  lookup: async () => ({ kind: 'not-found' }),
};

/** The provider from `ENRICHMENT_URL` and `ENRICHMENT_API_KEY`, read once per container. */
export const providerFromEnv = (env: NodeJS.ProcessEnv = process.env): PersonDataProvider => {
  if (!env.ENRICHMENT_URL) {
    logger.warn('ENRICHMENT_URL is not set: enrichment finds nothing');
    return unconfigured;
  }
  return clearbitProvider({
    url: env.ENRICHMENT_URL,
    apiKey: env.ENRICHMENT_API_KEY ?? '',
    ...(env.ENRICHMENT_TIMEOUT_MS ? { timeoutMs: Number(env.ENRICHMENT_TIMEOUT_MS) } : {}),
  });
};
