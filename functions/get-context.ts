import { getContextHandler } from '../lib/http/self-description-handlers';

/** GET /context.jsonld */
export const handler = getContextHandler();
