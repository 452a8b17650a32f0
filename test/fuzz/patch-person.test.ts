/**
 * PATCH /Person/{id} under hostile bodies and headers, against the real handler and a real table. The
 * bodies start from what GET returned (with changes, deletes and primary moves of stored items) or
 * from new items, and are then mutated; every refusal must leave the table as it was.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { ITEM_TYPES, PersonOut, TOP_LEVEL_SETS } from '../../lib/domain/schemas';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { type TestTable, testRepository } from '../support/dynamo';
import { httpEvent } from '../support/events';
import { integrationSuite } from '../support/suite';
import {
  contentType,
  damage,
  type Mutation,
  mutate,
  mutation,
  requesterJunk,
  type TextDamage,
  textDamage,
  textMutation,
  validPerson,
} from './arbitraries';
import {
  call,
  expectSafeAnswer,
  fuzz,
  prototypeGuard,
  REQUEST_FUZZ_RUNS,
  timeoutFor,
  type Workbench,
  workbench,
} from './harness';
import { isObject, type Tree, type TreeObject, toJsonText } from './json-text';

const suite = integrationSuite();
const RUNS = REQUEST_FUZZ_RUNS;
/** A target person takes this many PATCHes, then a fresh one is made, so set limits rarely end the fun. */
const RUNS_PER_TARGET = 30;

/** Every person made in any table: a write may only be attributed to one of them. */
const personIds = new Set<number>();
let runs = 0;

const newPerson = async (api: ReturnType<typeof personApi>, first: string) => {
  const { body } = await api.post(personBody(first, `N${runs}`, uniqueEmail(first.toLowerCase())));
  personIds.add(body.id);
  return body;
};

/** The handler, the person being patched, another person, and the id of one of its Names. */
const setup = async (table: TestTable) => {
  const persons = testRepository(table);
  const api = personApi(persons);
  const other = await newPerson(api, 'Other');
  const target = await newPerson(api, 'Target');
  return {
    update: buildUpdate({ persons }),
    api,
    target: target.id,
    other: other.id,
    nameId: (other.Names['@set'][0] as { id: number }).id,
  };
};

let bench: Workbench<Awaited<ReturnType<typeof setup>>>;
const pollution = prototypeGuard();

beforeAll(async () => {
  bench = await workbench(suite.table, setup);
});
afterAll(async () => {
  await bench.close();
});

/** What to do to a stored item: change it, delete it (id alone, or with a tombstone), make it primary. */
const edit = fc.record({
  set: fc.constantFrom(...TOP_LEVEL_SETS),
  index: fc.nat(),
  action: fc.constantFrom('change', 'delete', 'primary', 'tombstone'),
  value: fc.oneof(fc.constantFrom('Changed', 'Zoë', 'x'), fc.uuid()),
});
type Edit = typeof edit extends fc.Arbitrary<infer E> ? E : never;

const CHANGED_FIELD: Record<(typeof TOP_LEVEL_SETS)[number], string> = {
  Names: 'first_name',
  Emails: 'email',
  PhoneNumbers: 'phone_number',
  PersonRoles: 'name',
  PostalAddresses: 'city',
};

const applyEdit = (stored: TreeObject, { set, index, action, value }: Edit): TreeObject => {
  const container = stored[set];
  if (!isObject(container) || !Array.isArray(container['@set'])) return stored;
  const items = container['@set'].filter((item): item is TreeObject => isObject(item) && item.id !== null);
  const target = items[index % Math.max(1, items.length)];
  if (!target) return stored;
  const type = ITEM_TYPES[set];
  const id = target.id ?? null;
  const replacement: TreeObject =
    action === 'delete'
      ? { '@type': type, id }
      : action === 'tombstone'
        ? { '@type': type, id, local_reference_id: value }
        : action === 'primary'
          ? { id, primary: true }
          : {
              ...target,
              [CHANGED_FIELD[set]]: set === 'Emails' ? `${value.slice(0, 8)}.${runs}@example.org` : value,
            };
  return {
    ...stored,
    [set]: { ...container, '@set': container['@set'].map((item) => (item === target ? replacement : item)) },
  };
};

/** Appends the new items of `additions` to the sets of `body`. */
const addItems = (body: TreeObject, additions: TreeObject): TreeObject => {
  const next = { ...body };
  for (const set of TOP_LEVEL_SETS) {
    const added = additions[set];
    if (!isObject(added) || !Array.isArray(added['@set'])) continue;
    const current = next[set];
    const existing = isObject(current) && Array.isArray(current['@set']) ? current['@set'] : [];
    next[set] = { '@type': set, '@set': [...existing, ...added['@set']] };
  }
  return next;
};

/** How to build a body: from the stored person (edited, with items added), from nothing or new items. */
const plan = (kinds: fc.Arbitrary<Mutation>) =>
  fc.record({
    start: fc.constantFrom('stored', 'stored', 'empty', 'additions'),
    edits: fc.array(edit, { maxLength: 3 }),
    additions: validPerson,
    mutations: fc.array(kinds, { maxLength: 4 }),
    broken: fc.option(textDamage, { freq: 5, nil: undefined }),
  });
type Plan = typeof plan extends (kinds: never) => fc.Arbitrary<infer P> ? P : never;

/** The body text of a plan against the target as it is stored now. */
const bodyOf = async ({ start, edits, additions, mutations, broken }: Plan) => {
  const { api, target } = bench.current;
  const { body: stored } = await api.get(target);
  const base: TreeObject =
    start === 'empty'
      ? {}
      : start === 'additions'
        ? additions
        : addItems(edits.reduce(applyEdit, stored as unknown as TreeObject), additions);
  const text = toJsonText(mutations.reduce<Tree>(mutate, base));
  return broken ? damage(text, broken as TextDamage) : text;
};

/** Every few runs a fresh target, made outside the tally; then the table as it is before the request. */
const nextRun = async () => {
  if (runs > 0 && runs % RUNS_PER_TARGET === 0) {
    bench.current.target = (await newPerson(bench.current.api, 'Target')).id;
    bench.forget();
  }
  runs += 1;
  await bench.before();
};

/** Sends a PATCH to the target and runs the checks every answer must pass. */
const patch = async (text: string, headers: Record<string, string>) => {
  await bench.before();
  const { update, table, target } = bench.current;
  const id = String(target);
  const response = await call(
    update,
    httpEvent({
      method: 'PATCH',
      route: '/Person/{id}',
      path: `/Person/${id}`,
      pathParameters: { id },
      body: text,
      headers,
    }),
  );
  const seen = `${text}\n${id}\n${Object.values(headers).join('\n')}`;
  pollution.check();
  const body = expectSafeAnswer(response, seen, table);
  await bench.after(response.status, seen);
  if (response.status === 200) {
    const person = PersonOut.parse(body);
    expect(person.id).toBe(target);
    const { modified_by } = person.CoreMetaData;
    if (modified_by !== null)
      expect(personIds.has(modified_by), `modified_by ${modified_by} is no person`).toBe(true);
  }
  return response;
};

const json = (requester: number) => ({
  'content-type': 'application/json',
  'x-requester-person': String(requester),
});

describe('fuzzing PATCH /Person/{id}', () => {
  it(
    'answers bodies mutated around the schema without a 5xx, and a refusal changes nothing',
    async () => {
      await fuzz(
        'PATCH /Person/{id} mutated bodies',
        fc.tuple(plan(mutation), fc.boolean()),
        async ([steps, bySelf]) => {
          await nextRun();
          const { target, other } = bench.current;
          await patch(await bodyOf(steps), json(bySelf ? target : other));
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );

  it(
    'stores odd Unicode in changed and added items as sent, or refuses it cleanly',
    async () => {
      await fuzz(
        'PATCH /Person/{id} odd strings',
        plan(textMutation).map((steps) => ({ ...steps, broken: undefined })),
        async (steps) => {
          await nextRun();
          await patch(await bodyOf(steps), json(bench.current.target));
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );

  it(
    'answers odd content types, requester and If-Match headers without a 5xx; 0 and non-persons never patch',
    async () => {
      const requester = fc.oneof(fc.constantFrom(undefined, '0', 'target', 'other', 'nameId'), requesterJunk);
      const ifMatch = fc.constantFrom(
        undefined,
        '"1"',
        '"2"',
        '"999"',
        '*',
        'W/"1"',
        '',
        '1',
        '"1", "2"',
        '"',
        ',',
      );
      await fuzz(
        'PATCH /Person/{id} headers',
        fc.record({ steps: plan(mutation), type: contentType, requester, ifMatch, clean: fc.boolean() }),
        async ({ steps, type, requester: who, ifMatch: match, clean }) => {
          await nextRun();
          const { target, other, nameId } = bench.current;
          const named: Record<string, number> = { target, other, nameId };
          const headers: Record<string, string> = {};
          if (type !== undefined) headers['content-type'] = type;
          if (who !== undefined)
            headers['x-requester-person'] = Object.hasOwn(named, who) ? String(named[who]) : who;
          if (match !== undefined) headers['if-match'] = match;
          const text = clean ? toJsonText({ local_reference_id: `r${runs}` }) : await bodyOf(steps);
          const response = await patch(text, headers);
          if (who === undefined || who === '0') expect(response.status).toBe(400);
          if (who === 'nameId') expect(response.status).not.toBe(200);
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );
});
