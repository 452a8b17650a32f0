/**
 * The stored Person: the domain's own shape, independent of the wire format's `@type`/`@set` wrapping
 * (lib/domain/representation.ts turns it into the full Person of API.md 3).
 */
import type { z } from 'zod';
import { normaliseEmail } from './email';
import {
  type ITEM_FIELDS,
  SET_NAMES,
  type SetName,
  SOCIAL_FIELDS,
  type SocialField,
  setPointer,
} from './schemas';
import { fold, fullnameOf } from './text';

type FieldValues<N extends SetName> = {
  [K in keyof (typeof ITEM_FIELDS)[N]]: (typeof ITEM_FIELDS)[N][K] extends z.ZodType
    ? z.output<(typeof ITEM_FIELDS)[N][K]> | null
    : never;
};

export type Item<N extends SetName = SetName> = {
  id: number;
  local_reference_id: string | null;
} & FieldValues<N>;

export type NameItem = Item<'Names'>;
export type EmailItem = Item<'Emails'>;

export interface CoreMetaData {
  date_created: string;
  date_modified: string;
  created_by: number;
  modified_by: number | null;
  version: number;
  /** Id of the ChangeHistory entry of the create (API.md 11.2). */
  created_audit_id?: number | null;
  /** Id of the ChangeHistory entry of the latest change; null before one. */
  modified_audit_id?: number | null;
}

export type Person = {
  id: number;
  /**
   * Derived from the primary Name with the prefix and suffix abbreviations of the time of the write
   * (API.md 3), so it is stored: a later rename in the vocabulary shows at the person's next write.
   */
  fullname: string;
  local_reference_id: string | null;
  SocialAddresses: Record<SocialField, string | null>;
  CoreMetaData: CoreMetaData;
} & { [N in SetName]: Item<N>[] };

/**
 * The Person's type name: its `@type` on the wire, and the `type` of its item in the table, by which the
 * stream's event filter, the enrichment and the backfill tell Person items from the others.
 */
export const PERSON_TYPE = 'Person';

/** A Person with nothing in it yet: what a create applies its body to. */
export const emptyPerson = (id: number): Person => ({
  id,
  fullname: '',
  local_reference_id: null,
  ...(Object.fromEntries(SET_NAMES.map((set) => [set, []])) as unknown as { [N in SetName]: Item<N>[] }),
  SocialAddresses: Object.fromEntries(Object.keys(SOCIAL_FIELDS).map((field) => [field, null])) as Record<
    SocialField,
    null
  >,
  CoreMetaData: { date_created: '', date_modified: '', created_by: 0, modified_by: null, version: 0 },
});

export const primaryOf = <N extends SetName>(items: Item<N>[]): Item<N> | undefined =>
  items.find((item) => (item as { primary?: unknown }).primary === true);

/** The Name that feeds `fullname`: the primary one, else the first. */
export const displayNameOf = (person: Pick<Person, 'Names'>): NameItem | undefined =>
  primaryOf(person.Names) ?? person.Names[0];

/** Abbreviations of the vocabulary entries a Name points at, by id (lib/domain/vocabulary.ts). */
export interface Abbreviations {
  NamePrefix: ReadonlyMap<number, string>;
  NameSuffix: ReadonlyMap<number, string>;
}

export const NO_ABBREVIATIONS: Abbreviations = { NamePrefix: new Map(), NameSuffix: new Map() };

/** GRC's fullname of a person's display Name, with the abbreviations known at the time of the write. */
export const computeFullname = (person: Pick<Person, 'Names'>, abbreviations: Abbreviations): string => {
  const name = displayNameOf(person);
  if (!name) return '';
  return fullnameOf({
    ...name,
    prefix: name.name_prefix_fk == null ? null : abbreviations.NamePrefix.get(name.name_prefix_fk),
    suffix: name.name_suffix_fk == null ? null : abbreviations.NameSuffix.get(name.name_suffix_fk),
  });
};

/** The stored fullname; persons written before it was stored get it computed without abbreviations. */
export const fullnameOfPerson = (person: Person): string =>
  person.fullname ?? computeFullname(person, NO_ABBREVIATIONS);

export const primaryEmailOf = (person: Person): string | null => primaryOf(person.Emails)?.email ?? null;

/** What a claim makes unique: a person's email or name (API.md 5.5), a vocabulary abbreviation (11.4). */
export type ClaimField = 'email' | 'name' | 'NamePrefix' | 'NameSuffix';

/** A value that only one object may hold at a time. */
export interface Claim {
  field: ClaimField;
  /** The comparison form: normalised email or folded fullname. */
  value: string;
}

/** Persons are unique by their emails, or by their folded fullname when they have none. */
export const claimsOf = (person: Person): Claim[] =>
  person.Emails.length > 0
    ? person.Emails.flatMap(({ email }) =>
        email ? [{ field: 'email' as const, value: normaliseEmail(email) }] : [],
      )
    : [{ field: 'name', value: fold(fullnameOfPerson(person)) }];

/** The parts of a Person a write can change, with the JSON Pointer that names each in `changed`. */
export const PERSON_PARTS = [
  ['local_reference_id', '/local_reference_id'],
  ...SET_NAMES.map((set) => [set, setPointer(set)] as const),
  ['SocialAddresses', '/SocialAddresses'],
] as const satisfies readonly (readonly [keyof Person, string])[];

/** The parts a person holds (their pointers, as `changed` names them): what a merge or an erasure takes. */
export const heldParts = (person: Person): string[] => [
  ...(person.local_reference_id ? ['/local_reference_id'] : []),
  ...SET_NAMES.filter((set) => person[set].length > 0).map(setPointer),
  ...(Object.values(person.SocialAddresses).some((value) => value != null) ? ['/SocialAddresses'] : []),
];
