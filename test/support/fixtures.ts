import { randomUUID } from 'node:crypto';
import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import type { DuplicatePair } from '../../lib/domain/duplicates';
import { applyPatch } from '../../lib/domain/patch';
import type { Abbreviations, Person } from '../../lib/domain/person';
import { CreatePersonBody, MEMBERSHIP_SETS, type PersonOut, type SetName } from '../../lib/domain/schemas';
import type { VocabularyEntry } from '../../lib/domain/vocabulary';

/** The example object of each set, exactly as API.md 3 shows it in an empty set. */
export const EXAMPLE_OBJECTS = {
  Names: {
    '@type': 'Name',
    id: null,
    first_name: null,
    last_name: null,
    middle_initial: null,
    freeform_name: null,
    name_prefix_fk: null,
    name_suffix_fk: null,
    primary: null,
    person_fk: null,
    local_reference_id: null,
  },
  Emails: {
    '@type': 'Email',
    id: null,
    email: null,
    primary: null,
    person_fk: null,
    organization_fk: null,
    local_reference_id: null,
  },
  PhoneNumbers: {
    '@type': 'PhoneNumber',
    id: null,
    phone_number: null,
    primary: null,
    person_fk: null,
    organization_fk: null,
    local_reference_id: null,
  },
  PersonRoles: {
    '@type': 'PersonRole',
    id: null,
    name: null,
    role_fk: null,
    person_fk: null,
    local_reference_id: null,
  },
  PostalAddresses: {
    '@type': 'PostalAddress',
    id: null,
    address1: null,
    address2: null,
    city: null,
    state_territory_province: null,
    postal_code: null,
    country: null,
    country_code: null,
    primary: null,
    person_fk: null,
    organization_fk: null,
    local_reference_id: null,
  },
  PersonOrganizations: {
    '@type': 'PersonOrganization',
    id: null,
    name: null,
    organization_fk: null,
    person_fk: null,
    local_reference_id: null,
  },
  PersonGroups: {
    '@type': 'PersonGroup',
    id: null,
    name: null,
    group_fk: null,
    person_fk: null,
    local_reference_id: null,
  },
  PersonInitiatives: {
    '@type': 'PersonInitiative',
    id: null,
    name: null,
    initiative: null,
    person_fk: null,
    local_reference_id: null,
  },
  PersonTeams: {
    '@type': 'PersonTeam',
    id: null,
    name: null,
    team_fk: null,
    person_fk: null,
    local_reference_id: null,
  },
} as const;

/** The seeded vocabularies' abbreviations, as a write that points at any seeded entry reads them. */
export const SEEDED_ABBREVIATIONS: Abbreviations = {
  NamePrefix: new Map(SEEDED_VOCABULARY.NamePrefix.map(({ id, abbreviation }) => [id, abbreviation])),
  NameSuffix: new Map(SEEDED_VOCABULARY.NameSuffix.map(({ id, abbreviation }) => [id, abbreviation])),
};

/** The id of the ChangeHistory entry a patch in a unit test writes. */
export const CHANGE_ID = 9_000;

/** The NamePrefix entry Doctor/"Dr." (21) at its third version. */
export const doctor: VocabularyEntry = {
  id: 21,
  term: 'Doctor',
  abbreviation: 'Dr.',
  local_reference_id: null,
  CoreMetaData: {
    date_created: '2026-01-02T03:04:05.000Z',
    date_modified: '2026-01-02T03:04:05.000Z',
    created_by: null,
    modified_by: 5,
    version: 3,
    created_audit_id: 1_001,
    modified_audit_id: CHANGE_ID,
  },
};

const isMembership = (set: SetName) => (MEMBERSHIP_SETS as readonly SetName[]).includes(set);

/** A body part sending `elements` for a set, in the container the wire puts it in (PersonMemberships). */
export const sendSet = (set: SetName, elements: unknown[]) => {
  const part = { [set]: { '@type': set, '@set': elements } };
  return isMembership(set) ? { PersonMemberships: part } : part;
};

/** A set of a full Person as answered, wherever it sits. */
export const setIn = (person: PersonOut, set: SetName) =>
  (isMembership(set)
    ? (person.PersonMemberships as Record<string, unknown>)[set]
    : (person as Record<string, unknown>)[set]) as { '@type': string; '@set': Record<string, unknown>[] };

/**
 * Email elements with little text in common (about 30 search postings each): `count` of them make
 * more postings than one transaction holds.
 */
export const distinctEmails = (count: number) =>
  Array.from({ length: count }, () => ({
    email: `${randomUUID().replaceAll('-', '')}@${randomUUID().slice(0, 8)}.example`,
  }));

/** What the `byName` index reads of John Smith, person 100, with the given folded emails. */
export const johnSmithListing = (...emails: string[]) => ({
  listPk: 'PERSONS#2', // the shard of person 100
  listSk: 'john smith\u00010000000000000100',
  fullname: 'John Smith',
  search_first_name: 'john',
  search_last_name: 'smith',
  search_email: emails.join('\n'),
  search_rest: 'john smith',
});

/** Ids from `first` on, one after another, as the id counter hands them to one write. */
export const idsFrom = (first: number) => {
  let next = first;
  return () => next++;
};

/**
 * What a unit test gives applyPatch: a write by `requester` at `now`, new ids from `firstId` on, its
 * ChangeHistory entry `changeId` (CHANGE_ID unless said), the seeded vocabularies' abbreviations.
 */
export const patchContext = ({
  requester,
  now,
  firstId,
  changeId = CHANGE_ID,
}: {
  requester: number;
  now: string;
  firstId: number;
  changeId?: number;
}) => ({ requester, now, nextId: idsFrom(firstId), changeId, abbreviations: SEEDED_ABBREVIATIONS });

/**
 * The context of a self-registered write in the unit tests: a create (person 100, its sub-objects
 * from 101, entry 99) or a PATCH (new sub-objects from 200, entry 199), by requester 0.
 */
export const writeContext = (kind: 'create' | 'update') =>
  kind === 'create'
    ? patchContext({ requester: 0, now: '2026-11-25T00:00:00.000Z', firstId: 100, changeId: 99 })
    : patchContext({ requester: 0, now: '2026-11-26T00:00:00.000Z', firstId: 200, changeId: 199 });

/**
 * The stored Person of a create body, written as `writeContext('create')` writes it (by `requester`,
 * default 0), its ids from `firstId` on (100 by default; ids are unique across persons).
 */
export const createdPerson = (body: unknown, { firstId = 100, requester = 0 } = {}): Person =>
  applyPatch(null, CreatePersonBody.parse(body), {
    ...writeContext('create'),
    requester,
    nextId: idsFrom(firstId),
  }).person;

/** API.md 12.1's example pair (open, probable, 91), of other persons and with other values where said. */
export const examplePair = (
  persons: [number, number] = [30863, 41207],
  overrides: Partial<DuplicatePair> = {},
): DuplicatePair => ({
  '@type': 'DuplicatePair',
  id: `${persons[0]}-${persons[1]}`,
  persons,
  score: 91,
  grade: 'probable',
  features: [
    { id: 'name', value: 100 },
    { id: 'phones', value: 10 },
  ],
  detected: '2026-11-21T15:04:05.123Z',
  status: 'open',
  ...overrides,
});
