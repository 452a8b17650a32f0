import { describe, expect, it } from 'vitest';
import { UniquenessConflict, ValidationFailed } from '../../../lib/domain/errors';
import { applyPatch, countNewIds } from '../../../lib/domain/patch';
import type { Person } from '../../../lib/domain/person';
import { toPersonOut } from '../../../lib/domain/representation';
import { CreatePersonBody, PatchPersonBody, type SetName } from '../../../lib/domain/schemas';
import { CHANGE_ID, EXAMPLE_OBJECTS, SEEDED_ABBREVIATIONS, sendSet } from '../../support/fixtures';
import { JOHN_SMITH_NAME, storedName } from '../../support/persons';

const CREATED_AT = '2026-11-21T15:04:05.123Z';
const PATCHED_AT = '2026-11-22T09:30:00.000Z';
const CREATOR = 7;
const PATCHER = 42;
/** First id handed out to a PATCH, well above every id of the stored fixtures. */
const FIRST_PATCH_ID = 1000;

/** `nextId` from a counter, remembering every id it handed out. */
const idCounter = (first: number) => {
  const issued: number[] = [];
  let next = first;
  return {
    issued,
    nextId: () => {
      issued.push(next);
      return next++;
    },
  };
};

/** POST: the body parsed as the handler parses it, then applied to nothing. Ids count from 1. */
const create = (body: unknown, requester = CREATOR) => {
  const { issued, nextId } = idCounter(1);
  const result = applyPatch(null, CreatePersonBody.parse(body), {
    requester,
    now: CREATED_AT,
    nextId,
    changeId: CHANGE_ID,
    abbreviations: SEEDED_ABBREVIATIONS,
  });
  return { ...result, issued };
};

/** PATCH: the body parsed as the handler parses it, then applied to `stored`. Ids count from 1000. */
const patch = (stored: Person, body: unknown, requester = PATCHER) => {
  const { issued, nextId } = idCounter(FIRST_PATCH_ID);
  const result = applyPatch(stored, PatchPersonBody.parse(body), {
    requester,
    now: PATCHED_AT,
    nextId,
    changeId: CHANGE_ID,
    abbreviations: SEEDED_ABBREVIATIONS,
  });
  return { ...result, issued };
};

const errorOf = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('expected the patch to refuse the request');
};

/** The JSON Pointers of a refused patch, failing unless it was refused as invalid. */
const validationPaths = (act: () => unknown): string[] => {
  const error = errorOf(act);
  expect(error).toBeInstanceOf(ValidationFailed);
  return (error as ValidationFailed).errors.map(({ path }) => path);
};

type AnyItem = { id: number; primary?: boolean | null } & Record<string, unknown>;
const itemsOf = (person: Person, set: SetName) => person[set] as unknown as AnyItem[];
const idsOf = (person: Person, set: SetName) => itemsOf(person, set).map(({ id }) => id);
const itemOf = (person: Person, set: SetName, id: number) =>
  itemsOf(person, set).find((item) => item.id === id);
const primaryIdsOf = (person: Person, set: SetName) =>
  itemsOf(person, set)
    .filter(({ primary }) => primary === true)
    .map(({ id }) => id);

const links = {
  baseUrl: 'https://api.example.org/prod',
  contextUrl: 'https://api.example.org/prod/context.jsonld',
};

/**
 * The stored person most tests patch. Ids: person 1, Name 2, Emails 3 (primary) and 4, PhoneNumbers 5, 6
 * (primary) and 7, PersonRole 8, PostalAddresses 9 (primary) and 10.
 */
const johnBody = {
  local_reference_id: 'person-ref',
  Names: { '@set': [{ first_name: 'John', last_name: 'Smith', local_reference_id: 'name-1' }] },
  Emails: { '@set': [{ email: 'jsmith@no-reply.org' }, { email: 'john@work.example' }] },
  PhoneNumbers: {
    '@set': [
      { phone_number: '+1 555 0100' },
      { phone_number: '+1 555 0101', primary: true },
      { phone_number: '+1 555 0102' },
    ],
  },
  PersonRoles: { '@set': [{ name: 'Chair', role_fk: 9 }] },
  PostalAddresses: {
    '@set': [{ address1: '1 Main St', city: 'Springfield', primary: true }, { city: 'Shelbyville' }],
  },
  SocialAddresses: { twitter: 'https://x.com/jsmith' },
};
const storedJohn = () => create(johnBody).person;

/** A person known only by name. Ids: person 1, Name 2. */
const storedEmailLess = () =>
  create({ Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] } }).person;

/** One email only. Ids: person 1, Name 2, Email 3. */
const storedWithOneEmail = () =>
  create({
    Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
    Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] },
  }).person;

/**
 * Three items in each set that has a primary, the middle one primary, so that the lowest remaining id
 * and the next one differ. Ids: Names 2-4, Emails 5-7, PhoneNumbers 8-10, PostalAddresses 11-13.
 */
const storedThreeOfEach = () =>
  create({
    Names: {
      '@set': [
        { first_name: 'John', last_name: 'Smith' },
        { first_name: 'Johnny', last_name: 'Smith', primary: true },
        { freeform_name: 'J. Smith' },
      ],
    },
    Emails: {
      '@set': [
        { email: 'a@example.org' },
        { email: 'b@example.org', primary: true },
        { email: 'c@example.org' },
      ],
    },
    PhoneNumbers: {
      '@set': [{ phone_number: '1' }, { phone_number: '2', primary: true }, { phone_number: '3' }],
    },
    PostalAddresses: { '@set': [{ city: 'Aarau' }, { city: 'Bern', primary: true }, { city: 'Chur' }] },
  }).person;

const examples = EXAMPLE_OBJECTS;

describe('applyPatch: example objects', () => {
  it.each(Object.entries(examples))('ignores an example object in %s of a PATCH', (set, example) => {
    const stored = storedJohn();
    const result = patch(stored, sendSet(set as SetName, [example]));
    expect(result.person).toEqual(stored);
    expect(result.changed).toEqual([]);
    expect(result.issued).toEqual([]);
  });

  it('ignores an element made of nothing but @type', () => {
    const stored = storedJohn();
    const result = patch(stored, { Emails: { '@set': [{ '@type': 'Email' }, {}] } });
    expect(result.person).toEqual(stored);
    expect(result.issued).toEqual([]);
  });

  it('ignores example objects on create', () => {
    const { person, issued } = create({
      Names: { '@set': [examples.Names, { first_name: 'John', last_name: 'Smith' }] },
      Emails: { '@set': [examples.Emails] },
      PostalAddresses: { '@set': [examples.PostalAddresses] },
    });
    expect(idsOf(person, 'Names')).toEqual([2]);
    expect(person.Emails).toEqual([]);
    expect(person.PostalAddresses).toEqual([]);
    expect(issued).toEqual([1, 2]);
  });
});

describe('applyPatch: adding', () => {
  it.each([
    ['absent', {}],
    ['null', { id: null }],
  ])('adds an item whose id is %s', (_, id) => {
    const stored = storedJohn();
    const { person, changed } = patch(stored, {
      Emails: { '@set': [{ ...id, email: 'new@example.org', local_reference_id: 'email-new' }] },
    });
    expect(person.Emails).toEqual([
      ...stored.Emails,
      { id: FIRST_PATCH_ID, email: 'new@example.org', primary: false, local_reference_id: 'email-new' },
    ]);
    expect(changed).toEqual(['/Emails']);
  });

  it.each([
    [
      'Names',
      { freeform_name: 'Johnny' },
      {
        first_name: null,
        last_name: null,
        middle_initial: null,
        freeform_name: 'Johnny',
        name_prefix_fk: null,
        name_suffix_fk: null,
        primary: false,
      },
    ],
    [
      'PhoneNumbers',
      { phone_number: '+41 31 000 00 00' },
      { phone_number: '+41 31 000 00 00', primary: null },
    ],
    ['PersonRoles', { name: 'Treasurer' }, { name: 'Treasurer', role_fk: null }],
    [
      'PostalAddresses',
      { city: 'Bern', country_code: 'CH' },
      {
        address1: null,
        address2: null,
        city: 'Bern',
        state_territory_province: null,
        postal_code: null,
        country: null,
        country_code: 'CH',
        primary: null,
      },
    ],
  ] as const)('adds an item to %s with the properties not sent as null', (set, element, fields) => {
    const stored = storedJohn();
    const { person } = patch(stored, { [set]: { '@set': [element] } });
    expect(itemsOf(person, set)).toEqual([
      ...itemsOf(stored, set),
      { id: FIRST_PATCH_ID, ...fields, local_reference_id: null },
    ]);
  });

  it('takes the *_fk fields of an added item', () => {
    const doctor = 21;
    const phd = 505;
    const { person } = patch(storedJohn(), {
      Names: {
        '@set': [{ first_name: 'John', last_name: 'Smith', name_prefix_fk: doctor, name_suffix_fk: phd }],
      },
      PersonRoles: { '@set': [{ name: 'Treasurer', role_fk: 12 }] },
    });
    expect(itemOf(person, 'Names', 1000)).toMatchObject({ name_prefix_fk: doctor, name_suffix_fk: phd });
    expect(itemOf(person, 'PersonRoles', 1001)).toMatchObject({ role_fk: 12 });
  });

  it('ignores person_fk on an added item', () => {
    const { person } = patch(storedJohn(), {
      Emails: { '@set': [{ email: 'new@example.org', person_fk: 999 }] },
    });
    expect(itemOf(person, 'Emails', 1000)).not.toHaveProperty('person_fk');
  });

  it.each([
    ['Names', { middle_initial: 'Q.' }],
    ['Emails', { primary: true }],
    ['PhoneNumbers', { primary: true }],
    ['PersonRoles', { local_reference_id: 'role-1' }],
    ['PostalAddresses', { primary: true }],
  ])('refuses an added item in %s that has nothing of its own', (set, element) => {
    expect(validationPaths(() => patch(storedJohn(), { [set]: { '@set': [element] } }))).toContain(
      `/${set}/@set/0`,
    );
  });

  it('refuses an added Name with only first_name', () => {
    expect(
      validationPaths(() => patch(storedJohn(), { Names: { '@set': [{ first_name: 'Jack' }] } })),
    ).toEqual(['/Names/@set/0']);
  });

  it('refuses an added Name with an unknown name_prefix_fk', () => {
    const body = { Names: { '@set': [{ first_name: 'John', last_name: 'Smith', name_prefix_fk: 999 }] } };
    expect(validationPaths(() => patch(storedJohn(), body))).toEqual(['/Names/@set/0/name_prefix_fk']);
  });
});

describe('applyPatch: changing', () => {
  it('changes the properties sent and keeps the absent ones', () => {
    const { person } = patch(storedJohn(), {
      PhoneNumbers: { '@set': [{ id: 6, phone_number: '+1 555 0199' }] },
    });
    expect(itemOf(person, 'PhoneNumbers', 6)).toEqual({
      id: 6,
      phone_number: '+1 555 0199',
      primary: true,
      local_reference_id: null,
    });
  });

  it('clears a property sent as null', () => {
    const { person } = patch(storedJohn(), { PostalAddresses: { '@set': [{ id: 9, address1: null }] } });
    expect(itemOf(person, 'PostalAddresses', 9)).toMatchObject({
      address1: null,
      city: 'Springfield',
      primary: true,
    });
  });

  it('changes the local_reference_id of an item sent with other properties', () => {
    const { person } = patch(storedJohn(), {
      Names: { '@set': [{ id: 2, middle_initial: 'Q.', local_reference_id: 'name-2' }] },
    });
    expect(itemOf(person, 'Names', 2)).toMatchObject({
      first_name: 'John',
      middle_initial: 'Q.',
      local_reference_id: 'name-2',
    });
  });

  it('ignores the *_fk fields of a changed item', () => {
    const { person } = patch(storedJohn(), {
      Names: { '@set': [{ id: 2, middle_initial: 'Q.', name_prefix_fk: 1, name_suffix_fk: 999 }] },
      PersonRoles: { '@set': [{ id: 8, name: 'Vice chair', role_fk: 10 }] },
    });
    expect(itemOf(person, 'Names', 2)).toMatchObject({
      middle_initial: 'Q.',
      name_prefix_fk: null,
      name_suffix_fk: null,
    });
    expect(itemOf(person, 'PersonRoles', 8)).toMatchObject({ name: 'Vice chair', role_fk: 9 });
  });

  it('ignores person_fk on a changed item', () => {
    const { person } = patch(storedJohn(), {
      Emails: { '@set': [{ id: 4, email: 'john@home.example', person_fk: 999 }] },
    });
    expect(itemOf(person, 'Emails', 4)).toEqual({
      id: 4,
      email: 'john@home.example',
      primary: false,
      local_reference_id: null,
    });
  });

  it('treats an element of id and person_fk as a change of nothing, not a delete', () => {
    const stored = storedJohn();
    const result = patch(stored, { Emails: { '@set': [{ '@type': 'Email', id: 4, person_fk: 1 }] } });
    expect(result.person).toEqual(stored);
    expect(result.changed).toEqual([]);
  });

  it('refuses a change of an id the person does not hold, naming the id of the element', () => {
    const body = {
      Emails: { '@set': [{ email: 'new@example.org' }, { id: 999, email: 'other@example.org' }] },
    };
    expect(validationPaths(() => patch(storedJohn(), body))).toEqual(['/Emails/@set/1/id']);
  });

  it('refuses a change of an id that belongs to another set of the person', () => {
    const body = { Emails: { '@set': [{ id: 2, email: 'other@example.org' }] } };
    expect(validationPaths(() => patch(storedJohn(), body))).toEqual(['/Emails/@set/0/id']);
  });

  it.each([
    ['last_name cleared', { id: 2, last_name: null }],
    ['first_name blanked', { id: 2, first_name: '  ' }],
  ])('refuses a change that leaves a Name half structured: %s', (_, element) => {
    expect(validationPaths(() => patch(storedJohn(), { Names: { '@set': [element] } }))).toEqual([
      '/Names/@set/0',
    ]);
  });

  it('accepts a change that turns a structured Name into a freeform one', () => {
    const { person } = patch(storedJohn(), {
      Names: { '@set': [{ id: 2, first_name: null, last_name: null, freeform_name: 'Johnny' }] },
    });
    expect(itemOf(person, 'Names', 2)).toMatchObject({
      first_name: null,
      last_name: null,
      freeform_name: 'Johnny',
    });
  });

  it('refuses a change that clears the address of an Email', () => {
    expect(
      validationPaths(() => patch(storedJohn(), { Emails: { '@set': [{ id: 4, email: null }] } })),
    ).toEqual(['/Emails/@set/0']);
  });
});

describe('applyPatch: deleting', () => {
  it.each([
    ['id alone', { id: 4 }],
    ['id and @type', { '@type': 'Email', id: 4 }],
    ['id, @type and local_reference_id', { '@type': 'Email', id: 4, local_reference_id: 'gone' }],
    ['id and a null local_reference_id', { id: 4, local_reference_id: null }],
  ])('deletes the item of an element made of %s', (_, element) => {
    const { person, changed, issued } = patch(storedJohn(), { Emails: { '@set': [element] } });
    expect(idsOf(person, 'Emails')).toEqual([3]);
    expect(changed).toEqual(['/Emails']);
    expect(issued).toEqual([]);
  });

  it('echoes the local_reference_id of a delete as a tombstone of its set', () => {
    const { tombstones } = patch(storedJohn(), {
      Emails: { '@set': [{ '@type': 'Email', id: 4, local_reference_id: 'gone' }] },
      PhoneNumbers: {
        '@set': [
          { id: 5, local_reference_id: 'phone-gone' },
          { id: 7, local_reference_id: 'p3' },
        ],
      },
    });
    expect(tombstones).toEqual({
      Emails: [{ id: 4, local_reference_id: 'gone' }],
      PhoneNumbers: [
        { id: 5, local_reference_id: 'phone-gone' },
        { id: 7, local_reference_id: 'p3' },
      ],
    });
  });

  it('echoes no tombstone for a delete without local_reference_id', () => {
    const { tombstones } = patch(storedJohn(), { Emails: { '@set': [{ '@type': 'Email', id: 4 }] } });
    expect(tombstones).toEqual({});
  });

  it('does not store tombstones on the person', () => {
    const { person } = patch(storedJohn(), { Emails: { '@set': [{ id: 4, local_reference_id: 'gone' }] } });
    expect(JSON.stringify(person)).not.toContain('gone');
  });

  it('treats a delete of an id the person does not hold as a no-op that still echoes its tombstone', () => {
    const stored = storedJohn();
    const result = patch(stored, {
      Emails: { '@set': [{ '@type': 'Email', id: 999, local_reference_id: 'retry' }] },
    });
    expect(result.person).toEqual(stored);
    expect(result.changed).toEqual([]);
    expect(result.tombstones).toEqual({ Emails: [{ id: 999, local_reference_id: 'retry' }] });
  });

  it('answers a retried delete as it answered the first', () => {
    const body = { Emails: { '@set': [{ id: 4, local_reference_id: 'gone' }] } };
    const first = patch(storedJohn(), body);
    const retry = patch(first.person, body);
    expect(retry.person).toEqual(first.person);
    expect(retry.tombstones).toEqual(first.tombstones);
    expect(retry.changed).toEqual([]);
  });

  it('deletes every Email of a person', () => {
    const { person } = patch(storedJohn(), { Emails: { '@set': [{ id: 3 }, { id: 4 }] } });
    expect(person.Emails).toEqual([]);
  });

  it('refuses to delete the last Name', () => {
    expect(validationPaths(() => patch(storedJohn(), { Names: { '@set': [{ id: 2 }] } }))).toEqual([
      '/Names',
    ]);
  });

  it('deletes a Name when another remains', () => {
    const { person } = patch(storedThreeOfEach(), { Names: { '@set': [{ id: 2 }, { id: 4 }] } });
    expect(idsOf(person, 'Names')).toEqual([3]);
  });

  it('names the invalid replacement, not /Names, when the last Name is deleted and an invalid one added', () => {
    const body = { Names: { '@set': [{ id: 2 }, { last_name: 'Smith' }] } };
    expect(validationPaths(() => patch(storedJohn(), body))).toEqual(['/Names/@set/1']);
  });
});

describe('applyPatch: a PATCH as a whole', () => {
  it('combines adds, changes and deletes in one request in any order', () => {
    const { person, tombstones } = patch(storedJohn(), {
      Emails: {
        '@set': [
          { email: 'new@example.org' },
          { id: 4, email: 'john@home.example' },
          { id: 3, local_reference_id: 'gone' },
        ],
      },
    });
    expect(person.Emails).toEqual([
      { id: 4, email: 'john@home.example', primary: true, local_reference_id: null },
      { id: FIRST_PATCH_ID, email: 'new@example.org', primary: false, local_reference_id: null },
    ]);
    expect(tombstones).toEqual({ Emails: [{ id: 3, local_reference_id: 'gone' }] });
  });

  it('keeps the items and sets that the PATCH does not mention', () => {
    const stored = storedJohn();
    const { person } = patch(stored, { Emails: { '@set': [{ id: 4, email: 'john@home.example' }] } });
    expect(itemOf(person, 'Emails', 3)).toEqual(itemOf(stored, 'Emails', 3));
    for (const set of ['Names', 'PhoneNumbers', 'PersonRoles', 'PostalAddresses'] as const) {
      expect(person[set]).toEqual(stored[set]);
    }
    expect(person.SocialAddresses).toEqual(stored.SocialAddresses);
    expect(person.local_reference_id).toBe('person-ref');
  });

  it('keeps every item of a set sent with an empty @set', () => {
    const stored = storedJohn();
    const result = patch(stored, { Emails: { '@type': 'Emails', '@set': [] }, Names: { '@type': 'Names' } });
    expect(result.person).toEqual(stored);
    expect(result.changed).toEqual([]);
  });

  it('changes the root local_reference_id, and clears it when sent as null', () => {
    const stored = storedJohn();
    expect(patch(stored, { local_reference_id: 'ref-2' }).person.local_reference_id).toBe('ref-2');
    expect(patch(stored, { local_reference_id: null }).person.local_reference_id).toBeNull();
  });

  it('sets, clears and keeps SocialAddresses fields as sent', () => {
    const { person } = patch(storedJohn(), {
      SocialAddresses: {
        '@type': 'SocialAddresses',
        facebook: 'https://www.facebook.com/jsmith',
        linkedin: null,
      },
    });
    expect(person.SocialAddresses).toEqual({
      twitter: 'https://x.com/jsmith',
      facebook: 'https://www.facebook.com/jsmith',
      linkedin: null,
      youtube: null,
    });
  });

  it('ignores the read-only root properties', () => {
    const stored = storedJohn();
    const result = patch(stored, {
      id: 99,
      fullname: 'Somebody Else',
      email: 'else@example.org',
      CoreMetaData: { version: 99, created_by: 99, modified_by: 99, date_created: 'x', date_modified: 'y' },
    });
    expect(result.person).toEqual(stored);
    expect(result.changed).toEqual([]);
  });

  it('refuses a PATCH that would take a set past its limit', () => {
    const emails = Array.from({ length: 50 }, (_, index) => ({ email: `person${index}@example.org` }));
    const stored = create({ Names: johnBody.Names, Emails: { '@set': emails } }).person;
    expect(
      validationPaths(() => patch(stored, { Emails: { '@set': [{ email: 'one-more@example.org' }] } })),
    ).toEqual(['/Emails/@set']);
  });

  it('accepts a PATCH that replaces an item of a full set', () => {
    const emails = Array.from({ length: 50 }, (_, index) => ({ email: `person${index}@example.org` }));
    const stored = create({ Names: johnBody.Names, Emails: { '@set': emails } }).person;
    const { person } = patch(stored, { Emails: { '@set': [{ id: 3 }, { email: 'one-more@example.org' }] } });
    expect(person.Emails).toHaveLength(50);
  });
});

describe('applyPatch: creating', () => {
  it('gives the person the first id handed out and its items the next ones, in the order sent', () => {
    const { person, issued } = create(johnBody);
    expect(person.id).toBe(1);
    expect(idsOf(person, 'Names')).toEqual([2]);
    expect(idsOf(person, 'Emails')).toEqual([3, 4]);
    expect(idsOf(person, 'PhoneNumbers')).toEqual([5, 6, 7]);
    expect(idsOf(person, 'PersonRoles')).toEqual([8]);
    expect(idsOf(person, 'PostalAddresses')).toEqual([9, 10]);
    expect(issued).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('ignores the id and person_fk fields sent', () => {
    const { person } = create({
      id: 500,
      Names: { '@set': [{ id: 501, first_name: 'John', last_name: 'Smith', person_fk: 500 }] },
      Emails: { '@set': [{ id: 502, email: 'jsmith@no-reply.org', person_fk: 500 }] },
    });
    expect(person.id).toBe(1);
    expect(person.Names).toEqual([storedName({ id: 2, ...JOHN_SMITH_NAME })]);
    expect(person.Emails).toEqual([
      { id: 3, email: 'jsmith@no-reply.org', primary: true, local_reference_id: null },
    ]);
  });

  it('adds an item sent with the id of nothing, as any id is ignored on create', () => {
    const { person } = create({
      Names: johnBody.Names,
      PhoneNumbers: { '@set': [{ id: 77, phone_number: '+1 555 0100' }] },
    });
    expect(person.PhoneNumbers).toEqual([
      { id: 3, phone_number: '+1 555 0100', primary: null, local_reference_id: null },
    ]);
  });

  it('leaves everything not sent null or empty', () => {
    const { person } = create({ Names: { '@set': [{ freeform_name: 'Cher' }] } });
    expect(person.local_reference_id).toBeNull();
    expect(person.SocialAddresses).toEqual({ twitter: null, facebook: null, linkedin: null, youtube: null });
    for (const set of ['Emails', 'PhoneNumbers', 'PersonRoles', 'PostalAddresses'] as const) {
      expect(person[set]).toEqual([]);
    }
  });

  it('stores the root local_reference_id and the SocialAddresses sent', () => {
    const { person } = create(johnBody);
    expect(person.local_reference_id).toBe('person-ref');
    expect(person.SocialAddresses.twitter).toBe('https://x.com/jsmith');
  });

  it('starts CoreMetaData at version 1, created by the requester and modified by nobody', () => {
    expect(create(johnBody, CREATOR).person.CoreMetaData).toEqual({
      date_created: CREATED_AT,
      date_modified: CREATED_AT,
      created_by: CREATOR,
      modified_by: null,
      version: 1,
      created_audit_id: CHANGE_ID,
      modified_audit_id: null,
    });
  });

  it('attributes a self-registration (requester 0) to the new person', () => {
    const { person } = create(johnBody, 0);
    expect(person.CoreMetaData.created_by).toBe(person.id);
    expect(person.CoreMetaData.modified_by).toBeNull();
  });

  it.each([
    ['Names without @set', { Names: { '@type': 'Names' } }],
    ['an empty @set', { Names: { '@set': [] } }],
    ['only example objects', { Names: { '@set': [examples.Names, { '@type': 'Name' }] } }],
  ])('requires at least one Name: refuses %s', (_, body) => {
    expect(validationPaths(() => create(body))).toEqual(['/Names']);
  });

  it.each([
    ['only first_name', { first_name: 'John' }],
    ['only last_name', { last_name: 'Smith' }],
    ['a blank last_name', { first_name: 'John', last_name: '   ' }],
    ['only middle_initial', { middle_initial: 'Q.' }],
    ['a blank freeform_name', { freeform_name: '  ' }],
    ['only a local_reference_id', { local_reference_id: 'name-1' }],
    ['first_name and freeform_name but no last_name', { first_name: 'John', freeform_name: 'Johnny' }],
  ])('refuses a Name with %s', (_, name) => {
    expect(validationPaths(() => create({ Names: { '@set': [name] } }))).toContain('/Names/@set/0');
  });

  it.each([
    ['structured', { first_name: 'John', last_name: 'Smith' }],
    ['freeform', { freeform_name: 'Cher' }],
    ['structured and freeform', { first_name: 'John', last_name: 'Smith', freeform_name: 'Johnny' }],
  ])('accepts a %s Name', (_, name) => {
    expect(create({ Names: { '@set': [name] } }).person.Names).toHaveLength(1);
  });

  it.each([
    ['name_prefix_fk', 1],
    ['name_prefix_fk', 21],
    ['name_suffix_fk', 1],
    ['name_suffix_fk', 19],
  ])('takes %s %i, an id of the vocabulary', (field, id) => {
    const { person } = create({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith', [field]: id }] },
    });
    expect(itemOf(person, 'Names', 2)).toMatchObject({ [field]: id });
  });

  it.each([
    ['name_prefix_fk', 3],
    ['name_prefix_fk', 999],
    ['name_suffix_fk', 20],
  ])('refuses %s %i, an id not in the vocabulary', (field, id) => {
    const body = {
      Names: {
        '@set': [
          { first_name: 'Jane', last_name: 'Doe' },
          { first_name: 'John', last_name: 'Smith', [field]: id },
        ],
      },
    };
    expect(validationPaths(() => create(body))).toEqual([`/Names/@set/1/${field}`]);
  });
});

describe('applyPatch: primary items', () => {
  it.each([
    [
      'Names',
      { Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }, { freeform_name: 'Johnny' }] } },
      [2, 3],
    ],
    [
      'Emails',
      { Names: johnBody.Names, Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org' }] } },
      [3, 4],
    ],
  ] as const)(
    'makes the first of the %s primary on create when none is marked',
    (set, body, [first, second]) => {
      const { person } = create(body);
      expect(itemOf(person, set, first)?.primary).toBe(true);
      expect(itemOf(person, set, second)?.primary).toBe(false);
    },
  );

  it('keeps the item marked primary on create', () => {
    const { person } = create({
      Names: {
        '@set': [
          { first_name: 'John', last_name: 'Smith' },
          { freeform_name: 'Johnny', primary: true },
        ],
      },
      Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org', primary: true }] },
    });
    expect(primaryIdsOf(person, 'Names')).toEqual([3]);
    expect(primaryIdsOf(person, 'Emails')).toEqual([5]);
  });

  it('makes no PhoneNumber or PostalAddress primary when none is marked', () => {
    const { person } = create({
      Names: johnBody.Names,
      PhoneNumbers: { '@set': [{ phone_number: '1' }, { phone_number: '2' }] },
      PostalAddresses: { '@set': [{ city: 'Bern' }] },
    });
    expect(primaryIdsOf(person, 'PhoneNumbers')).toEqual([]);
    expect(primaryIdsOf(person, 'PostalAddresses')).toEqual([]);
  });

  it('keeps the primary Email when an Email is added without primary', () => {
    const { person } = patch(storedJohn(), { Emails: { '@set': [{ email: 'new@example.org' }] } });
    expect(primaryIdsOf(person, 'Emails')).toEqual([3]);
  });

  it('makes the first Email added to a person without Emails primary', () => {
    const { person } = patch(storedEmailLess(), {
      Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org' }] },
    });
    expect(primaryIdsOf(person, 'Emails')).toEqual([FIRST_PATCH_ID]);
  });

  it.each([
    ['an added Email', 'Emails', { email: 'new@example.org', primary: true }, FIRST_PATCH_ID],
    ['a changed Email', 'Emails', { id: 4, primary: true }, 4],
    ['an added Name', 'Names', { freeform_name: 'Johnny', primary: true }, FIRST_PATCH_ID],
    ['a changed PhoneNumber', 'PhoneNumbers', { id: 7, primary: true }, 7],
    ['an added PhoneNumber', 'PhoneNumbers', { phone_number: '+1 555 0103', primary: true }, FIRST_PATCH_ID],
    ['a changed PostalAddress', 'PostalAddresses', { id: 10, primary: true }, 10],
  ] as const)('demotes the previous primary when %s is marked primary', (_, set, element, primary) => {
    const { person } = patch(storedJohn(), { [set]: { '@set': [element] } });
    expect(primaryIdsOf(person, set)).toEqual([primary]);
  });

  it.each([
    [
      'two added Emails',
      {
        Emails: {
          '@set': [
            { email: 'a@example.org', primary: true },
            { email: 'b@example.org', primary: true },
          ],
        },
      },
      '/Emails/@set/1/primary',
    ],
    [
      'an added and a changed Email',
      {
        Emails: {
          '@set': [
            { email: 'a@example.org', primary: true },
            { id: 4, primary: true },
          ],
        },
      },
      '/Emails/@set/1/primary',
    ],
    [
      'two changed PhoneNumbers',
      {
        PhoneNumbers: {
          '@set': [
            { id: 5, primary: true },
            { id: 7, primary: true },
          ],
        },
      },
      '/PhoneNumbers/@set/1/primary',
    ],
    [
      'two PostalAddresses',
      {
        PostalAddresses: {
          '@set': [
            { city: 'Bern', primary: true },
            { id: 10, primary: true },
          ],
        },
      },
      '/PostalAddresses/@set/1/primary',
    ],
  ])('refuses two items marked primary in one request: %s', (_, body, path) => {
    expect(validationPaths(() => patch(storedJohn(), body))).toEqual([path]);
  });

  it('refuses two primary Names on create', () => {
    const body = {
      Names: {
        '@set': [
          { first_name: 'John', last_name: 'Smith', primary: true },
          { freeform_name: 'Johnny', primary: true },
        ],
      },
    };
    expect(validationPaths(() => create(body))).toEqual(['/Names/@set/1/primary']);
  });

  it.each([
    ['Names', 3, 2],
    ['Emails', 6, 5],
    ['PhoneNumbers', 9, 8],
    ['PostalAddresses', 12, 11],
  ] as const)(
    'promotes the remaining item with the lowest id when the primary of %s is deleted',
    (set, primary, lowest) => {
      const stored = storedThreeOfEach();
      expect(primaryIdsOf(stored, set)).toEqual([primary]);
      const { person } = patch(stored, { [set]: { '@set': [{ id: primary }] } });
      expect(primaryIdsOf(person, set)).toEqual([lowest]);
    },
  );

  it.each(['Emails', 'PhoneNumbers'] as const)(
    'promotes the lowest id of %s, not the first item listed, when the primary is deleted',
    (set) => {
      const stored = storedThreeOfEach();
      const reversed: Person = { ...stored, [set]: [...stored[set]].reverse() };
      const [lowest, primary] = idsOf(stored, set);
      const { person } = patch(reversed, { [set]: { '@set': [{ id: primary }] } });
      expect(primaryIdsOf(person, set)).toEqual([lowest]);
    },
  );

  it('keeps the item marked primary in the request that deletes the previous primary', () => {
    const { person } = patch(storedThreeOfEach(), {
      PhoneNumbers: { '@set': [{ id: 9 }, { id: 10, primary: true }] },
    });
    expect(primaryIdsOf(person, 'PhoneNumbers')).toEqual([10]);
  });

  it('promotes no PhoneNumber when a non-primary one is deleted from a set without a primary', () => {
    const stored = create({
      Names: johnBody.Names,
      PhoneNumbers: { '@set': [{ phone_number: '1' }, { phone_number: '2' }, { phone_number: '3' }] },
    }).person;
    const { person } = patch(stored, { PhoneNumbers: { '@set': [{ id: 4 }] } });
    expect(primaryIdsOf(person, 'PhoneNumbers')).toEqual([]);
  });

  it('keeps the only Name primary when it is sent with primary false', () => {
    const { person } = patch(storedJohn(), { Names: { '@set': [{ id: 2, primary: false }] } });
    expect(primaryIdsOf(person, 'Names')).toEqual([2]);
  });

  it('makes the lowest id primary when a request leaves no Email marked primary', () => {
    const { person } = patch(storedThreeOfEach(), {
      Emails: { '@set': [{ id: 6, primary: false }, { email: 'd@example.org' }, { id: 5 }] },
    });
    expect(idsOf(person, 'Emails')).toEqual([6, 7, FIRST_PATCH_ID]);
    expect(primaryIdsOf(person, 'Emails')).toEqual([6]);
  });
});

describe('applyPatch: one address per person', () => {
  it('refuses the same email twice in a create, compared trimmed and case-insensitively', () => {
    const body = {
      Names: johnBody.Names,
      Emails: { '@set': [{ email: 'jsmith@no-reply.org' }, { email: '  JSmith@No-Reply.ORG ' }] },
    };
    const error = errorOf(() => create(body));
    expect(error).toBeInstanceOf(UniquenessConflict);
    expect(error).toMatchObject({ field: 'email', errors: [{ path: '/Emails/@set/1/email' }] });
  });

  it('refuses an added email the person already has in another case', () => {
    const error = errorOf(() =>
      patch(storedJohn(), { Emails: { '@set': [{ email: 'JOHN@work.example' }] } }),
    );
    expect(error).toBeInstanceOf(UniquenessConflict);
    expect(error).toMatchObject({ field: 'email', errors: [{ path: '/Emails/@set/0/email' }] });
  });

  it('refuses a changed email that another item of the person holds, naming the changed element', () => {
    const error = errorOf(() =>
      patch(storedJohn(), { Emails: { '@set': [{ id: 3, email: 'john@WORK.example' }] } }),
    );
    expect(error).toBeInstanceOf(UniquenessConflict);
    expect(error).toMatchObject({ field: 'email', errors: [{ path: '/Emails/@set/0/email' }] });
  });

  it('accepts two items swapping their addresses in one request', () => {
    const { person } = patch(storedJohn(), {
      Emails: {
        '@set': [
          { id: 3, email: 'john@work.example' },
          { id: 4, email: 'jsmith@no-reply.org' },
        ],
      },
    });
    expect(person.Emails.map(({ id, email }) => [id, email])).toEqual([
      [3, 'john@work.example'],
      [4, 'jsmith@no-reply.org'],
    ]);
  });

  it('leaves the stored person as it was when it refuses a request', () => {
    const stored = storedJohn();
    const before = structuredClone(stored);
    errorOf(() => patch(stored, { Emails: { '@set': [{ id: 3, email: 'john@work.example' }] } }));
    errorOf(() => patch(stored, { Names: { '@set': [{ id: 2 }] } }));
    expect(stored).toEqual(before);
  });

  it('does not change the stored person it applies to', () => {
    const stored = storedJohn();
    const before = structuredClone(stored);
    patch(stored, { Emails: { '@set': [{ id: 3 }, { id: 4, primary: true }] }, local_reference_id: null });
    expect(stored).toEqual(before);
  });
});

describe('applyPatch: uniqueness claims', () => {
  it('takes a claim for every email of a new person and releases nothing', () => {
    const { take, release } = create({
      Names: johnBody.Names,
      Emails: { '@set': [{ email: ' JSmith@No-Reply.org' }, { email: 'john@work.example' }] },
    });
    expect(take).toEqual([
      { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' },
      { field: 'email', value: 'john@work.example', path: '/Emails/@set/1/email' },
    ]);
    expect(release).toEqual([]);
  });

  it('takes a claim of the folded fullname for a new person without email', () => {
    const { take, release } = create({ Names: { '@set': [{ first_name: 'José', last_name: 'SMITH' }] } });
    expect(take).toEqual([{ field: 'name', value: 'jose smith', path: '/Names/@set/0' }]);
    expect(release).toEqual([]);
  });

  it('claims the fullname of the primary Name', () => {
    const { take } = create({
      Names: {
        '@set': [
          { first_name: 'John', last_name: 'Smith' },
          { freeform_name: 'Johnny', primary: true },
        ],
      },
    });
    expect(take).toEqual([{ field: 'name', value: 'johnny', path: '/Names/@set/1' }]);
  });

  it('takes no name claim for a new person with an email', () => {
    const { take } = create(johnBody);
    expect(take.map(({ field }) => field)).toEqual(['email', 'email']);
  });

  it('takes a claim for an added email only', () => {
    const { take, release } = patch(storedJohn(), { Emails: { '@set': [{ email: 'New@Example.org' }] } });
    expect(take).toEqual([{ field: 'email', value: 'new@example.org', path: '/Emails/@set/0/email' }]);
    expect(release).toEqual([]);
  });

  it('swaps the claim of a changed address', () => {
    const { take, release } = patch(storedJohn(), {
      Emails: { '@set': [examples.Emails, { id: 4, email: 'john@home.example' }] },
    });
    expect(take).toEqual([{ field: 'email', value: 'john@home.example', path: '/Emails/@set/1/email' }]);
    expect(release).toEqual([{ field: 'email', value: 'john@work.example' }]);
  });

  it('releases the claim of a deleted email', () => {
    const { take, release } = patch(storedJohn(), { Emails: { '@set': [{ id: 4 }] } });
    expect(take).toEqual([]);
    expect(release).toEqual([{ field: 'email', value: 'john@work.example' }]);
  });

  it('releases the name claim when a person gains its first email', () => {
    const { take, release } = patch(storedEmailLess(), {
      Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] },
    });
    expect(take).toEqual([{ field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' }]);
    expect(release).toEqual([{ field: 'name', value: 'john smith' }]);
  });

  it('takes a name claim when a person loses its last email', () => {
    const { take, release } = patch(storedWithOneEmail(), { Emails: { '@set': [{ id: 3 }] } });
    expect(take).toEqual([expect.objectContaining({ field: 'name', value: 'john smith' })]);
    expect(release).toEqual([{ field: 'email', value: 'jsmith@no-reply.org' }]);
  });

  it('swaps the name claims when an email-less person is renamed', () => {
    const { take, release } = patch(storedEmailLess(), { Names: { '@set': [{ id: 2, first_name: 'Jon' }] } });
    expect(take).toEqual([{ field: 'name', value: 'jon smith', path: '/Names/@set/0' }]);
    expect(release).toEqual([{ field: 'name', value: 'john smith' }]);
  });

  it('swaps the name claims when an email-less person gets another primary Name', () => {
    const { take, release } = patch(storedEmailLess(), {
      Names: { '@set': [{ freeform_name: 'Johnny', primary: true }] },
    });
    expect(take).toEqual([{ field: 'name', value: 'johnny', path: '/Names/@set/0' }]);
    expect(release).toEqual([{ field: 'name', value: 'john smith' }]);
  });

  it('takes and releases nothing when a rename changes only case, accents and spacing', () => {
    const { take, release, changed } = patch(storedEmailLess(), {
      Names: { '@set': [{ id: 2, first_name: 'JÓHN', last_name: ' smith ' }] },
    });
    expect(changed).toEqual(['/Names']);
    expect(take).toEqual([]);
    expect(release).toEqual([]);
  });

  it('takes and releases nothing when a person with email is renamed', () => {
    const { take, release } = patch(storedJohn(), { Names: { '@set': [{ id: 2, first_name: 'Jon' }] } });
    expect(take).toEqual([]);
    expect(release).toEqual([]);
  });

  it('takes and releases nothing when emails move between items in one request', () => {
    const { take, release } = patch(storedJohn(), {
      Emails: {
        '@set': [
          { id: 3, email: 'john@work.example' },
          { id: 4, email: 'jsmith@no-reply.org' },
        ],
      },
    });
    expect(take).toEqual([]);
    expect(release).toEqual([]);
  });

  it('takes and releases nothing when an email changes only in case', () => {
    const { take, release, changed } = patch(storedJohn(), {
      Emails: { '@set': [{ id: 4, email: 'John@Work.example' }] },
    });
    expect(changed).toEqual(['/Emails']);
    expect(take).toEqual([]);
    expect(release).toEqual([]);
  });

  it('takes and releases nothing when an email is deleted and re-added in one request', () => {
    const { take, release } = patch(storedJohn(), {
      Emails: { '@set': [{ id: 4 }, { email: 'john@work.example' }] },
    });
    expect(take).toEqual([]);
    expect(release).toEqual([]);
  });
});

describe('applyPatch: changed parts and CoreMetaData', () => {
  it.each([
    ['an added Email', { Emails: { '@set': [{ email: 'new@example.org' }] } }, ['/Emails']],
    ['a changed Name', { Names: { '@set': [{ id: 2, middle_initial: 'Q.' }] } }, ['/Names']],
    ['a deleted PhoneNumber', { PhoneNumbers: { '@set': [{ id: 7 }] } }, ['/PhoneNumbers']],
    ['an added PersonRole', { PersonRoles: { '@set': [{ name: 'Treasurer' }] } }, ['/PersonRoles']],
    [
      'a changed PostalAddress',
      { PostalAddresses: { '@set': [{ id: 10, postal_code: '12345' }] } },
      ['/PostalAddresses'],
    ],
    [
      'a SocialAddresses field',
      { SocialAddresses: { youtube: 'https://www.youtube.com/@jsmith' } },
      ['/SocialAddresses'],
    ],
    ['the root local_reference_id', { local_reference_id: 'ref-2' }, ['/local_reference_id']],
    [
      'several parts',
      {
        local_reference_id: null,
        Emails: { '@set': [{ id: 4, local_reference_id: 'email-2' }] },
        Names: { '@set': [{ freeform_name: 'Johnny' }] },
      },
      ['/Emails', '/Names', '/local_reference_id'],
    ],
  ])('lists the top-level parts that changed: %s', (_, body, parts) => {
    expect([...patch(storedJohn(), body).changed].sort()).toEqual(parts);
  });

  it('changes nothing when the person is sent back as GET returns it', () => {
    const stored = storedJohn();
    const result = patch(stored, toPersonOut(stored, links));
    expect(result.changed).toEqual([]);
    expect(result.person).toEqual(stored);
    expect(result.take).toEqual([]);
    expect(result.release).toEqual([]);
    expect(result.issued).toEqual([]);
  });

  it('keeps version, modified_by and date_modified on a PATCH that changes nothing', () => {
    const stored = patch(storedJohn(), { local_reference_id: 'ref-2' }, 13).person;
    const { person, changed } = patch(
      stored,
      {
        local_reference_id: 'ref-2',
        Emails: { '@set': [{ id: 3, email: 'jsmith@no-reply.org', primary: true }] },
        SocialAddresses: { twitter: 'https://x.com/jsmith' },
      },
      PATCHER,
    );
    expect(changed).toEqual([]);
    expect(person.CoreMetaData).toEqual(stored.CoreMetaData);
    expect(person.CoreMetaData).toMatchObject({ version: 2, modified_by: 13 });
  });

  it('bumps the version by one and records who changed the person and when', () => {
    const stored = storedJohn();
    const { person } = patch(stored, { Emails: { '@set': [{ email: 'new@example.org' }] } }, PATCHER);
    expect(person.CoreMetaData).toEqual({
      date_created: CREATED_AT,
      date_modified: PATCHED_AT,
      created_by: CREATOR,
      modified_by: PATCHER,
      version: 2,
      created_audit_id: CHANGE_ID,
      modified_audit_id: CHANGE_ID,
    });
  });

  it('bumps the version once per stored change', () => {
    const once = patch(storedJohn(), { local_reference_id: 'ref-2' }).person;
    const twice = patch(once, { local_reference_id: 'ref-3' }).person;
    expect(twice.CoreMetaData.version).toBe(3);
  });
});

describe('countNewIds', () => {
  it.each([
    ['a create of one Name', true, { Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] } }, 2],
    ['a create of the full fixture', true, johnBody, 10],
    [
      'a create with sent ids and example objects',
      true,
      {
        Names: { '@set': [{ id: 9, first_name: 'John', last_name: 'Smith' }, examples.Names] },
        Emails: { '@set': [examples.Emails, { id: 8, email: 'a@example.org' }, { id: 7 }] },
      },
      3,
    ],
    ['an empty PATCH', false, {}, 0],
    [
      'a PATCH of root properties only',
      false,
      { local_reference_id: 'x', SocialAddresses: { twitter: null } },
      0,
    ],
    [
      'a PATCH mixing adds, changes, deletes and examples',
      false,
      {
        Emails: {
          '@set': [
            { email: 'new@example.org' },
            { id: 4, email: 'john@home.example' },
            { id: 3 },
            examples.Emails,
          ],
        },
        PhoneNumbers: { '@set': [{ id: null, phone_number: '+1 555 0103' }] },
        Names: { '@set': [{ id: 2, middle_initial: 'Q.' }] },
      },
      2,
    ],
  ])('counts the ids the patch hands out for %s', (_, creating, body, count) => {
    const parsed = (creating ? CreatePersonBody : PatchPersonBody).parse(body);
    const { issued } = creating ? create(body) : patch(storedJohn(), body);
    expect(countNewIds(parsed, creating)).toBe(count);
    expect(issued).toHaveLength(count);
  });
});
