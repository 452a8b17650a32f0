/**
 * The stored Person: the domain's own shape, independent of the wire format's `@type`/`@set` wrapping
 * (lib/domain/representation.ts turns it into the full Person of API.md 3).
 */
import type { z } from 'zod';
import { type ITEM_FIELDS, SET_NAMES, type SetName, SOCIAL_FIELDS, type SocialField } from './schemas';
import { fold, fullnameOf, normaliseEmail } from './text';

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
}

export type Person = {
  id: number;
  local_reference_id: string | null;
  SocialAddresses: Record<SocialField, string | null>;
  CoreMetaData: CoreMetaData;
} & { [N in SetName]: Item<N>[] };

/** A Person with nothing in it yet: what a create merges its body onto. */
export const emptyPerson = (id: number): Person => ({
  id,
  local_reference_id: null,
  Names: [],
  Emails: [],
  PhoneNumbers: [],
  PersonRoles: [],
  PostalAddresses: [],
  SocialAddresses: Object.fromEntries(Object.keys(SOCIAL_FIELDS).map((field) => [field, null])) as Record<
    SocialField,
    null
  >,
  CoreMetaData: { date_created: '', date_modified: '', created_by: 0, modified_by: null, version: 0 },
});

export const primaryOf = <N extends SetName>(items: Item<N>[]): Item<N> | undefined =>
  items.find((item) => (item as { primary?: boolean | null }).primary === true);

export const fullnameOfPerson = (person: Person): string => {
  const name = primaryOf(person.Names) ?? person.Names[0];
  return name ? fullnameOf(name) : '';
};

export const primaryEmailOf = (person: Person): string | null => primaryOf(person.Emails)?.email ?? null;

/** A value that only one person may hold at a time (API.md 5.5). */
export interface Claim {
  field: 'email' | 'name';
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

export const PERSON_PARTS = ['local_reference_id', ...SET_NAMES, 'SocialAddresses'] as const;
