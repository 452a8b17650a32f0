/**
 * The persons the tests write and read, typed out once: John Smith of API.md 3's examples, and the
 * elements of a Person (a Name, an Email, the social addresses) as they are stored and answered,
 * every field that was not given null.
 */
import type { NameItem } from '../../lib/domain/person';

/** John Smith as API.md 3 shows him: his name, his email and the local reference id of his record. */
export const JOHN_SMITH = {
  first_name: 'John',
  last_name: 'Smith',
  fullname: 'John Smith',
  email: 'jsmith@no-reply.org',
  local_reference_id: '1808bd7f-c99d-4ed0-8310-87483427041f',
} as const;

/** His Name's parts, as a body sends them. */
export const JOHN_SMITH_NAME = {
  first_name: JOHN_SMITH.first_name,
  last_name: JOHN_SMITH.last_name,
} as const;

/** API.md 3's create body: John Smith, his Name's local reference `name-1`, one email. */
export const johnSmithBody = () => ({
  local_reference_id: JOHN_SMITH.local_reference_id,
  Names: { '@set': [{ ...JOHN_SMITH_NAME, local_reference_id: 'name-1' }] },
  Emails: { '@set': [{ email: JOHN_SMITH.email }] },
});

/** John Smith's create body with these emails (none: he is known by his name only). */
export const johnSmithWith = (...emails: string[]) => ({
  Names: { '@set': [{ ...JOHN_SMITH_NAME }] },
  ...(emails.length > 0 ? { Emails: { '@set': emails.map((email) => ({ email })) } } : {}),
});

/** A Name as stored: every part null but those given, primary unless said. */
export const storedName = (parts: Partial<NameItem> & { id: NameItem['id'] }): NameItem => ({
  local_reference_id: null,
  first_name: null,
  last_name: null,
  middle_initial: null,
  freeform_name: null,
  name_prefix_fk: null,
  name_suffix_fk: null,
  primary: true,
  ...parts,
});

/** A Name as GET answers it for person `personId`: a stored Name with its type and its person. */
export const answeredName = (personId: number, parts: Record<string, unknown> & { id: unknown }) => ({
  '@type': 'Name',
  ...storedName(parts as NameItem),
  person_fk: personId,
});

/** An Email as GET answers it for person `personId`: primary, no organization, no local reference. */
export const answeredEmail = (personId: number, parts: { id: unknown; email: unknown }) => ({
  '@type': 'Email',
  primary: true,
  person_fk: personId,
  organization_fk: null,
  local_reference_id: null,
  ...parts,
});

/** SocialAddresses as answered for a person who has none. */
export const NO_SOCIAL_ADDRESSES = {
  '@type': 'SocialAddresses',
  twitter: null,
  facebook: null,
  linkedin: null,
  youtube: null,
} as const;
