/**
 * What enrichment needs from a person-data provider, whichever it is: the social profiles known for
 * an email, or why there are none. A second provider implements this and nothing else changes.
 */
import type { SocialProfiles } from '../domain/enrichment';

export type { SocialProfiles };

export type LookupResult =
  /** The provider knows this person; only the profiles it has are set. */
  | { kind: 'found'; profiles: SocialProfiles }
  /** The provider has nothing on this email: done, nothing to write. */
  | { kind: 'not-found' }
  /**
   * Try again later (queued lookup, rate limit, provider or network trouble). `queued`: the provider
   * took the lookup and is still working on it, which is no failure of its.
   */
  | { kind: 'retry'; reason: string; retryAfterMs?: number; queued?: true }
  /** The provider refuses our credentials or plan: an operator must act; retrying will not help. */
  | { kind: 'configuration-error'; reason: string }
  /** The provider answered something we cannot read: logged, nothing written. */
  | { kind: 'provider-error'; reason: string };

export interface PersonDataProvider {
  readonly name: string;
  lookup(email: string): Promise<LookupResult>;
}
