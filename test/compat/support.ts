/**
 * What the GRC compatibility suite shares: an HTTP client for the real local server, GRC's fixtures
 * with their placeholders filled in, the full Person as API.md 3 and 11.2 describe it, and an
 * independent Verhoeff check digit to verify `CoreMetaData.checksum` with.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { EXAMPLE_OBJECTS } from '../support/fixtures';
import { request } from '../support/http';
import { NO_SOCIAL_ADDRESSES } from '../support/persons';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
export type Json = Record<string, any>;

export interface Reply {
  status: number;
  headers: Headers;
  body: Json;
}

export interface WriteOptions {
  /** The `x-requester-person` header; null sends none. */
  requester: number | string | null;
  headers?: Record<string, string>;
}

const parse = (text: string): Json => {
  if (text === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    return { unparsed: text };
  }
};

/** GET, POST and PATCH against one server, as a GRC client sends them (`application/json` bodies). */
export const apiOf = (base: string) => {
  const send = async (
    method: string,
    path: string,
    body: object | undefined,
    headers: Record<string, string>,
  ) => {
    const response = await request(base, method, path, { body, headers });
    return { status: response.status, headers: response.headers, body: parse(await response.text()) };
  };
  const writeHeaders = ({ requester, headers = {} }: WriteOptions) => ({
    ...(requester === null ? {} : { 'x-requester-person': String(requester) }),
    ...headers,
  });
  return {
    base,
    get: (path: string, headers: Record<string, string> = {}): Promise<Reply> =>
      send('GET', path, undefined, headers),
    post: (path: string, body: object, options: WriteOptions): Promise<Reply> =>
      send('POST', path, body, writeHeaders(options)),
    patch: (path: string, body: object, options: WriteOptions): Promise<Reply> =>
      send('PATCH', path, body, writeHeaders(options)),
  };
};

export type Api = ReturnType<typeof apiOf>;

// ---------------------------------------------------------------------------------------------------
// Fixtures

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

type Values = Record<string, string | number | null>;

const fill = (value: unknown, values: Values, name: string): unknown => {
  if (Array.isArray(value)) return value.map((item) => fill(item, values, name));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, values, name)]));
  if (typeof value !== 'string') return value;
  const lookup = (key: string) => {
    if (!(key in values)) throw new Error(`Fixture ${name} needs a value for {{${key}}}`);
    return values[key] as string | number | null;
  };
  // A placeholder that is the whole string stands for a value of any type (an id is a number).
  const whole = /^\{\{(\w+)\}\}$/.exec(value);
  if (whole) return lookup(whole[1] as string);
  return value.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(lookup(key)));
};

/**
 * A fresh copy of `fixtures/<name>.json` with its `{{placeholders}}` filled in: ids the service gave
 * earlier responses, and a tag that keeps emails and abbreviations unique within one server.
 */
export const fixture = (name: string, values: Values = {}): Json =>
  fill(JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8')), values, name) as Json;

// ---------------------------------------------------------------------------------------------------
// The full Person (API.md 3, 11.1, 11.2)

export type SetName = 'Names' | 'Emails' | 'PhoneNumbers' | 'PersonRoles' | 'PostalAddresses';
export type MembershipSet = 'PersonOrganizations' | 'PersonGroups' | 'PersonInitiatives' | 'PersonTeams';

/** The example object of each empty set: `@type` and every property null, GRC's keys included. */
export const EXAMPLES: Record<SetName | MembershipSet, Json> = EXAMPLE_OBJECTS;

export const SET_NAMES: readonly SetName[] = [
  'Names',
  'Emails',
  'PhoneNumbers',
  'PersonRoles',
  'PostalAddresses',
];
export const MEMBERSHIP_SETS: readonly MembershipSet[] = [
  'PersonOrganizations',
  'PersonGroups',
  'PersonInitiatives',
  'PersonTeams',
];

/** A live item of a person's set: the set's example object with the person's id and the given values. */
export const item = (set: SetName | MembershipSet, personId: number, values: Json): Json => ({
  ...EXAMPLES[set],
  person_fk: personId,
  ...values,
});

/** A delete element echoed back (API.md 5.3): the deleted id, the client's tag, no property. */
export const tombstone = (type: string, id: number, local_reference_id: string) => ({
  '@type': type,
  id,
  local_reference_id,
});

const container = (set: string, items: Json[] | undefined, example: Json) => ({
  '@type': set,
  '@set': items && items.length > 0 ? items : [example],
});

export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export interface ExpectedMetaData {
  created_by: number;
  modified_by: number | null;
  version: number;
  /** Defaults to any id: a POST response cannot know its ChangeHistory id in advance. */
  created_audit_id?: number;
  modified_audit_id?: number | null;
}

/**
 * The CoreMetaData of API.md 3 and 11.2: ours and GRC's. The checksum is recomputed here from the
 * `date_modified` and `id` the response shows, so a checksum over other digits fails.
 */
export const coreMetaData = (person: Json, expected: ExpectedMetaData) => ({
  '@type': 'CoreMetaData',
  date_created: expect.stringMatching(ISO_INSTANT),
  date_modified: expect.stringMatching(ISO_INSTANT),
  created_by: expected.created_by,
  modified_by: expected.modified_by,
  version: expected.version,
  created_audit_id: expected.created_audit_id ?? expect.any(Number),
  modified_audit_id:
    expected.modified_audit_id === undefined
      ? expected.modified_by === null
        ? null
        : expect.any(Number)
      : expected.modified_audit_id,
  live_status: 1,
  validated: 0,
  checksum: grcChecksum(String(person.CoreMetaData?.date_modified), Number(person.id), 1),
});

export interface ExpectedPerson {
  id: number;
  fullname: string;
  email: string | null;
  local_reference_id?: string | null;
  sets: Partial<Record<SetName, Json[]>>;
  memberships?: Partial<Record<MembershipSet, Json[]>>;
  CoreMetaData: Json;
}

/** The whole full Person a GRC client reads back: every key, nothing more. */
export const fullPerson = (base: string, expected: ExpectedPerson): Json => ({
  '@context': `${base}/context.jsonld`,
  '@type': 'Person',
  '@id': `${base}/Person/${expected.id}`,
  id: expected.id,
  fullname: expected.fullname,
  email: expected.email,
  local_reference_id: expected.local_reference_id ?? null,
  ...Object.fromEntries(SET_NAMES.map((set) => [set, container(set, expected.sets[set], EXAMPLES[set])])),
  SocialAddresses: NO_SOCIAL_ADDRESSES,
  PersonMemberships: {
    '@type': 'PersonMemberships',
    ...Object.fromEntries(
      MEMBERSHIP_SETS.map((set) => [set, container(set, expected.memberships?.[set], EXAMPLES[set])]),
    ),
  },
  CoreMetaData: expected.CoreMetaData,
});

const isTombstone = (element: Json) =>
  Object.keys(element).sort().join() === ['@type', 'id', 'local_reference_id'].sort().join();

const byId = (left: Json, right: Json) => Number(left.id) - Number(right.id);

const orderSet = (set: Json) => {
  if (!Array.isArray(set?.['@set'])) return set;
  const elements = set['@set'] as Json[];
  return {
    ...set,
    '@set': [
      ...elements.filter((element) => !isTombstone(element)).sort(byId),
      ...elements.filter(isTombstone),
    ],
  };
};

/**
 * The person with the live items of every set in id order. Neither GRC nor API.md fixes the order of
 * an unordered `@set`; tombstones stay after the live items (their place is checked on its own).
 */
export const ordered = (person: Json): Json => {
  const copy: Json = { ...person };
  for (const set of SET_NAMES) if (set in copy) copy[set] = orderSet(copy[set]);
  if (copy.PersonMemberships && typeof copy.PersonMemberships === 'object') {
    copy.PersonMemberships = { ...copy.PersonMemberships };
    for (const set of MEMBERSHIP_SETS)
      if (set in copy.PersonMemberships) copy.PersonMemberships[set] = orderSet(copy.PersonMemberships[set]);
  }
  return copy;
};

/** The elements of an unordered `@set`, in any order: as many as expected, and each expected one there. */
export const expectSetOf = (actual: Json[], expected: Json[]) => {
  expect(actual).toHaveLength(expected.length);
  expect(actual).toEqual(expect.arrayContaining(expected));
};

/** Two answers show the same person (live items of a set may come in any order). */
export const expectSamePerson = (actual: Json, expected: Json) => {
  expect(ordered(actual)).toEqual(ordered(expected));
};

/** The element of a set that holds `email`: ids come from the service, emails from the fixture. */
export const emailItem = (person: Json, email: string): Json => {
  const found = (person.Emails?.['@set'] as Json[] | undefined)?.find((element) => element.email === email);
  if (!found) throw new Error(`No Email ${email} in ${JSON.stringify(person.Emails)}`);
  return found;
};

// ---------------------------------------------------------------------------------------------------
// Problems and counts

/** RFC 9457 problem+json with all four members (API.md 7). */
export const expectProblem = (reply: Reply, status: number, type: string) => {
  expect(reply.status).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({
    type: `/problems/${type}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
  });
};

/** `Pagination.count` of a GRC-shaped list (`limit=1`: only the count matters). */
export const countOf = async (api: Api, path: string, query: Record<string, string | number> = {}) => {
  const search = new URLSearchParams({ limit: '1' });
  for (const [key, value] of Object.entries(query)) search.set(key, String(value));
  const reply = await api.get(`${path}?${search}`);
  expect(reply.status).toBe(200);
  return reply.body.Pagination.count as number;
};

// ---------------------------------------------------------------------------------------------------
// The Verhoeff check digit (GRC's checksum proposal), from the dihedral group D5

/** d: the multiplication table of D5. */
const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];

/** p: the position-dependent permutations (row i is the permutation applied i times). */
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];

/** inv: the inverse of each element of D5. */
const INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

const fold = (digits: string, shift: number) => {
  if (!/^\d+$/.test(digits)) throw new Error(`Not a digit string: ${digits}`);
  let check = 0;
  [...digits].reverse().forEach((digit, index) => {
    check = (D[check] as number[])[(P[(index + shift) % 8] as number[])[Number(digit)] as number] as number;
  });
  return check;
};

/** The check digit to append to `digits`. */
export const verhoeffDigit = (digits: string) => INV[fold(digits, 1)] as number;

/** Whether `digits` ends in its correct check digit. */
export const verhoeffValid = (digits: string) => fold(digits, 0) === 0;

/**
 * The digit string of API.md 11.2: the digits of `date_modified` (every non-digit dropped), then the
 * decimal `id`, then `live_status`.
 */
export const checksumDigits = (dateModified: string, id: number, liveStatus: number) =>
  `${dateModified.replace(/\D/g, '')}${id}${liveStatus}`;

export const grcChecksum = (dateModified: string, id: number, liveStatus: number) =>
  verhoeffDigit(checksumDigits(dateModified, id, liveStatus));
