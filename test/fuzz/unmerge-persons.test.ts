/**
 * POST /Person/{id}/unmerge as a property (API.md 13.1, issue #58 step 4). Random pairs of persons made
 * through the handlers (every kind of set, deliberate overlaps so that the merge drops equal items,
 * SocialAddresses, a root `local_reference_id` on both: the merge property's pairs), merged, then one
 * to four random PATCHes of the survivor: edits of its own items and of moved ones, deletes of either,
 * adds, new SocialAddresses values. An oracle written from the contract's text, not from
 * lib/domain/unmerge.ts, keeps the two persons as GET showed them before the merge and applies each
 * PATCH element to the person that owns its item (an added item: the survivor) with the PATCH rules of
 * API.md 5.3; after the unmerge both GETs must be what it holds ("as they would be had the merge never
 * happened", 13.1), each one version higher, the source's returning email its own claim again, and the
 * invariant checker must find nothing. A second property merges, unmerges and merges again: the second
 * merge answers what the first did.
 *
 * Readings of the text the oracle makes, where it leaves a choice:
 * - No `primary` in a generated PATCH: a primary moved between the two owners has no "never merged"
 *   equivalent. For the same reason, the survivor's primary item of a set other than Names and Emails
 *   is not deleted when a moved item would take its place (the PATCH rule promotes the lowest id, and
 *   a moved item's is lower than anything added since): were the survivor's set to empty and gain an
 *   item later, the unmerge gives that item the primary the set lost, which a never-merged person
 *   adding to a set without a primary does not have (5.3 promotes on a delete only). In Names and
 *   Emails, which always have a primary, both worlds agree and such deletes are generated.
 * - No new SocialAddresses value equal to the source's: the unmerge resets a value the survivor took
 *   from the source, unchanged since, and it knows it by its value.
 * - A PATCH element the never-merged owner would be refused is not generated: deleting an owner's last
 *   Name, or its last Name that is not an alias (5.2, 5.3). On the survivor such a delete of moved
 *   Names lands; this property found that the unmerge then gave the source back with no Name, and it
 *   now gives back the source's Names of the merge instead (docs/merging.md; tested in
 *   test/integration/unmerge-persons.test.ts and the unit tests, not here).
 * - A deleted primary promotes the owner's remaining item with the lowest id that is not an alias (5.3),
 *   the items the merge dropped as equal counting among the source's; Names and Emails always have one
 *   primary when they have items (5.2).
 * - Two persons known by name alone that would come back with one folded fullname (the source's primary
 *   deleted, leaving a copy of the survivor's name its lowest) cannot both hold it (5.5): the unmerge is
 *   then 409 `duplicate-name` and changes nothing, as a never-merged PATCH making them namesakes would
 *   be refused.
 * - Items compare in order of id, with every property GET shows; `fullname` from the primary Name as
 *   API.md 3 builds it, `email` the primary Email's; metadata only by its version.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEEDED_VOCABULARY } from '../../infra/handlers/seed/vocabulary-seed';
import { type Json, uniqueTag } from '../support/api';
import { checkInvariants } from '../support/invariants';
import { integrationSuite } from '../support/suite';
import {
  bodiesOf,
  type Item,
  isMembership,
  itemsOf,
  meta,
  type PersonPair,
  personPair,
  SETS,
  type SetName,
  SOCIAL,
} from './arbitraries';
import { fuzz, timeoutFor } from './harness';

const suite = integrationSuite();
/** Each run creates two persons, merges, patches up to four times and unmerges: a few seconds when busy. */
const RUNS = 12;
const MS_PER_RUN = 3_000;
/** Each round trip creates two persons, merges, unmerges and merges again. */
const ROUND_TRIPS = 6;
const MS_PER_ROUND_TRIP = 1_500;
const BASE = 'https://api.example.test';

// ---------------------------------------------------------------------------------------------------
// The oracle: two persons that were never merged (API.md 3, 5.2, 5.3, 13.1)
// ---------------------------------------------------------------------------------------------------

type Owner = 'survivor' | 'source';

interface Model {
  id: number;
  local_reference_id: unknown;
  social: Json;
  sets: Record<SetName, Item[]>;
}

const socialOf = (social: Json) => Object.fromEntries(SOCIAL.map((field) => [field, social[field] ?? null]));

const modelOf = (person: Json): Model => ({
  id: person.id as number,
  local_reference_id: person.local_reference_id,
  social: socialOf(person.SocialAddresses as Json),
  sets: Object.fromEntries(SETS.map((set) => [set, structuredClone(itemsOf(person, set))])) as Record<
    SetName,
    Item[]
  >,
});

/** Names and Emails always have one primary when they have items (API.md 5.2). */
const PRIMARY_REQUIRED: ReadonlySet<SetName> = new Set(['Names', 'Emails']);
/** GRC's alias Names (`primary` 2 or 3) are never primary. */
const isAlias = (item: Item) => item.primary === 2 || item.primary === 3;
const primaryOf = (items: Item[]) => items.find((item) => item.primary === true);
const byId = (a: Item, b: Item) => (a.id as number) - (b.id as number);
const lowestNotAlias = (items: Item[]) => items.filter((item) => !isAlias(item)).sort(byId)[0];

const ABBREVIATION = {
  prefix: new Map(SEEDED_VOCABULARY.NamePrefix.map((entry) => [entry.id, entry.abbreviation])),
  suffix: new Map(SEEDED_VOCABULARY.NameSuffix.map((entry) => [entry.id, entry.abbreviation])),
};

/** API.md 3: the prefix's abbreviation, first, middle, last, the suffix's, or the freeform name. */
const fullnameOf = (name: Item | undefined): string => {
  if (!name) return '';
  const structured = [name.first_name, name.middle_initial, name.last_name].some((part) => part != null);
  if (!structured) return String(name.freeform_name ?? '');
  return [
    name.name_prefix_fk == null ? null : ABBREVIATION.prefix.get(name.name_prefix_fk as number),
    name.first_name,
    name.middle_initial,
    name.last_name,
    name.name_suffix_fk == null ? null : ABBREVIATION.suffix.get(name.name_suffix_fk as number),
  ]
    .filter((part) => part != null && part !== '')
    .join(' ');
};

const fold = (text: string) =>
  text.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase().toLowerCase().replace(/\s+/gu, ' ').trim();

/** What the comparison looks at: everything GET shows of a person but its metadata, items by id. */
const viewOf = (person: Json) => ({
  id: person.id,
  fullname: person.fullname,
  email: person.email ?? null,
  local_reference_id: person.local_reference_id ?? null,
  SocialAddresses: socialOf(person.SocialAddresses as Json),
  ...Object.fromEntries(SETS.map((set) => [set, [...itemsOf(person, set)].sort(byId)])),
});

const expectedView = (model: Model) => ({
  id: model.id,
  fullname: fullnameOf(primaryOf(model.sets.Names)),
  email: primaryOf(model.sets.Emails)?.email ?? null,
  local_reference_id: model.local_reference_id ?? null,
  SocialAddresses: model.social,
  ...Object.fromEntries(SETS.map((set) => [set, [...model.sets[set]].sort(byId)])),
});

/** One element of a generated PATCH, as the oracle applies it to the item's owner. */
type Step =
  | { kind: 'edit'; set: SetName; id: number; field: string; value: string }
  | { kind: 'delete'; set: SetName; id: number }
  | { kind: 'add'; set: SetName; body: Json }
  | { kind: 'social'; field: string; value: string };

/**
 * One owner's share of a PATCH, by API.md 5.3: changes and deletes by id, the adds (as the answer shows
 * them, but without a primary of their own: none was sent), then the primaries: Names and Emails keep
 * one, and a deleted primary promotes the lowest id that is not an alias.
 */
const applyShare = (model: Model, set: SetName, steps: Step[], added: Item[]) => {
  let items = model.sets[set];
  let deletedPrimary = false;
  for (const step of steps) {
    if (step.kind === 'edit') {
      const item = items.find((each) => each.id === step.id);
      if (!item) throw new Error(`the oracle has no item ${step.id} in ${set}`);
      item[step.field] = step.value;
    } else if (step.kind === 'delete') {
      if (items.find((item) => item.id === step.id)?.primary === true) deletedPrimary = true;
      items = items.filter((item) => item.id !== step.id);
    }
  }
  const none = PRIMARY_REQUIRED.has(set) ? false : null;
  items.push(...added.map((item) => ({ ...item, primary: item.primary === true ? none : item.primary })));
  const lowest = lowestNotAlias(items);
  if (PRIMARY_REQUIRED.has(set)) {
    for (const item of items) if (!isAlias(item)) item.primary = item.primary === true;
    if (lowest && !primaryOf(items)) lowest.primary = true;
  } else if (deletedPrimary && lowest && !primaryOf(items)) lowest.primary = true;
  model.sets[set] = items;
};

// ---------------------------------------------------------------------------------------------------
// Random PATCHes of the survivor
// ---------------------------------------------------------------------------------------------------

/** `moved` picks a moved item (else one of the survivor's own); `set`, `item`, `field` pick by index. */
const element = fc.record({
  kind: fc.constantFrom('edit', 'edit', 'edit', 'delete', 'delete', 'add', 'social'),
  moved: fc.boolean(),
  set: fc.nat(),
  item: fc.nat(),
  field: fc.nat(),
  social: fc.constantFrom(...SOCIAL),
});
type Element = typeof element extends fc.Arbitrary<infer E> ? E : never;

const unmergePlan = fc.record({
  pair: personPair,
  patches: fc.array(fc.array(element, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
});
type UnmergePlan = typeof unmergePlan extends fc.Arbitrary<infer P> ? P : never;

/**
 * The fields an edit may change (to a fresh value). Never `local_reference_id` alone: an element with
 * an `id` and nothing else but it is a delete (API.md 5.3).
 */
const editable = (set: SetName, item: Item): string[] => {
  switch (set) {
    case 'Names':
      return item.first_name == null ? ['freeform_name'] : ['first_name', 'last_name'];
    case 'Emails':
      return ['email'];
    case 'PhoneNumbers':
      return ['phone_number'];
    case 'PostalAddresses':
      return ['address1', 'city'];
    default:
      return ['name'];
  }
};

/** A value no one holds: `n` counts the run's values. */
const fresh = (field: string, tag: string, n: number) => {
  switch (field) {
    case 'email':
      return `fresh${n}.${tag}@example.org`;
    case 'phone_number':
      return `+1 555 01${String(n).padStart(2, '0')}`;
    default:
      return `Fresh${n} ${tag}`;
  }
};

const addBody = (set: SetName, tag: string, n: number): Json => {
  switch (set) {
    case 'Names':
      return { first_name: 'Added', last_name: `Fresh${n} ${tag}` };
    case 'Emails':
      return { email: fresh('email', tag, n) };
    case 'PhoneNumbers':
      return { phone_number: fresh('phone_number', tag, n) };
    case 'PostalAddresses':
      return { address1: fresh('address1', tag, n) };
    default:
      return { name: fresh('name', tag, n) };
  }
};

interface World {
  tag: string;
  counter: number;
  models: Record<Owner, Model>;
  /** Who owns each item id had the merge never happened. */
  owners: Map<number, Owner>;
  /** The survivor's items from before the merge (its "own" ones, lower ids than any moved item). */
  original: Set<number>;
}

/**
 * The steps of one PATCH from its generated elements, against the survivor as it is now: each element
 * finds a target or becomes an add; an element the never-merged owner would be refused, or one that
 * lets a moved item take the survivor's primary (see the header), is left out.
 */
const planPatch = (elements: Element[], survivor: Json, world: World): Step[] => {
  const steps: Step[] = [];
  const used = new Set<number>();
  const socials = new Set<string>();
  const live = (set: SetName) => itemsOf(survivor, set).filter((item) => !used.has(item.id as number));
  const ownerOf = (item: Item) => world.owners.get(item.id as number);

  const deletable = (set: SetName, item: Item) => {
    const owner = ownerOf(item) as Owner;
    const others = world.models[owner].sets[set].filter(
      (each) => each.id !== item.id && !used.has(each.id as number),
    );
    if (set === 'Names') return others.some((each) => !isAlias(each));
    if (PRIMARY_REQUIRED.has(set) || owner === 'source' || item.primary !== true) return true;
    // The survivor's primary: the lowest remaining id takes it; it must be one of its own.
    const remaining = live(set).filter((each) => each.id !== item.id);
    return (
      remaining.some((each) => world.original.has(each.id as number) && !isAlias(each)) ||
      !remaining.some((each) => ownerOf(each) === 'source')
    );
  };

  for (const generated of elements) {
    const n = ++world.counter;
    if (generated.kind === 'social') {
      if (socials.has(generated.social)) continue;
      socials.add(generated.social);
      steps.push({
        kind: 'social',
        field: generated.social,
        value: `@${generated.social}-${world.tag}-${n}`,
      });
      continue;
    }
    const wanted: Owner = generated.moved ? 'source' : 'survivor';
    const targets = SETS.map((set) => ({
      set,
      items: live(set).filter(
        (item) => ownerOf(item) === wanted && (generated.kind !== 'delete' || deletable(set, item)),
      ),
    })).filter(({ items }) => items.length > 0);
    const target = targets[generated.set % Math.max(1, targets.length)];
    const item = target?.items[generated.item % target.items.length];
    if (generated.kind === 'add' || !target || !item) {
      const set = SETS[generated.set % SETS.length] as SetName;
      steps.push({ kind: 'add', set, body: addBody(set, world.tag, n) });
      continue;
    }
    used.add(item.id as number);
    if (generated.kind === 'delete') steps.push({ kind: 'delete', set: target.set, id: item.id as number });
    else {
      const fields = editable(target.set, item);
      const field = fields[generated.field % fields.length] as string;
      steps.push({
        kind: 'edit',
        set: target.set,
        id: item.id as number,
        field,
        value: fresh(field, world.tag, n),
      });
    }
  }
  return steps;
};

/** The PATCH body of the steps: each set's elements in order, the membership sets in their container. */
const patchBody = (steps: Step[]): Json => {
  const sets = new Map<SetName, Json[]>();
  const social: Json = {};
  for (const step of steps) {
    if (step.kind === 'social') {
      social[step.field] = step.value;
      continue;
    }
    const elements = sets.get(step.set) ?? [];
    sets.set(step.set, elements);
    if (step.kind === 'edit') elements.push({ id: step.id, [step.field]: step.value });
    else if (step.kind === 'delete') elements.push({ id: step.id });
    else elements.push(step.body);
  }
  const container = (set: SetName) => ({ '@type': set, '@set': sets.get(set) });
  const memberships = [...sets.keys()].filter(isMembership);
  return {
    ...Object.fromEntries(
      [...sets.keys()].filter((set) => !isMembership(set)).map((set) => [set, container(set)]),
    ),
    ...(memberships.length > 0
      ? { PersonMemberships: Object.fromEntries(memberships.map((set) => [set, container(set)])) }
      : {}),
    ...(Object.keys(social).length > 0 ? { SocialAddresses: social } : {}),
  };
};

/** The steps applied to the never-merged pair; the adds are read back from the PATCH's answer. */
const applyPatch = (steps: Step[], before: Json, answer: Json, world: World) => {
  for (const step of steps) if (step.kind === 'social') world.models.survivor.social[step.field] = step.value;
  for (const set of SETS) {
    const known = new Set(itemsOf(before, set).map((item) => item.id));
    const added = itemsOf(answer, set).filter((item) => !known.has(item.id));
    for (const item of added) world.owners.set(item.id as number, 'survivor');
    for (const owner of ['survivor', 'source'] as const) {
      const share = steps.filter(
        (step) =>
          step.kind !== 'social' &&
          step.set === set &&
          (step.kind === 'add' ? owner === 'survivor' : world.owners.get(step.id) === owner),
      );
      if (share.length > 0) applyShare(world.models[owner], set, share, owner === 'survivor' ? added : []);
    }
  }
};

// ---------------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------------

const created = async (body: Json) => {
  const answer = await suite.api.post(body);
  expect(answer.status, `POST ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`).toBe(201);
  return answer.body.id as number;
};

/** The pair of a plan made through the handlers, each with a root `local_reference_id`. */
const createdPair = async (pair: PersonPair, tag: string) => {
  const bodies = bodiesOf(pair, tag);
  const survivorId = await created({ ...bodies.survivor, local_reference_id: `crm-K${tag}` });
  const sourceId = await created({
    ...bodies.source,
    local_reference_id: bodies.source.local_reference_id ?? `erp-D${tag}`,
  });
  return { survivorId, sourceId };
};

const body = async (id: number) => {
  const answer = await suite.api.get(id);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as Json;
};

const unmergeRun = async ({ pair, patches }: UnmergePlan) => {
  const tag = uniqueTag('u');
  const { survivorId, sourceId } = await createdPair(pair, tag);
  const a0 = await body(survivorId);
  const b0 = await body(sourceId);
  const world: World = {
    tag,
    counter: 0,
    models: { survivor: modelOf(a0), source: modelOf(b0) },
    owners: new Map([
      ...SETS.flatMap((set) => itemsOf(a0, set).map((item) => [item.id as number, 'survivor'] as const)),
      ...SETS.flatMap((set) => itemsOf(b0, set).map((item) => [item.id as number, 'source'] as const)),
    ]),
    original: new Set(SETS.flatMap((set) => itemsOf(a0, set).map((item) => item.id as number))),
  };
  // The oracle's fullname is the contract's: it must agree with what POST stored.
  expect(expectedView(world.models.survivor)).toEqual(viewOf(a0));
  expect(expectedView(world.models.source)).toEqual(viewOf(b0));

  const merge = await suite.api.merge(survivorId, { source: sourceId });
  expect(merge.status, JSON.stringify(merge.body)).toBe(200);
  let survivor = merge.body as Json;
  for (const elements of patches) {
    const steps = planPatch(elements, survivor, world);
    const request = patchBody(steps);
    const patched = await suite.api.patch(survivorId, request);
    expect(patched.status, `PATCH ${JSON.stringify(request)}: ${JSON.stringify(patched.body)}`).toBe(200);
    applyPatch(steps, survivor, patched.body, world);
    survivor = patched.body;
  }
  const tombstone = await suite.api.get(sourceId);
  expect(tombstone.status).toBe(301);

  const expected = {
    survivor: expectedView(world.models.survivor),
    source: expectedView(world.models.source),
  };
  if (
    expected.survivor.email === null &&
    expected.source.email === null &&
    fold(expected.survivor.fullname) === fold(expected.source.fullname)
  ) {
    // Namesakes known by name alone: one of them would hold the name twice (see the header).
    const refused = await suite.unchangedBy(() => suite.api.unmerge(survivorId, { source: sourceId }));
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ type: '/problems/duplicate-name' });
    return;
  }

  const unmerged = await suite.api.unmerge(survivorId, { source: sourceId });
  expect(unmerged.status, JSON.stringify(unmerged.body)).toBe(200);
  const answer = unmerged.body;
  expect(meta(answer.survivor).version).toBe(meta(survivor).version + 1);
  expect(meta(answer.source).version).toBe(meta(tombstone.body as Json).version + 1);
  // Each GET shows what the answer did, and both are the never-merged pair.
  const a1 = await body(survivorId);
  const b1 = await body(sourceId);
  expect(a1).toEqual(answer.survivor);
  expect(b1).toEqual(answer.source);
  expect(viewOf(a1)).toEqual(expected.survivor);
  expect(viewOf(b1)).toEqual(expected.source);

  // The source's returning email is its claim again.
  const [email] = world.models.source.sets.Emails;
  if (email) {
    const taken = await suite.api.post({
      Names: { '@set': [{ first_name: 'Claim', last_name: `Check ${tag}` }] },
      Emails: { '@set': [{ email: email.email }] },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      type: '/problems/duplicate-email',
      errors: [expect.objectContaining({ existing: `${BASE}/Person/${sourceId}` })],
    });
  }
  expect(await checkInvariants(suite.table)).toEqual([]);
};

/** A merge's answer without what each write stamps anew: version, time, history entry, checksum. */
const content = (person: Json): Json => {
  const { version, date_modified, modified_audit_id, checksum, ...rest } = meta(person);
  return { ...person, CoreMetaData: rest };
};

const roundTrip = async (pair: PersonPair) => {
  const tag = uniqueTag('t');
  const { survivorId, sourceId } = await createdPair(pair, tag);
  const first = await suite.api.merge(survivorId, { source: sourceId });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  const undone = await suite.api.unmerge(survivorId, { source: sourceId });
  expect(undone.status, JSON.stringify(undone.body)).toBe(200);
  const second = await suite.api.merge(survivorId, { source: sourceId });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  expect(content(second.body)).toEqual(content(first.body));
  const gone = await suite.api.get(sourceId);
  expect(gone.status).toBe(301);
  expect(gone.headers.location).toBe(`${BASE}/Person/${survivorId}`);
  expect(await checkInvariants(suite.table)).toEqual([]);
};

describe('POST /Person/{id}/unmerge as a property (API.md 13.1)', () => {
  it(
    'gives back the two persons as they would be had the merge never happened, the PATCHes in between applied to each item’s owner',
    async () => {
      await fuzz('POST /Person/{id}/unmerge after random PATCHes', unmergePlan, unmergeRun, RUNS, MS_PER_RUN);
    },
    timeoutFor(RUNS, MS_PER_RUN),
  );

  it(
    'merges, unmerges and merges again to the same answer, the source a 301 again',
    async () => {
      await fuzz('merge → unmerge → merge round trip', personPair, roundTrip, ROUND_TRIPS, MS_PER_ROUND_TRIP);
    },
    timeoutFor(ROUND_TRIPS, MS_PER_ROUND_TRIP),
  );
});
