/**
 * The full Person of API.md 3, built from a stored Person: JSON-LD wrapping, derived `fullname` and
 * `email`, example objects in empty sets, and the echo of deleted elements' `local_reference_id`s.
 */
import type { AuditEntry } from './audit';
import { CHANGE_TYPES, type ChangeEntry, type ResourceType } from './change-history';
import { recordChecksum } from './checksum';
import { type ErasedPerson, isErasedPerson } from './erasure';
import { isMergedPerson, type MergedPerson } from './merge';
import type { Tombstone, Tombstones } from './patch';
import { fullnameOfPerson, type Person, primaryEmailOf } from './person';
import { strongTag } from './preconditions';
import {
  ITEM_FIELDS,
  ITEM_OWNER_KEYS,
  ITEM_TYPES,
  MEMBERSHIP_SETS,
  type PersonOut,
  type SetName,
  SOCIAL_FIELDS,
  type SocialField,
  TOP_LEVEL_SETS,
} from './schemas';
import { VOCABULARIES, type VocabularyEntry, type VocabularyKind } from './vocabulary';

export interface Links {
  /** Absolute base of the API, no trailing slash: `https://api.example.org/prod`. */
  baseUrl: string;
  /** The `@context` value. */
  contextUrl: string;
}

export const resourceUrl = (baseUrl: string, type: string, id: number) => `${baseUrl}/${type}/${id}`;
export const personUrl = (baseUrl: string, id: number) => resourceUrl(baseUrl, 'Person', id);

/** A record is live (1) until it is merged into another or erased (0, API.md 11.2, 13 and 15). */
const LIVE = 1 as const;
const MERGED = 0 as const;

interface StoredMetaData {
  date_created: string;
  date_modified: string;
  created_by: number | null;
  modified_by: number | null;
  version: number;
  created_audit_id?: number | null;
  modified_audit_id?: number | null;
}

/** CoreMetaData as every resource answers it: ours, then GRC's (API.md 3 and 11.2). */
export const coreMetaDataOut = <S extends typeof LIVE | typeof MERGED = typeof LIVE>(
  id: number,
  meta: StoredMetaData,
  liveStatus: S = LIVE as S,
) => ({
  '@type': 'CoreMetaData' as const,
  date_created: meta.date_created,
  date_modified: meta.date_modified,
  created_by: meta.created_by,
  modified_by: meta.modified_by,
  version: meta.version,
  created_audit_id: meta.created_audit_id ?? null,
  modified_audit_id: meta.modified_audit_id ?? null,
  live_status: liveStatus,
  validated: 0 as const,
  checksum: recordChecksum(meta.date_modified, id, liveStatus),
});

/**
 * A merged person as its GET answers it beside the 301 (API.md 13): its id, its survivor and its
 * CoreMetaData (`live_status` 0, `superceded_by` as GRC's CoreMetaData has it), no personal data.
 */
export const mergedPersonOut = (merged: MergedPerson, links: Links) => ({
  '@context': links.contextUrl,
  '@type': 'Person' as const,
  '@id': personUrl(links.baseUrl, merged.id),
  id: merged.id,
  superceded_by: merged.superceded_by,
  CoreMetaData: {
    ...coreMetaDataOut(merged.id, merged.CoreMetaData, MERGED),
    superceded_by: merged.superceded_by,
  },
});

/**
 * An erased person's tombstone as its GET (410) and its DELETE (200) answer it (API.md 15): its id
 * and its record's dates and version, `live_status` 0 and when it was erased; nothing personal.
 */
export const erasedPersonOut = (erased: ErasedPerson, links: Links) => ({
  '@context': links.contextUrl,
  '@type': 'Person' as const,
  '@id': personUrl(links.baseUrl, erased.id),
  id: erased.id,
  CoreMetaData: {
    date_created: erased.CoreMetaData.date_created,
    date_modified: erased.CoreMetaData.date_modified,
    version: erased.CoreMetaData.version,
    live_status: MERGED,
    erased: erased.erased,
  },
});

/** A NamePrefix or NameSuffix as its own endpoints show it (API.md 11.4). */
export const vocabularyOut = (kind: VocabularyKind, entry: VocabularyEntry, links: Links) => ({
  '@context': links.contextUrl,
  '@type': kind,
  '@id': resourceUrl(links.baseUrl, kind, entry.id),
  id: entry.id,
  [VOCABULARIES[kind].term]: entry.term,
  abbreviation: entry.abbreviation,
  local_reference_id: entry.local_reference_id,
  CoreMetaData: coreMetaDataOut(entry.id, entry.CoreMetaData),
});

/** The same entry in the `/Prefix`, `/Suffix` view (API.md 6): a resource of its own, with `@context`. */
export const referenceOut = (kind: VocabularyKind, entry: VocabularyEntry, links: Links) => {
  const { view, term } = VOCABULARIES[kind];
  return {
    '@context': links.contextUrl,
    '@type': view,
    '@id': resourceUrl(links.baseUrl, view, entry.id),
    id: entry.id,
    [term]: entry.term,
    abbreviation: entry.abbreviation,
  };
};

/** A stored object (a ChangeHistory snapshot) as its GET shows it; null stays null. */
const objectOut = (endpoint: ResourceType, object: unknown, links: Links) => {
  if (object == null) return null;
  if (endpoint !== 'Person') return vocabularyOut(endpoint, object as VocabularyEntry, links);
  if (isMergedPerson(object)) return mergedPersonOut(object, links);
  return isErasedPerson(object) ? erasedPersonOut(object, links) : toPersonOut(object as Person, links);
};

/**
 * A ChangeHistory entry (API.md 11.5), with the object before and after the change as GET showed them
 * (`previous` and `current` are the stored objects).
 */
export const changeHistoryOut = (entry: ChangeEntry, previous: unknown, current: unknown, links: Links) => ({
  '@context': links.contextUrl,
  '@type': 'ChangeHistory' as const,
  '@id': resourceUrl(links.baseUrl, 'ChangeHistory', entry.id),
  id: entry.id,
  endpoint: entry.endpoint,
  object_id: entry.object_id,
  person_fk: entry.requester,
  organization_fk: null,
  team_fk: null,
  type: CHANGE_TYPES[entry.action],
  changed: entry.changed,
  previous_object: objectOut(entry.endpoint, previous, links),
  current_object: objectOut(entry.endpoint, current, links),
  provider_data: entry.provider_data,
  timestamp: entry.at,
});

/** An AuditEntry as the API shows it; its `@id` is a fragment of the person's history. */
export const auditEntryOut = (entry: AuditEntry, baseUrl: string) => ({
  '@type': 'AuditEntry',
  '@id': `${personUrl(baseUrl, entry.person_id)}/audit#${entry.id}`,
  ...entry,
});

const nullOwners = (set: SetName) => Object.fromEntries(ITEM_OWNER_KEYS[set].map((key) => [key, null]));

/** The one object of an empty set: `@type` and every property null (API.md 3). */
const exampleItem = (set: SetName) => ({
  '@type': ITEM_TYPES[set],
  id: null,
  ...Object.fromEntries(Object.keys(ITEM_FIELDS[set]).map((field) => [field, null])),
  person_fk: null,
  ...nullOwners(set),
  local_reference_id: null,
});

const setOut = (set: SetName, person: Person, tombstones: Tombstone[] = []) => {
  // Properties in the contract's order, whatever order storage gave them back in.
  const fields = Object.keys(ITEM_FIELDS[set]);
  const live = (person[set] ?? []).map((item) => ({
    '@type': ITEM_TYPES[set],
    id: item.id,
    ...Object.fromEntries(fields.map((field) => [field, (item as Record<string, unknown>)[field] ?? null])),
    person_fk: person.id,
    ...nullOwners(set),
    local_reference_id: item.local_reference_id,
  }));
  return {
    '@type': set,
    '@set': [
      ...(live.length > 0 ? live : [exampleItem(set)]),
      ...tombstones.map(({ id, local_reference_id }) => ({
        '@type': ITEM_TYPES[set],
        id,
        local_reference_id,
      })),
    ],
  };
};

export const toPersonOut = (person: Person, links: Links, tombstones: Tombstones = {}): PersonOut =>
  ({
    '@context': links.contextUrl,
    '@type': 'Person',
    '@id': personUrl(links.baseUrl, person.id),
    id: person.id,
    fullname: fullnameOfPerson(person),
    email: primaryEmailOf(person),
    local_reference_id: person.local_reference_id,
    ...Object.fromEntries(TOP_LEVEL_SETS.map((set) => [set, setOut(set, person, tombstones[set])])),
    PersonMemberships: {
      '@type': 'PersonMemberships',
      ...Object.fromEntries(MEMBERSHIP_SETS.map((set) => [set, setOut(set, person, tombstones[set])])),
    },
    SocialAddresses: {
      '@type': 'SocialAddresses',
      ...Object.fromEntries(
        Object.keys(SOCIAL_FIELDS).map((field) => [
          field,
          person.SocialAddresses[field as SocialField] ?? null,
        ]),
      ),
    },
    CoreMetaData: coreMetaDataOut(person.id, person.CoreMetaData),
  }) as PersonOut;

/** The strong ETag of a stored version of any versioned object, Person or vocabulary entry (API.md 3). */
export const etagOf = (object: { CoreMetaData: { version: number } }) =>
  strongTag(object.CoreMetaData.version);
