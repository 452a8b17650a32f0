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
import {
  ADDRESS_FIELDS,
  bodiesOf,
  type Container,
  containerOf,
  type Item,
  isMembership,
  itemsOf,
  LIMIT,
  meta,
  overflow,
  personPair,
  SETS,
  type SetName,
  SOCIAL,
} from './arbitraries';
import { fuzz, timeoutFor } from './harness';

const suite = integrationSuite();
/** Each run creates two persons and merges them: about a second on a busy 2-core machine. */
const RUNS = 25;
const MS_PER_RUN = 1_000;
const BASE = 'https://api.example.test';

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

const pairPlan = fc
  .tuple(
    personPair,
    fc.record({
      overflow: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: overflow }),
      requester: fc.constantFrom('survivor', 'survivor', 'source', 'clerk'),
      ifMatch: fc.boolean(),
    }),
  )
  .map(([pair, options]) => ({ ...pair, ...options }));
type PairPlan = typeof pairPlan extends fc.Arbitrary<infer P> ? P : never;

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
