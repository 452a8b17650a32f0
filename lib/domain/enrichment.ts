/** Enrichment's change to a Person (API.md 8): fill social addresses that are still empty, nothing else. */
import type { Person } from './person';
import type { SocialField } from './schemas';

export type SocialProfiles = Partial<Record<SocialField, string>>;

export interface Filled {
  person: Person;
  /** The fields written; empty when the person already had all the provider knows. */
  filled: SocialField[];
}

/** A value a client set is never overwritten; a real change bumps the version like any other. */
export const fillSocialAddresses = (person: Person, profiles: SocialProfiles, now: string): Filled => {
  const filled = (Object.keys(profiles) as SocialField[]).filter(
    (field) => profiles[field] && person.SocialAddresses[field] == null,
  );
  if (filled.length === 0) return { person, filled };
  return {
    person: {
      ...person,
      SocialAddresses: {
        ...person.SocialAddresses,
        ...Object.fromEntries(filled.map((field) => [field, profiles[field]])),
      },
      CoreMetaData: { ...person.CoreMetaData, date_modified: now, version: person.CoreMetaData.version + 1 },
    },
    filled,
  };
};
