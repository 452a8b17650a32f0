import { jsonLdContext, termBaseOf } from '../lib/docs/context';
import { documentResponse } from '../lib/docs/serve';
import { readHandler } from '../lib/http/handler';

/** GET /context.jsonld: the JSON-LD context that every response names in `@context`. */
export const handler = readHandler().handler(async ({ links }) =>
  documentResponse(jsonLdContext(termBaseOf(links.contextUrl)), 'application/ld+json'),
);
