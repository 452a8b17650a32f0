import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  fromPersonItem,
  personFromImage,
  personPut,
  toPersonItem,
} from '../../../../lib/db/person/person-items';
import { ValidationFailed } from '../../../../lib/domain/errors';
import { applyPatch } from '../../../../lib/domain/patch';
import type { Person } from '../../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody } from '../../../../lib/domain/schemas';
import { CHANGE_ID, johnSmithListing, patchContext } from '../../../support/fixtures';
import { johnSmithWith } from '../../../support/persons';

const TABLE = 'people-test';

/** Creates John Smith, person 100 (Name 101, Emails from 102), as requester 5. */
const created = (...emails: string[]) =>
  applyPatch(
    null,
    CreatePersonBody.parse(johnSmithWith(...emails)),
    patchContext({ requester: 5, now: '2026-01-02T03:04:05.000Z', firstId: 100 }),
  );

const patched = (stored: Person, body: unknown) =>
  applyPatch(
    stored,
    PatchPersonBody.parse(body),
    patchContext({ requester: 5, now: '2026-01-03T03:04:05.000Z', firstId: 200, changeId: CHANGE_ID + 1 }),
  );

describe('toPersonItem and fromPersonItem', () => {
  const person = patched(created('jsmith@no-reply.org').person, {
    local_reference_id: 'ref-1',
    PhoneNumbers: { '@set': [{ phone_number: '+1 555 0100', local_reference_id: 'phone-1' }] },
    SocialAddresses: { twitter: 'https://x.com/jsmith' },
  }).person;

  it('stores a Person under its key, marked as a Person, with its fullname and its place and forms in the byName index', () => {
    expect(toPersonItem(person)).toEqual({
      pk: 'PERSON#100',
      sk: 'PERSON',
      type: 'Person',
      ...person,
      ...johnSmithListing('jsmith@no-reply.org'),
    });
  });

  it('round-trips a Person', () => {
    expect(fromPersonItem(toPersonItem(person))).toEqual(person);
  });

  it('round-trips a Person through DynamoDB marshalling, nulls included', () => {
    const stored = unmarshall(marshall(toPersonItem(person)));
    expect(fromPersonItem(stored)).toEqual(person);
  });

  it('leaves no key attributes on the Person read back', () => {
    const read = fromPersonItem(toPersonItem(person));
    expect(read).not.toHaveProperty('pk');
    expect(read).not.toHaveProperty('sk');
    expect(read).not.toHaveProperty('type');
    expect(read).not.toHaveProperty('listSk');
    expect(read).not.toHaveProperty('search_rest');
  });

  it('reads the sets added since a person was written as empty', () => {
    const { PersonTeams: _teams, PersonGroups: _groups, ...older } = toPersonItem(person);

    const read = fromPersonItem(older);

    expect(read.PersonTeams).toEqual([]);
    expect(read.PersonGroups).toEqual([]);
  });

  it('reads a stream image of a Person item as the repository reads the item', () => {
    expect(personFromImage(marshall(toPersonItem(person), { removeUndefinedValues: true }))).toEqual(person);
  });

  it.each([
    ['another kind of item', marshall({ pk: 'EMAIL#a@b.c', sk: 'CLAIM', type: 'EmailClaim', personId: 100 })],
    ['a Person item without its id', marshall({ pk: 'PERSON#100', sk: 'PERSON', type: 'Person' })],
    ['no image', undefined],
  ])('refuses %s, so its stream record fails alone', (_, image) => {
    expect(() => personFromImage(image)).toThrow(/Not a Person item/);
  });

  it('computes the fullname of a person stored before fullname was, when it is written again', () => {
    const { fullname: _fullname, ...older } = toPersonItem(person);

    expect(toPersonItem(fromPersonItem(older)).fullname).toBe('John Smith');
  });
});

describe('the item size limit', () => {
  it('refuses with a validation error a Person whose item would exceed what DynamoDB stores', () => {
    const huge = created('jsmith@no-reply.org').person;
    huge.PostalAddresses = Array.from({ length: 2_000 }, (_, index) => ({
      id: 1_000 + index,
      address1: 'x'.repeat(200),
      address2: null,
      city: null,
      state_territory_province: null,
      postal_code: null,
      country: null,
      country_code: null,
      primary: false,
      local_reference_id: null,
    }));
    expect(() => personPut(TABLE, huge, null)).toThrow(ValidationFailed);
    expect(() => personPut(TABLE, created('jsmith@no-reply.org').person, null)).not.toThrow();
  });
});
