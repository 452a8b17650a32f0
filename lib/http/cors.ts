/**
 * CORS (API.md 2.1), off by default: which origins may call the API from a browser, and what such a
 * call may send and read. Deployed it is API Gateway's own CORS (infra/person-service-stack.ts, the
 * `corsOrigins` deploy option); locally the server does what API Gateway does (lib/local/server.ts,
 * `CORS_ORIGINS`). Both take these lists, so a browser app that works against one works against the
 * other.
 */
import { ROUTES, servedMethods } from '../api/routes';

/** The request headers a browser may send: the body's type, the requester, conditions, idempotency, auth. */
export const CORS_ALLOWED_HEADERS = [
  'content-type',
  'x-requester-person',
  'if-match',
  'if-none-match',
  'idempotency-key',
  'authorization',
] as const;

/** The response headers a script may read besides the CORS-safelisted ones: the version and the new URL. */
export const CORS_EXPOSED_HEADERS = ['ETag', 'Location'] as const;

/** How long a browser may keep a preflight's answer: an hour (Chromium keeps it at most two). */
export const CORS_MAX_AGE_SECONDS = 3600;

/** Every method some route serves: API Gateway's list is one for the whole API. */
export const CORS_METHODS = [...new Set(ROUTES.flatMap(servedMethods))];

/**
 * The origins of a comma-separated list (`https://app.example.org, http://localhost:5173`). Each must
 * be an origin exactly (scheme, host and port, no path, no trailing slash, no wildcard), as browsers
 * send it in `Origin`: anything else could never match, so it is refused rather than ignored.
 */
export const corsOriginsFrom = (value: string | undefined, source: string): string[] => {
  const origins = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin)
      throw new Error(`${source} must list origins such as https://app.example.org, not ${origin}`);
  }
  return origins;
};
