/**
 * POST /Person/{id}/merge as a property (API.md 13, issue #39 step 4): random pairs of persons, made
 * through the handlers with every kind of set (Names structured, freeform and aliases, Emails or none,
 * PhoneNumbers, PostalAddresses, PersonRoles, the four membership sets, SocialAddresses) and with
 * deliberate overlaps (the survivor's phone in other punctuation, its address in other case, its Name
 * folded, its role or membership key), then merged through the handler. An oracle written from the
 * contract's text, not from lib/domain/merge.ts, says from the two GET bodies what the survivor holds
 * afterwards; the answer, GET of the survivor, the source's 301 and the invariant checker (claims,
 * postings, reference items) must agree with it. Now and then a pair whose union passes a set's limit
 * (API.md 5.2): 400, and nothing changed.
 *
 * Readings of the text the oracle makes, where it leaves a choice: a moved item joins after the
 * survivor's own, in the source's order; "the survivor already holds an equal one" counts the items
 * that joined before it, so two equal items of the source move once; an alias Name (GRC's `primary`
 * 2 or 3) is non-primary already and stays an alias; a role or membership key is its `*_fk` (or
 * `initiative`), its name where it has none; text compares folded (case and accents), as names do;
 * the survivor's `email` (its primary email) stays what it was, null when it had none, though it gains
 * the source's emails (none of them primary).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, uniqueTag } from '../support/api';
import { checkInvariants, snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';
import { fuzz, timeoutFor } from './harness';

const suite = integrationSuite();
/** Each run creates two persons and merges them: about a second on a busy 2-core machine. */
const RUNS = 25;
const MS_PER_RUN = 1_000;
const BASE = 'https://api.example.test';

// ---------------------------------------------------------------------------------------------------
// The contract's sets and limits (API.md 5.2 and 11.1)
// ---------------------------------------------------------------------------------------------------

const LIMIT = {
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
type SetName = keyof typeof LIMIT;
const SETS = Object.keys(LIMIT) as SetName[];

/** The membership sets (in `PersonMemberships` on the wire) and the key of what each is a membership of. */
const MEMBERSHIP_KEY = {
  PersonOrganizations: 'organization_fk',
  PersonGroups: 'group_fk',
  PersonInitiatives: 'initiative',
  PersonTeams: 'team_fk',
} as const;
type MembershipSet = keyof typeof MEMBERSHIP_KEY;
const isMembership = (set: SetName): set is MembershipSet => set in MEMBERSHIP_KEY;

const ADDRESS_FIELDS = [
  'address1',
  'address2',
  'city',
  'state_territory_province',
  'postal_code',
  'country',
  'country_code',
] as const;
const SOCIAL = ['twitter', 'facebook', 'linkedin', 'youtube'] as const;

type Item = Json & { id: number | null; primary?: unknown };
type Container = { '@type': string; '@set': Item[] };

const containerOf = (person: Json, set: SetName): Container =>
  (isMembership(set) ? (person.PersonMemberships as Json)[set] : person[set]) as Container;
/** The stored items of a set: without the example object an empty set answers. */
const itemsOf = (person: Json, set: SetName): Item[] =>
  containerOf(person, set)['@set'].filter((item) => item.id !== null);
const meta = (person: Json) => person.CoreMetaData as Json & { version: number; modified_audit_id: number };

// ---------------------------------------------------------------------------------------------------
// The oracle: API.md 13 "What moves", from the two GET bodies
// ---------------------------------------------------------------------------------------------------

/** Case- and accent-insensitive, white space collapsed: "folded" as API.md 4 and 5.5 compare text. */
const fold = (text: string) =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().toLowerCase().replace(/\s+/gu, ' ').trim();
const folded = (value: unknown) => (typeof value === 'string' ? fold(value) : (value ?? null));

/** What makes two items of a set the same one (API.md 13, with 5.5 for emails). */
const SAME: Record<SetName, (item: Item) => unknown> = {
  // Its folded parts, the prefix and suffix among them.
  Names: (item) =>
    ['name_prefix_fk', 'first_name', 'middle_initial', 'last_name', 'name_suffix_fk', 'freeform_name'].map(
      (part) => folded(item[part]),
    ),
  // Trimmed and case-insensitive (5.5).
  Emails: (item) => String(item.email).trim().toLowerCase(),
  // Ignoring spaces and punctuation.
  PhoneNumbers: (item) => String(item.phone_number).replace(/[\s\p{P}]/gu, ''),
  PostalAddresses: (item) => ADDRESS_FIELDS.map((field) => folded(item[field])),
  PersonRoles: (item) => item.role_fk ?? folded(item.name),
  PersonOrganizations: (item) => item.organization_fk ?? folded(item.name),
  PersonGroups: (item) => item.group_fk ?? folded(item.name),
  PersonInitiatives: (item) => folded(item.initiative) ?? folded(item.name),
  PersonTeams: (item) => item.team_fk ?? folded(item.name),
};
const sameKey = (set: SetName, item: Item) => JSON.stringify(SAME[set](item));

/**
 * A source item as it joins the survivor: its id and reference kept, the survivor's, and non-primary
 * (`primary: false`; an alias Name, `primary` 2 or 3, is non-primary already and stays one).
 */
const joined = (item: Item, survivorId: number): Item => ({
  ...item,
  person_fk: survivorId,
  ...('primary' in item && item.primary !== 2 && item.primary !== 3 ? { primary: false } : {}),
});

interface Expected {
  /** The survivor as GET must show it after the merge, without the parts a write stamps anew. */
  person: Json;
  /** Sets over their limit: the merge must be refused. */
  over: SetName[];
}

const expectedMerge = (survivor: Json, source: Json, modifiedBy: number): Expected => {
  const survivorId = survivor.id as number;
  const over: SetName[] = [];
  const sets = Object.fromEntries(
    SETS.map((set) => {
      const items = [...itemsOf(survivor, set)];
      const held = new Set(items.map((item) => sameKey(set, item)));
      for (const item of itemsOf(source, set)) {
        const key = sameKey(set, item);
        if (held.has(key)) continue;
        held.add(key);
        items.push(joined(item, survivorId));
      }
      if (items.length > LIMIT[set]) over.push(set);
      const container = containerOf(survivor, set);
      return [set, { ...container, '@set': items.length > 0 ? items : container['@set'] }];
    }),
  ) as Record<SetName, Container>;
  const ownSocial = survivor.SocialAddresses as Json;
  const theirSocial = source.SocialAddresses as Json;
  return {
    over,
    person: stamped({
      ...survivor,
      ...Object.fromEntries(SETS.filter((set) => !isMembership(set)).map((set) => [set, sets[set]])),
      PersonMemberships: {
        ...(survivor.PersonMemberships as Json),
        ...Object.fromEntries(SETS.filter(isMembership).map((set) => [set, sets[set]])),
      },
      SocialAddresses: {
        ...ownSocial,
        ...Object.fromEntries(SOCIAL.map((field) => [field, ownSocial[field] ?? theirSocial[field] ?? null])),
      },
      CoreMetaData: { ...meta(survivor), version: meta(survivor).version + 1, modified_by: modifiedBy },
    }),
  };
};

/** A person without the parts every write stamps anew: the time, the history entry, the checksum. */
const stamped = (person: Json): Json => {
  const { date_modified, modified_audit_id, checksum, ...rest } = meta(person);
  return { ...person, CoreMetaData: rest };
};

// ---------------------------------------------------------------------------------------------------
// Pairs of persons
// ---------------------------------------------------------------------------------------------------

const FIRST = ['Ada', 'José', 'Zoë', 'Søren', 'Łucja', 'Grace', 'Ñuño'];
const LAST = ['Lovelace', 'Weiß', 'Çelik', 'Ångström', 'Núñez', 'Hopper'];
const FREEFORM = ['Ada King', 'Mme Curie', 'Zoë Ødegaard', 'Li Wei'];
const ROLES = ['Analyst', 'Engineer', 'Clerk', 'Ärztin'];
const MEMBER_NAMES = ['Board', 'Café Club', 'Red Team', 'Finance'];

const reference = fc.constantFrom(null, null, 'ref-a', 'ref-b');
/** GRC's `primary` of a Name that is not the first: unset, false, or an alias type. */
const aliasPrimary = fc.constantFrom<unknown>(undefined, false, 2, 3);

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
const nameItem: fc.Arbitrary<Json> = fc.oneof(
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

const addressItem = fc.record({
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
const side = fc.record({
  local_reference_id: fc.constantFrom(null, 'crm'),
  Names: fc.tuple(
    fc.record({ name: nameItem, primary: fc.constantFrom<unknown>(undefined, true) }),
    fc.array(fc.record({ name: nameItem, primary: aliasPrimary }), { maxLength: 3 }),
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
  PostalAddresses: fc.array(addressItem, { maxLength: 2 }),
  PersonRoles: fc.array(KEYED.PersonRoles, { maxLength: 3 }),
  PersonOrganizations: fc.array(KEYED.PersonOrganizations, { maxLength: 2 }),
  PersonGroups: fc.array(KEYED.PersonGroups, { maxLength: 2 }),
  PersonInitiatives: fc.array(KEYED.PersonInitiatives, { maxLength: 2 }),
  PersonTeams: fc.array(KEYED.PersonTeams, { maxLength: 2 }),
  SocialAddresses: socialAddresses,
});
type Side = typeof side extends fc.Arbitrary<infer S> ? S : never;

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
const overflow = fc.record({
  set: fc.constantFrom(...SETS),
  missing: fc.nat(3),
  // 0: the union is exactly at the limit and the merge lands.
  extra: fc.nat(2),
});

const pairPlan = fc.record({
  survivor: side,
  source: side,
  overlaps: fc.record(
    Object.fromEntries(OVERLAP_SETS.map((set) => [set, fc.array(overlap, { maxLength: 2 })])) as Record<
      (typeof OVERLAP_SETS)[number],
      fc.Arbitrary<Overlap[]>
    >,
  ),
  overflow: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: overflow }),
  requester: fc.constantFrom('survivor', 'survivor', 'source', 'clerk'),
  ifMatch: fc.boolean(),
});
type PairPlan = typeof pairPlan extends fc.Arbitrary<infer P> ? P : never;

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
const bodiesOf = ({ survivor, source, overlaps, overflow: full }: PairPlan, tag: string) => {
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

// ---------------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------------

let clerk: number;
beforeAll(async () => {
  const { status, body } = await suite.api.post({
    Names: { '@set': [{ first_name: 'Merge', last_name: uniqueTag('Clerk') }] },
    Emails: { '@set': [{ email: `${uniqueTag('clerk')}@example.org` }] },
  });
  expect(status).toBe(201);
  clerk = body.id;
});

const created = async (body: Json) => {
  const answer = await suite.api.post(body);
  expect(answer.status, `POST ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`).toBe(201);
  return answer.body as Json;
};

const mergeRun = async (plan: PairPlan) => {
  const tag = uniqueTag('r');
  const bodies = bodiesOf(plan, tag);
  const survivorId = (await created(bodies.survivor)).id as number;
  const sourceId = (await created(bodies.source)).id as number;
  const survivor = (await suite.api.get(survivorId)).body as Json;
  const source = (await suite.api.get(sourceId)).body as Json;
  const requester = { survivor: survivorId, source: sourceId, clerk }[plan.requester];
  // A write naming the source as requester acts as its survivor.
  const expected = expectedMerge(survivor, source, requester === sourceId ? survivorId : requester);
  const before = expected.over.length > 0 ? await snapshot(suite.table) : undefined;

  const merged = await suite.api.merge(
    survivorId,
    { source: sourceId },
    {
      requester,
      ...(plan.ifMatch ? { headers: { 'if-match': `"${meta(survivor).version}"` } } : {}),
    },
  );

  if (before) {
    // Over a set's limit (5.2): 400, and nothing written.
    expect(merged.status, JSON.stringify(merged.body)).toBe(400);
    expect(merged.body).toMatchObject({ type: '/problems/validation-error' });
    expect(await snapshot(suite.table)).toEqual(before);
    expect((await suite.api.get(survivorId)).body).toEqual(survivor);
    expect((await suite.api.get(sourceId)).body).toEqual(source);
    return;
  }
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  const answer = merged.body as Json;
  expect(merged.headers.etag).toBe(`"${meta(survivor).version + 1}"`);
  expect(stamped(answer)).toEqual(expected.person);
  expect(meta(answer).modified_audit_id).not.toBe(meta(survivor).modified_audit_id);
  expect(String(meta(answer).date_modified) >= String(meta(survivor).date_modified)).toBe(true);
  // GET shows what the merge answered.
  expect((await suite.api.get(survivorId)).body).toEqual(answer);

  const gone = await suite.api.get(sourceId);
  expect(gone.status).toBe(301);
  expect(gone.headers.location).toBe(`${BASE}/Person/${survivorId}`);
  expect(gone.body).toMatchObject({
    id: sourceId,
    superceded_by: survivorId,
    CoreMetaData: { live_status: 0, version: meta(source).version + 1 },
  });

  // Claims, postings and reference items are exactly those the live persons imply.
  expect(await checkInvariants(suite.table)).toEqual([]);
};

describe('POST /Person/{id}/merge as a property (API.md 13)', () => {
  it(
    'leaves the survivor holding the union the contract defines, the source a 301, storage consistent; over a limit 400 and nothing changed',
    async () => {
      await fuzz('POST /Person/{id}/merge random pairs', pairPlan, mergeRun, RUNS, MS_PER_RUN);
    },
    timeoutFor(RUNS, MS_PER_RUN),
  );
});
