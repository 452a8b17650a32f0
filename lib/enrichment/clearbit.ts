/**
 * A Clearbit-style person lookup: `GET {url}/v2/people/find?email=...` with a bearer key (API.md 8).
 * Status codes as such providers use them: 200 data, 404 unknown, 202 queued (ask again), 429 rate
 * limited (honour Retry-After), 5xx and network faults retryable, 401/402/403 configuration errors.
 */
import * as z from 'zod';
import type { LookupResult, PersonDataProvider, SocialProfiles } from './provider';

const handle = z.object({ handle: z.string().nullable().optional() }).nullable().optional();

/** Only what we read; anything else the provider sends is ignored. */
const ProviderPerson = z.looseObject({
  twitter: handle,
  facebook: handle,
  linkedin: handle,
  youtube: handle,
});

const SAFE_HANDLE = /^[\w.@/-]{1,150}$/;

/**
 * Handles become profile URLs. A handle with characters a profile path does not have, or with empty,
 * `.` or `..` segments (which would lead off the profile), is dropped, not trusted.
 */
export const profilesOf = (person: z.output<typeof ProviderPerson>): SocialProfiles => {
  const profiles: SocialProfiles = {};
  const valid = (value: string | null | undefined) =>
    value &&
    SAFE_HANDLE.test(value) &&
    value.split('/').every((segment) => segment && segment !== '.' && segment !== '..')
      ? value
      : undefined;
  const twitter = valid(person.twitter?.handle);
  const facebook = valid(person.facebook?.handle);
  const linkedin = valid(person.linkedin?.handle);
  const youtube = valid(person.youtube?.handle);
  if (twitter) profiles.twitter = `https://x.com/${twitter.replace(/^@/, '')}`;
  if (facebook) profiles.facebook = `https://www.facebook.com/${facebook}`;
  if (linkedin) profiles.linkedin = `https://www.linkedin.com/${linkedin}`;
  if (youtube)
    profiles.youtube = /^UC[\w-]{22}$/.test(youtube)
      ? `https://www.youtube.com/channel/${youtube}`
      : `https://www.youtube.com/@${youtube.replace(/^@/, '')}`;
  return profiles;
};

/** `Retry-After` as seconds or an HTTP date, in milliseconds. */
export const retryAfterMs = (header: string | null, now = Date.now()): number | undefined => {
  if (!header) return undefined;
  if (/^\s*[-+]?\d+(\.\d+)?\s*$/.test(header)) {
    const seconds = Number(header);
    return seconds >= 0 ? seconds * 1000 : undefined;
  }
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

export interface ClearbitOptions {
  url: string;
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export const clearbitProvider = ({
  url,
  apiKey,
  timeoutMs = 2_000,
  fetch: get = fetch,
}: ClearbitOptions): PersonDataProvider => ({
  name: 'clearbit',
  async lookup(email): Promise<LookupResult> {
    let response: Response;
    try {
      response = await get(`${url.replace(/\/+$/, '')}/v2/people/find?${new URLSearchParams({ email })}`, {
        headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const reason =
        (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'network error';
      return { kind: 'retry', reason };
    }
    const status = response.status;
    if (status === 200) {
      let body: unknown;
      try {
        body = await response.json();
      } catch {
        return { kind: 'provider-error', reason: 'the body is not JSON' };
      }
      const parsed = ProviderPerson.safeParse(body);
      if (!parsed.success)
        return { kind: 'provider-error', reason: `unexpected body: ${parsed.error.issues[0]?.message}` };
      return { kind: 'found', profiles: profilesOf(parsed.data) };
    }
    await response.body?.cancel();
    if (status === 404) return { kind: 'not-found' };
    if (status === 202) return { kind: 'retry', reason: 'lookup queued', queued: true, ...delay(response) };
    if (status === 429) return { kind: 'retry', reason: 'rate limited', ...delay(response) };
    if (status === 401 || status === 402 || status === 403)
      return {
        kind: 'configuration-error',
        reason: `the provider answered ${status}: check ENRICHMENT_API_KEY and the plan`,
      };
    if (status >= 500)
      return { kind: 'retry', reason: `the provider answered ${status}`, ...delay(response) };
    return { kind: 'provider-error', reason: `unexpected status ${status}` };
  },
});

const delay = (response: Response) => {
  const ms = retryAfterMs(response.headers.get('retry-after'));
  return ms === undefined ? {} : { retryAfterMs: ms };
};
