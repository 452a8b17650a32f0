/**
 * The full Person of API.md 3, built from a stored Person: JSON-LD wrapping, derived `fullname` and
 * `email`, example objects in empty sets, and the echo of deleted elements' `local_reference_id`s.
 */
import type { AuditEntry } from './audit';
import type { Tombstones } from './merge';
import { fullnameOfPerson, type Person, primaryEmailOf } from './person';
import {
  ITEM_FIELDS,
  ITEM_TYPES,
  type PersonOut,
  SET_NAMES,
  type SetName,
  SOCIAL_FIELDS,
  type SocialField,
} from './schemas';

export interface Links {
  /** Absolute base of the API, no trailing slash: `https://api.example.org/prod`. */
  baseUrl: string;
  /** The `@context` value. */
  contextUrl: string;
}

export const resourceUrl = (baseUrl: string, type: string, id: number) => `${baseUrl}/${type}/${id}`;
export const personUrl = (baseUrl: string, id: number) => resourceUrl(baseUrl, 'Person', id);

/** A Prefix or Suffix as the API shows it: a resource of its own, so with its `@context` (API.md 2). */
export const referenceOut = <T extends { id: number }>(type: 'Prefix' | 'Suffix', item: T, links: Links) => ({
  '@context': links.contextUrl,
  '@type': type,
  '@id': resourceUrl(links.baseUrl, type, item.id),
  ...item,
});

/** An AuditEntry as the API shows it; its `@id` is a fragment of the person's history. */
export const auditEntryOut = (entry: AuditEntry, baseUrl: string) => ({
  '@type': 'AuditEntry',
  '@id': `${personUrl(baseUrl, entry.person_id)}/audit#${entry.id}`,
  ...entry,
});

/** The one object of an empty set: `@type` and every property null (API.md 3). */
const exampleItem = (set: SetName) => ({
  '@type': ITEM_TYPES[set],
  id: null,
  ...Object.fromEntries(Object.keys(ITEM_FIELDS[set]).map((field) => [field, null])),
  person_fk: null,
  local_reference_id: null,
});

const setOut = (set: SetName, person: Person, tombstones: string[] = []) => {
  // Properties in the contract's order, whatever order storage gave them back in.
  const fields = Object.keys(ITEM_FIELDS[set]);
  const live = person[set].map((item) => ({
    '@type': ITEM_TYPES[set],
    id: item.id,
    ...Object.fromEntries(fields.map((field) => [field, (item as Record<string, unknown>)[field] ?? null])),
    person_fk: person.id,
    local_reference_id: item.local_reference_id,
  }));
  return {
    '@type': set,
    '@set': [
      ...(live.length > 0 ? live : [exampleItem(set)]),
      ...tombstones.map((local_reference_id) => ({ '@type': ITEM_TYPES[set], local_reference_id })),
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
    ...Object.fromEntries(SET_NAMES.map((set) => [set, setOut(set, person, tombstones[set])])),
    SocialAddresses: {
      '@type': 'SocialAddresses',
      ...Object.fromEntries(
        Object.keys(SOCIAL_FIELDS).map((field) => [
          field,
          person.SocialAddresses[field as SocialField] ?? null,
        ]),
      ),
    },
    CoreMetaData: {
      '@type': 'CoreMetaData',
      date_created: person.CoreMetaData.date_created,
      date_modified: person.CoreMetaData.date_modified,
      created_by: person.CoreMetaData.created_by,
      modified_by: person.CoreMetaData.modified_by,
      version: person.CoreMetaData.version,
    },
  }) as PersonOut;

/** The strong ETag of a stored version (API.md 3). */
export const etagOf = (person: Person) => `"${person.CoreMetaData.version}"`;
