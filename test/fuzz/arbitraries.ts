/**
 * Generators for hostile input "around the schema": valid Person bodies first, then mutations of them
 * (wrong types, missing and extra keys, prototype keys, huge strings, deep nesting, 10 000-element
 * arrays, odd Unicode, numbers beyond 2^53, duplicate keys), broken JSON text, odd headers, query
 * strings and path ids. And, for the merge and unmerge properties, pairs of valid persons with every
 * kind of set and deliberate overlaps, and the contract's sets they are made of.
 */
import fc from 'fast-check';
import { LIMITS } from '../../lib/domain/schemas';
import type { Json } from '../support/api';
import {
  DuplicateKeys,
  isObject,
  objectPathsOf,
  type Path,
  pathsOf,
  RawJson,
  type Tree,
  type TreeObject,
  toJsonText,
  updateAt,
  valueAt,
  withKey,
} from './json-text';

// ---------------------------------------------------------------------------------------------------
// Strings and scalars
// ---------------------------------------------------------------------------------------------------

/** Characters that break naive code: controls, lone surrogates, bidi and zero-width marks, emoji, ... */
export const ODD_CHARACTERS = [
  '\u0000',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u0301',
  '\u200b',
  '\u200d',
  '\u202e',
  '\u2028',
  '\u2029',
  '\u2060',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\u{1f469}\u200d\u{1f469}\u200d\u{1f467}',
  '\u{10ffff}',
  '\u{e0041}',
  'İ',
  '\ufdfa',
  '\u337b',
  'ß',
  'ﬃ',
  'Ω',
  '١',
  '１',
  '"',
  '\\',
  '/',
  '~',
  '%',
  '<',
  '>',
  '&',
  "'",
  '`',
  '$',
  '{',
  '}',
] as const;

const oddCharacter = fc.constantFrom(...ODD_CHARACTERS);

/** Short strings of any code point, of odd characters, or of both, lone surrogates included. */
export const oddString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: oddCharacter, maxLength: 12 }),
  fc.string({ unit: fc.oneof(oddCharacter, fc.constantFrom('a', 'Z', '0', ' ', '.', '@')), maxLength: 24 }),
);

/** Strings at and over the limits: 200 and 201 characters, 254/255 for emails, and far beyond. */
export const hugeString = fc.oneof(
  fc
    .constantFrom(LIMITS.text, LIMITS.text + 1, LIMITS.email + 1, 5_000, 70_000, 300_000)
    .map((n) => 'x'.repeat(n)),
  fc.constantFrom(LIMITS.text, LIMITS.text + 1, 3_000).map((n) => '\u{1f469}'.repeat(n)),
  fc.string({ unit: 'binary', minLength: 150, maxLength: 400 }),
);

/**
 * Strings within the 200-character limit that grow when folded or encoded: U+FDFA becomes 18
 * characters under NFKD, CJK is 3 bytes a character in UTF-8, astral letters 4. Storage limits are in
 * bytes (key attributes 1 024 or 2 048, items 400 KB); the API's are in characters.
 */
export const growingString = fc
  .tuple(
    fc.constantFrom('\ufdfa', '\u337b', '\u3250', '李', '\u{1d54f}'),
    fc.integer({ min: 1, max: LIMITS.text }),
  )
  .map(([character, n]) => character.repeat(Math.floor(n / character.length)));

/** Numbers JSON.parse reads oddly: beyond 2^53, overflow to Infinity, negative zero, exponent forms. */
export const RAW_NUMBERS = [
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.0',
  '1.0',
  '1e2',
  '1E+2',
  '0.1e1',
  '5e-324',
  '1.7976931348623157e308',
] as const;

const nest = (depth: number, open: string, inner: string, close: string) =>
  new RawJson(`${open.repeat(depth)}${inner}${close.repeat(depth)}`);

/** Values that are wrong almost anywhere in a Person body. */
export const junkValue: fc.Arbitrary<Tree> = fc.oneof(
  fc.constantFrom<Tree>(null, true, false, 0, -1, 1, 1.5, -0.5, 2 ** 31, 2 ** 53, 2 ** 64, Number.MAX_VALUE),
  fc.constantFrom<Tree>('', ' ', '0', '1', 'null', 'true', '[]', '{}', 'Person', 'Name', 'Email'),
  fc.constantFrom<Tree>([], {}, [null], [[]], [{}], { '@type': 'Name' }, { id: 1 }, { '@set': [] }),
  fc.integer().map<Tree>((n) => n),
  fc.double().map<Tree>((n) => n),
  fc.constantFrom(...RAW_NUMBERS).map((text) => new RawJson(text)),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map((n) => new RawJson(String(n))),
  fc
    .constantFrom('"\\ud800"', '"\\udfff\\ud800"', '"a\\udc00b"', '"\\u0000"', '"\\uffff"')
    .map((text) => new RawJson(text)),
  oddString,
  hugeString,
  growingString,
  fc.constantFrom(50, 1_000, 10_000, 100_000).map((depth) => nest(depth, '[', '', ']')),
  fc.constantFrom(50, 1_000, 10_000).map((depth) => nest(depth, '{"a":', '1', '}')),
  fc.constantFrom(50, 2_000).map((depth) => nest(depth, '{"__proto__":', '{"polluted":"yes"}', '}')),
  fc
    .constantFrom('1', 'null', '{}', '"x"', '{"@type":"Name","first_name":"A","last_name":"B"}')
    .map((item) => new RawJson(`[${Array(10_000).fill(item).join(',')}]`)),
  fc
    .constantFrom(
      '{"__proto__":{"polluted":"yes"}}',
      '{"constructor":{"prototype":{"polluted":"yes"}}}',
      '{"prototype":{"polluted":"yes"}}',
      '{"__proto__":[]}',
      '{"__proto__":null}',
      '{"toString":"x","valueOf":1,"hasOwnProperty":null}',
    )
    .map((text) => new RawJson(text)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => value as Tree),
);

/** Keys that are unknown, near misses of known ones, or dangerous to a naive merge. */
export const junkKey = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '__defineGetter__',
    'polluted',
    'id',
    'person_fk',
    '@type',
    '@context',
    '@id',
    '@set',
    '@graph',
    '@value',
    'Names',
    'Emails',
    'names',
    'NAMES',
    'Names ',
    'primary',
    'email',
    'first_name',
    'local_reference_id',
    'CoreMetaData',
    'version',
    'created_by',
    '',
    ' ',
    '\u0000',
    '\ud800',
    'a/b',
    'a~b',
    '~1',
    '$where',
  ),
  oddString,
);

// ---------------------------------------------------------------------------------------------------
// Valid Person bodies
// ---------------------------------------------------------------------------------------------------

const nameCharacter = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ß', 'Ø', 'ł', 'ñ', 'ç', "'", '-', ' ', 'Ω', '李', 'ا') },
);
const word = fc
  .string({ unit: nameCharacter, minLength: 1, maxLength: 12 })
  .filter((text) => text.trim().length > 0);

/** A fresh address: a random tag keeps runs from colliding except where a property means them to. */
const email = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9.+-]{0,10}$/), fc.uuid())
  .map(([local, tag]) => `${local.replace(/\.+$/, '')}.${tag.slice(0, 8)}@example.org`);

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const nameItem = fc.oneof(
  fc.record(
    {
      '@type': fc.constant('Name'),
      first_name: word,
      last_name: word,
      middle_initial: maybe(fc.constantFrom('A', 'B', 'Q.')),
      name_prefix_fk: maybe(fc.integer({ min: 1, max: 14 })),
      name_suffix_fk: maybe(fc.integer({ min: 1, max: 10 })),
      local_reference_id: maybe(fc.uuid()),
    },
    { requiredKeys: ['first_name', 'last_name'] },
  ),
  fc.record({ freeform_name: word }),
);

const emailItem = fc.record(
  { '@type': fc.constant('Email'), email, local_reference_id: maybe(fc.uuid()) },
  { requiredKeys: ['email'] },
);
const phoneItem = fc.record(
  { phone_number: fc.stringMatching(/^\+?[0-9 ()-]{3,20}$/), primary: fc.constant(false) },
  { requiredKeys: ['phone_number'] },
);
const roleItem = fc.record({ name: word, role_fk: maybe(fc.integer({ min: 1, max: 1_000 })) });
const addressItem = fc.record(
  {
    address1: word,
    city: word,
    postal_code: fc.stringMatching(/^[0-9A-Z -]{3,10}$/),
    country_code: fc.constantFrom('US', 'DE', 'JP', null),
    primary: fc.constant(false),
  },
  { requiredKeys: ['address1'] },
);

const set = <T extends Tree>(type: string, item: fc.Arbitrary<T>, min: number, max: number) =>
  fc.record(
    { '@type': fc.constant(type), '@set': fc.array(item, { minLength: min, maxLength: max }) },
    { requiredKeys: ['@set'] },
  );

/** A body POST accepts (unless it clashes by name with an earlier email-less person). */
export const validPerson: fc.Arbitrary<TreeObject> = fc.record(
  {
    '@context': fc.constant('https://api.example.test/context.jsonld'),
    '@type': fc.constant('Person'),
    local_reference_id: maybe(fc.uuid()),
    Names: set('Names', nameItem as fc.Arbitrary<Tree>, 1, 3),
    Emails: set('Emails', emailItem as fc.Arbitrary<Tree>, 0, 3),
    PhoneNumbers: set('PhoneNumbers', phoneItem as fc.Arbitrary<Tree>, 0, 2),
    PersonRoles: set('PersonRoles', roleItem as fc.Arbitrary<Tree>, 0, 2),
    PostalAddresses: set('PostalAddresses', addressItem as fc.Arbitrary<Tree>, 0, 1),
    SocialAddresses: fc.record(
      { twitter: maybe(fc.constant('https://x.com/someone')), youtube: maybe(word) },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['Names'] },
) as fc.Arbitrary<TreeObject>;

// ---------------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------------

export type Mutation =
  | { kind: 'set'; at: number; value: Tree }
  | { kind: 'text'; at: number; value: string }
  | { kind: 'delete'; at: number }
  | { kind: 'add'; at: number; key: string; value: Tree }
  | { kind: 'duplicate'; at: number; key: string | number; value: Tree; last: boolean };

/** Replaces one string of the body by an odd one of the right type: what storage must take as it is. */
export const textMutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constant('text' as const),
  at: fc.nat(),
  value: fc.oneof(
    { weight: 4, arbitrary: oddString },
    { weight: 1, arbitrary: hugeString },
    { weight: 1, arbitrary: growingString },
  ),
});

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  textMutation,
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: junkValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add' as const), at: fc.nat(), key: junkKey, value: junkValue }),
  fc.record({
    kind: fc.constant('duplicate' as const),
    at: fc.nat(),
    key: fc.oneof(fc.nat(), junkKey),
    value: fc.oneof(
      junkValue,
      validPerson.map((person) => person.Names ?? null),
    ),
    last: fc.boolean(),
  }),
);

const pick = <T>(items: T[], at: number): T | undefined => items[at % Math.max(1, items.length)];

/** Applies one mutation to a body; the index `at` picks the node, whatever the body's shape. */
export const mutate = (body: Tree, change: Mutation): Tree => {
  if (change.kind === 'text') {
    const path = pick(
      pathsOf(body).filter(
        (at) => typeof valueAt(body, at) === 'string' && !String(at.at(-1)).startsWith('@'),
      ),
      change.at,
    );
    return path ? updateAt(body, path, () => change.value) : body;
  }
  if (change.kind === 'set' || change.kind === 'delete') {
    const path = pick(pathsOf(body), change.at);
    if (!path) return change.kind === 'set' ? change.value : body;
    return updateAt(body, path, () => (change.kind === 'set' ? change.value : undefined));
  }
  const path: Path = pick(objectPathsOf(body), change.at) ?? [];
  const target = valueAt(body, path);
  if (!isObject(target)) return body;
  if (change.kind === 'add') return updateAt(body, path, () => withKey(target, change.key, change.value));
  const entries = Object.entries(target);
  const key = typeof change.key === 'number' ? (pick(entries, change.key)?.[0] ?? '__proto__') : change.key;
  const extra: [string, Tree] = [key, change.value];
  return updateAt(
    body,
    path,
    () => new DuplicateKeys(change.last ? [...entries, extra] : [extra, ...entries]),
  );
};

/** A valid body with 1 to 4 mutations (by default any kind; `textMutation` keeps the types right). */
export const mutatedBody = (base: fc.Arbitrary<TreeObject>, kind: fc.Arbitrary<Mutation> = mutation) =>
  fc
    .tuple(base, fc.array(kind, { minLength: 1, maxLength: 4 }))
    .map(([body, changes]) => ({ body: changes.reduce<Tree>(mutate, body), changes }));

// ---------------------------------------------------------------------------------------------------
// Broken JSON text
// ---------------------------------------------------------------------------------------------------

/** Ways to break or bend the text of a valid body. */
export const textDamage = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.constantFrom(
      ',',
      '}',
      ']',
      '"',
      ':',
      '\\',
      '\u0000',
      '/*x*/',
      'NaN',
      'undefined',
      "'",
      '\ud800',
      '\n',
    ),
  }),
  fc.record({
    kind: fc.constant('wrap' as const),
    prefix: fc.constantFrom('\ufeff', ' \n\t', '[', 'null', '', ")]}'\n", 'x'),
    suffix: fc.constantFrom('', ',', ' ', '}', ']', '\u0000', ' true', '//c'),
  }),
  fc.record({
    kind: fc.constant('replace' as const),
    text: fc.constantFrom(
      '',
      ' ',
      'null',
      'true',
      '0',
      '"Person"',
      '[]',
      '[{}]',
      '{}',
      'undefined',
      'NaN',
      '{"Names":}',
      "{'Names':1}",
      '{"a":1,}',
      '\ufeff{}',
    ),
  }),
);

export type TextDamage = typeof textDamage extends fc.Arbitrary<infer D> ? D : never;

export const damage = (text: string, change: TextDamage): string => {
  switch (change.kind) {
    case 'truncate':
      return text.slice(0, change.at % Math.max(1, text.length));
    case 'insert': {
      const at = change.at % (text.length + 1);
      return `${text.slice(0, at)}${change.text}${text.slice(at)}`;
    }
    case 'wrap':
      return `${change.prefix}${text}${change.suffix}`;
    case 'replace':
      return change.text;
  }
};

/** Body text: a mutated body written as JSON, sometimes damaged on top. */
export const bodyText = (base: fc.Arbitrary<TreeObject>) =>
  fc
    .tuple(mutatedBody(base), fc.option(textDamage, { freq: 4, nil: undefined }))
    .map(([{ body, changes }, broken]) => {
      const text = toJsonText(body);
      return { text: broken ? damage(text, broken) : text, changes, broken };
    });

// ---------------------------------------------------------------------------------------------------
// Headers, query strings, path ids
// ---------------------------------------------------------------------------------------------------

/** Content types, right and wrong; undefined sends none. */
export const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/ld+json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  ' application/json ',
  'application/jsonp',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/problem+json',
  'application/vnd.api+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/plain',
  'text/json',
  'application/xml',
  '*/*',
  '',
  ' ',
  ';',
  'application/json\u0000',
  'application',
);

/** `x-requester-person` values that are not a person id, look like one, or just barely are. */
export const REQUESTER_JUNK = [
  '',
  ' ',
  '\t',
  '-1',
  '-0',
  '+1',
  '1e3',
  '1E3',
  '0x10',
  '0b1',
  '0o7',
  '1.0',
  '1.',
  '.1',
  ' 1',
  '1 ',
  '1,1',
  '1;1',
  '[1]',
  '{"id":1}',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '%31',
  '１',
  '١',
  '1\u0000',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '99999999999999999',
  '0000000000000000001',
  '1234567890123456789012345678901234567890',
  '999999999',
  '__proto__',
  'constructor',
] as const;

export const requesterJunk = fc.oneof(fc.constantFrom(...REQUESTER_JUNK), oddString);

/** Path ids that are not positive integers, look like one, or are just out of reach. */
export const PATH_ID_JUNK = [
  '',
  '0',
  '-1',
  '-0',
  '+1',
  '1e3',
  '0x10',
  '0b1',
  '1.0',
  '01',
  ' 1',
  '1 ',
  '%2e%2e',
  '..',
  '.',
  '%00',
  '%2F',
  '1/audit',
  '1%2Faudit',
  '../Prefix/1',
  '1234567890123456789012345678901234567890',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '999999999',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '１',
  '١',
  '\u0000',
  '\ud800',
  '<script>alert(1)</script>',
  `\${jndi:ldap://x}`,
  '__proto__',
  'constructor',
  'Person',
] as const;

export const pathIdJunk = fc.oneof(
  fc.constantFrom(...PATH_ID_JUNK),
  oddString,
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double().map(String),
);

/** `GET /Person` parameters, the real ones and others. */
export const QUERY_KEYS = [
  'first_name',
  'last_name',
  'email',
  'search',
  'sort_dir',
  'limit',
  'offset',
  'page',
  'perPage',
  'per_page',
  'Limit',
  'limit[]',
  '__proto__',
  'constructor',
  'toString',
  '',
] as const;

export const QUERY_VALUES = [
  '',
  ' ',
  '0',
  '1',
  '2',
  '-1',
  '-0',
  '+1',
  '1e3',
  '0x10',
  '1.5',
  '01',
  '10',
  '99',
  '100',
  '101',
  '500',
  '501',
  '999999999',
  '1000000000',
  '1000000001',
  '9999999999',
  '1234567890123456789012345678901234567890',
  ' 1',
  '1 ',
  '1,2',
  'NaN',
  'Infinity',
  'null',
  'true',
  'asc',
  'desc',
  'ASC',
  'a',
  'jose',
  'JOSÉ',
  '%',
  '*',
  '_',
  '\\',
  '\u0000',
  '\ud800',
  '\n',
] as const;

const queryValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...QUERY_VALUES) },
  { weight: 2, arbitrary: oddString },
  { weight: 1, arbitrary: hugeString.filter((text) => text.length < 20_000) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);

export const listQuery = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), oddString), queryValue), {
    maxLength: 6,
  })
  .map((pairs) => Object.fromEntries(pairs) as Record<string, string>);

// ---------------------------------------------------------------------------------------------------
// The contract's sets and limits (API.md 5.2 and 11.1)
// ---------------------------------------------------------------------------------------------------

export const LIMIT = {
  Names: 20,
  Emails: 50,
  PhoneNumbers: 50,
  PersonRoles: 50,
  PostalAddresses: 20,
  PersonOrganizations: 50,
  PersonGroups: 50,
  PersonInitiatives: 50,
  PersonTeams: 50,
} as const;
export type SetName = keyof typeof LIMIT;
export const SETS = Object.keys(LIMIT) as SetName[];

/** The membership sets (in `PersonMemberships` on the wire) and the key of what each is a membership of. */
export const MEMBERSHIP_KEY = {
  PersonOrganizations: 'organization_fk',
  PersonGroups: 'group_fk',
  PersonInitiatives: 'initiative',
  PersonTeams: 'team_fk',
} as const;
type MembershipSet = keyof typeof MEMBERSHIP_KEY;
export const isMembership = (set: SetName): set is MembershipSet => set in MEMBERSHIP_KEY;

export const ADDRESS_FIELDS = [
  'address1',
  'address2',
  'city',
  'state_territory_province',
  'postal_code',
  'country',
  'country_code',
] as const;
export const SOCIAL = ['twitter', 'facebook', 'linkedin', 'youtube'] as const;

export type Item = Json & { id: number | null; primary?: unknown };
export type Container = { '@type': string; '@set': Item[] };

export const containerOf = (person: Json, set: SetName): Container =>
  (isMembership(set) ? (person.PersonMemberships as Json)[set] : person[set]) as Container;
/** The stored items of a set: without the example object an empty set answers. */
export const itemsOf = (person: Json, set: SetName): Item[] =>
  containerOf(person, set)['@set'].filter((item) => item.id !== null);
export const meta = (person: Json) =>
  person.CoreMetaData as Json & { version: number; modified_audit_id: number };
// ---------------------------------------------------------------------------------------------------
// Pairs of persons to merge (test/fuzz/merge-persons.test.ts, unmerge-persons.test.ts)
// ---------------------------------------------------------------------------------------------------

const FIRST = ['Ada', 'José', 'Zoë', 'Søren', 'Łucja', 'Grace', 'Ñuño'];
const LAST = ['Lovelace', 'Weiß', 'Çelik', 'Ångström', 'Núñez', 'Hopper'];
const FREEFORM = ['Ada King', 'Mme Curie', 'Zoë Ødegaard', 'Li Wei'];
const ROLES = ['Analyst', 'Engineer', 'Clerk', 'Ärztin'];
const MEMBER_NAMES = ['Board', 'Café Club', 'Red Team', 'Finance'];

export const reference = fc.constantFrom(null, null, 'ref-a', 'ref-b');
/** GRC's `primary` of a Name that is not the first: unset, false, or an alias type. */
export const aliasPrimary = fc.constantFrom<unknown>(undefined, false, 2, 3);

const structuredName = fc.record({
  first_name: fc.constantFrom(...FIRST),
  last_name: fc.constantFrom(...LAST),
  middle_initial: fc.constantFrom(null, 'A', 'Q'),
  name_prefix_fk: fc.constantFrom(null, null, 21, 501, 506),
  name_suffix_fk: fc.constantFrom(null, null, 19, 501),
  local_reference_id: reference,
});
const freeformName = fc.record({
  freeform_name: fc.constantFrom(...FREEFORM),
  local_reference_id: reference,
});
const pairName: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: structuredName },
  { weight: 1, arbitrary: freeformName },
);

/** A phone number: its digits and how they are written. */
const phone = fc.record({
  plus: fc.boolean(),
  digits: fc.stringMatching(/^[1-9][0-9]{6,10}$/),
  style: fc.nat(5),
  local_reference_id: reference,
});
type Phone = typeof phone extends fc.Arbitrary<infer P> ? P : never;

/** The same digits, written six ways: spaces, parentheses, dots, dashes, slashes, or nothing. */
const writePhone = ({ plus, digits, style }: Phone) => {
  const groups = digits.match(/.{1,3}/g) ?? [digits];
  const [head = '', ...rest] = groups;
  const written = [
    () => digits,
    () => groups.join(' '),
    () => `(${head}) ${rest.join('-')}`,
    () => groups.join('.'),
    () => groups.join('-'),
    () => groups.join(' / '),
  ][style % 6]?.();
  return `${plus ? '+' : ''}${written}`;
};

const pairAddress = fc.record({
  address1: fc.constantFrom('12 St James Square', '221B Baker Street', 'Bahnhofstraße 1'),
  address2: fc.constantFrom(null, 'Flat 2'),
  city: fc.constantFrom('London', 'Zürich', 'São Paulo'),
  state_territory_province: fc.constantFrom(null, 'Bavaria'),
  postal_code: fc.constantFrom(null, 'SW1Y 4LB', '8001'),
  country: fc.constantFrom(null, 'United Kingdom'),
  country_code: fc.constantFrom(null, 'GB', 'CH'),
  primary: fc.constantFrom(undefined, false),
  local_reference_id: reference,
});

const keyedItem = (key: string, keys: fc.Arbitrary<unknown>, names: readonly string[]): fc.Arbitrary<Json> =>
  fc
    .tuple(fc.constantFrom(null, ...names), keys, reference)
    .filter(([name, value]) => name !== null || value !== null)
    .map(([name, value, local_reference_id]) => ({ name, [key]: value, local_reference_id }));

const KEYED: Record<
  Exclude<SetName, 'Names' | 'Emails' | 'PhoneNumbers' | 'PostalAddresses'>,
  fc.Arbitrary<Json>
> = {
  PersonRoles: keyedItem('role_fk', fc.constantFrom(null, null, 7, 8), ROLES),
  PersonOrganizations: keyedItem('organization_fk', fc.constantFrom(null, 11, 12), MEMBER_NAMES),
  PersonGroups: keyedItem('group_fk', fc.constantFrom(null, 21), MEMBER_NAMES),
  PersonInitiatives: keyedItem(
    'initiative',
    fc.constantFrom(null, 3, 'Green Deal', 'Blue Sky'),
    MEMBER_NAMES,
  ),
  PersonTeams: keyedItem('team_fk', fc.constantFrom(null, 31, 32), MEMBER_NAMES),
};
const KEY_FIELD = {
  PersonRoles: 'role_fk',
  ...MEMBERSHIP_KEY,
} as const;

const socialAddresses = fc.record(
  Object.fromEntries(
    SOCIAL.map((field) => [field, fc.constantFrom(null, null, `https://${field}.example/a`, `@${field}-b`)]),
  ) as Record<(typeof SOCIAL)[number], fc.Arbitrary<string | null>>,
);

/** One person's own items, before the run's tags make its emails and primary name unique. */
export const side = fc.record({
  local_reference_id: fc.constantFrom(null, 'crm'),
  Names: fc.tuple(
    fc.record({ name: pairName, primary: fc.constantFrom<unknown>(undefined, true) }),
    fc.array(fc.record({ name: pairName, primary: aliasPrimary }), { maxLength: 3 }),
  ),
  // A third of the persons have no email: they are unique by name, so name claims take part.
  Emails: fc.oneof<fc.Arbitrary<{ local: string; local_reference_id: string | null }[]>[]>(
    fc.constant([]),
    fc.array(fc.record({ local: fc.constantFrom('ada', 'office', 'x.y'), local_reference_id: reference }), {
      minLength: 1,
      maxLength: 3,
    }),
  ),
  PhoneNumbers: fc.array(phone, { maxLength: 3 }),
  PostalAddresses: fc.array(pairAddress, { maxLength: 2 }),
  PersonRoles: fc.array(KEYED.PersonRoles, { maxLength: 3 }),
  PersonOrganizations: fc.array(KEYED.PersonOrganizations, { maxLength: 2 }),
  PersonGroups: fc.array(KEYED.PersonGroups, { maxLength: 2 }),
  PersonInitiatives: fc.array(KEYED.PersonInitiatives, { maxLength: 2 }),
  PersonTeams: fc.array(KEYED.PersonTeams, { maxLength: 2 }),
  SocialAddresses: socialAddresses,
});
export type Side = typeof side extends fc.Arbitrary<infer S> ? S : never;

/** The source takes a copy of one of the survivor's items, written another way (`at` picks it). */
const overlap = fc.record({
  at: fc.nat(),
  variant: fc.nat(3),
  primary: aliasPrimary,
  local_reference_id: reference,
});
type Overlap = typeof overlap extends fc.Arbitrary<infer O> ? O : never;
const OVERLAP_SETS = SETS.filter((set) => set !== 'Emails');

/** A set filled up to its limit on the survivor; the source brings `missing + extra` items of it. */
export const overflow = fc.record({
  set: fc.constantFrom(...SETS),
  missing: fc.nat(3),
  // 0: the union is exactly at the limit and the merge lands.
  extra: fc.nat(2),
});

/** Two persons' own items and the source's copies of the survivor's (equal by the contract, written another way). */
export const personPair = fc.record({
  survivor: side,
  source: side,
  overlaps: fc.record(
    Object.fromEntries(OVERLAP_SETS.map((set) => [set, fc.array(overlap, { maxLength: 2 })])) as Record<
      (typeof OVERLAP_SETS)[number],
      fc.Arbitrary<Overlap[]>
    >,
  ),
});
export type PersonPair = typeof personPair extends fc.Arbitrary<infer P> ? P : never;
export type Overflow = typeof overflow extends fc.Arbitrary<infer O> ? O : never;

/** Text written another way that folds the same: upper case, lower case, without accents, or both. */
const rewrite = (text: string, variant: number) => {
  const bare = text.normalize('NFKD').replace(/\p{M}/gu, '');
  return [text.toUpperCase(), text.toLowerCase(), bare, bare.toUpperCase()][variant % 4] as string;
};
const rewriteAll = (item: Json, fields: readonly string[], variant: number) =>
  Object.fromEntries(
    Object.entries(item).map(([field, value]) => [
      field,
      fields.includes(field) && typeof value === 'string' ? rewrite(value, variant) : value,
    ]),
  );

/** Wire items of a set of one side, the run's tag making emails and the primary Name unique. */
const itemsFor = (person: Side, set: SetName, tag: string): Json[] => {
  switch (set) {
    case 'Names':
      return [person.Names[0], ...person.Names[1]].map(({ name, primary }, index) => {
        const unique =
          index > 0
            ? name
            : 'freeform_name' in name
              ? { ...name, freeform_name: `${name.freeform_name} ${tag}` }
              : { ...name, last_name: `${name.last_name}${tag}` };
        return primary === undefined ? unique : { ...unique, primary };
      });
    case 'Emails':
      return person.Emails.map(({ local, local_reference_id }, index) => ({
        email: `${local}.${tag}.${index}@example.org`,
        local_reference_id,
      }));
    case 'PhoneNumbers':
      return person.PhoneNumbers.map((number) => ({
        phone_number: writePhone(number),
        local_reference_id: number.local_reference_id,
      }));
    case 'PostalAddresses':
      return person.PostalAddresses.map(({ primary, ...address }) =>
        primary === undefined ? address : { ...address, primary },
      );
    default:
      return person[set];
  }
};

/** Distinct items of a set to fill it: `from` keeps the survivor's and the source's apart. */
const fillers = (set: SetName, count: number, from: number, tag: string): Json[] =>
  Array.from({ length: count }, (_, n) => {
    const i = from + n;
    switch (set) {
      case 'Names':
        return { first_name: 'Many', last_name: `N${i}${tag}` };
      case 'Emails':
        return { email: `many${i}.${tag}@example.org` };
      case 'PhoneNumbers':
        return { phone_number: `+1 555 ${String(i).padStart(4, '0')}` };
      case 'PostalAddresses':
        return { address1: `${i} Many Road` };
      case 'PersonRoles':
        return { name: `Role ${i}` };
      default:
        return { name: `Member ${i}` };
    }
  });

/** A copy of a survivor's item as the source holds it: equal by the contract, written another way. */
const variantOf = (set: SetName, item: Json, { variant, primary, local_reference_id }: Overlap): Json => {
  switch (set) {
    case 'Names': {
      const name = rewriteAll(item, ['first_name', 'last_name', 'middle_initial', 'freeform_name'], variant);
      const { primary: _, ...rest } = name;
      return { ...rest, local_reference_id, ...(primary === undefined ? {} : { primary }) };
    }
    case 'PhoneNumbers': {
      const written = String(item.phone_number);
      const plus = written.startsWith('+');
      const digits = written.replace(/\D/g, '');
      const others = [0, 1, 2, 3, 4, 5]
        .map((style) => writePhone({ plus, digits, style, local_reference_id: null }))
        .filter((text) => text !== written);
      return { phone_number: others[variant % others.length], local_reference_id };
    }
    case 'PostalAddresses':
      return { ...rewriteAll(item, ADDRESS_FIELDS, variant), local_reference_id };
    default: {
      const key = KEY_FIELD[set as keyof typeof KEY_FIELD];
      const value = item[key];
      // The same key under another name; a key that is text folds the same; no key: the name folds the same.
      return value == null
        ? { ...rewriteAll(item, ['name'], variant), local_reference_id }
        : {
            ...item,
            [key]: typeof value === 'string' ? rewrite(value, variant) : value,
            name: [null, ...MEMBER_NAMES][variant % (MEMBER_NAMES.length + 1)] ?? null,
            local_reference_id,
          };
    }
  }
};

/** The two POST bodies of a plan. */
export const bodiesOf = (
  { survivor, source, overlaps, overflow: full }: PersonPair & { overflow?: Overflow | null },
  tag: string,
) => {
  const own = (person: Side, label: string) =>
    Object.fromEntries(SETS.map((set) => [set, itemsFor(person, set, `${label}${tag}`)])) as Record<
      SetName,
      Json[]
    >;
  const kept = own(survivor, 'K');
  const dupe = own(source, 'D');
  if (full) {
    // A person has at least one Name: the source brings one at least.
    const missing = full.set === 'Names' ? Math.max(1, full.missing) : full.missing;
    kept[full.set] = fillers(full.set, LIMIT[full.set] - missing, 0, `K${tag}`);
    dupe[full.set] = fillers(full.set, missing + full.extra, 1_000, `D${tag}`);
  }
  for (const set of OVERLAP_SETS)
    for (const copy of overlaps[set as keyof typeof overlaps]) {
      const of = kept[set][copy.at % Math.max(1, kept[set].length)];
      if (of && dupe[set].length < LIMIT[set]) dupe[set].push(variantOf(set, of, copy));
    }
  const body = (person: Side, sets: Record<SetName, Json[]>, label: string) => ({
    '@type': 'Person',
    local_reference_id: person.local_reference_id && `${person.local_reference_id}-${label}${tag}`,
    ...Object.fromEntries(
      SETS.filter((set) => !isMembership(set)).map((set) => [set, { '@type': set, '@set': sets[set] }]),
    ),
    PersonMemberships: Object.fromEntries(
      SETS.filter(isMembership).map((set) => [set, { '@type': set, '@set': sets[set] }]),
    ),
    SocialAddresses: person.SocialAddresses,
  });
  return { survivor: body(survivor, kept, 'K'), source: body(source, dupe, 'D') };
};
