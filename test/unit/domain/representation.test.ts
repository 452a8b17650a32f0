import { describe, expect, it } from 'vitest';
import { recordChecksum } from '../../../lib/domain/checksum';
import { applyPatch } from '../../../lib/domain/patch';
import type { Person } from '../../../lib/domain/person';
import { etagOf, toPersonOut } from '../../../lib/domain/representation';
import { CreatePersonBody, PatchPersonBody, PersonOut, type SetName } from '../../../lib/domain/schemas';
import { CHANGE_ID, EXAMPLE_OBJECTS, patchContext, setIn } from '../../support/fixtures';
import {
  answeredEmail,
  answeredName,
  JOHN_SMITH,
  JOHN_SMITH_NAME,
  johnSmithBody,
  NO_SOCIAL_ADDRESSES,
} from '../../support/persons';

const CREATED_AT = '2026-11-21T15:04:05.123Z';
const PATCHED_AT = '2026-11-22T09:30:00.000Z';
const links = { baseUrl: 'http://127.0.0.1:3000', contextUrl: 'http://127.0.0.1:3000/context.jsonld' };

const create = (body: unknown, { requester = 7, firstId = 1 } = {}): Person =>
  applyPatch(null, CreatePersonBody.parse(body), patchContext({ requester, now: CREATED_AT, firstId }))
    .person;

const patch = (stored: Person, body: unknown) =>
  applyPatch(
    stored,
    PatchPersonBody.parse(body),
    patchContext({ requester: 7, now: PATCHED_AT, firstId: 1000 }),
  );

/** Ids: person 1, Names 2 and 3, Emails 4 and 5, PhoneNumber 6. */
const richPerson = () =>
  create({
    local_reference_id: 'person-ref',
    Names: {
      '@set': [
        { first_name: 'John', last_name: 'Smith' },
        {
          first_name: 'Jonathan',
          middle_initial: 'Q.',
          last_name: 'Smith',
          primary: true,
          name_prefix_fk: 21,
        },
      ],
    },
    Emails: { '@set': [{ email: 'john@work.example' }, { email: 'jsmith@no-reply.org', primary: true }] },
    PhoneNumbers: { '@set': [{ phone_number: '+1 555 0100', local_reference_id: 'phone-1' }] },
    SocialAddresses: { twitter: 'https://x.com/jsmith' },
  });

const examples = EXAMPLE_OBJECTS;

describe('toPersonOut', () => {
  it('gives the full Person of API.md 3 for the person it shows', () => {
    const person = create(johnSmithBody(), { requester: 0, firstId: 30863 });
    expect(toPersonOut(person, links)).toEqual({
      '@context': 'http://127.0.0.1:3000/context.jsonld',
      '@type': 'Person',
      '@id': 'http://127.0.0.1:3000/Person/30863',
      id: 30863,
      fullname: JOHN_SMITH.fullname,
      email: JOHN_SMITH.email,
      local_reference_id: JOHN_SMITH.local_reference_id,
      Names: {
        '@type': 'Names',
        '@set': [answeredName(30863, { ...JOHN_SMITH_NAME, id: 30864, local_reference_id: 'name-1' })],
      },
      Emails: {
        '@type': 'Emails',
        '@set': [answeredEmail(30863, { id: 30865, email: JOHN_SMITH.email })],
      },
      PhoneNumbers: { '@type': 'PhoneNumbers', '@set': [examples.PhoneNumbers] },
      PersonRoles: { '@type': 'PersonRoles', '@set': [examples.PersonRoles] },
      PostalAddresses: { '@type': 'PostalAddresses', '@set': [examples.PostalAddresses] },
      PersonMemberships: {
        '@type': 'PersonMemberships',
        PersonOrganizations: { '@type': 'PersonOrganizations', '@set': [examples.PersonOrganizations] },
        PersonGroups: { '@type': 'PersonGroups', '@set': [examples.PersonGroups] },
        PersonInitiatives: { '@type': 'PersonInitiatives', '@set': [examples.PersonInitiatives] },
        PersonTeams: { '@type': 'PersonTeams', '@set': [examples.PersonTeams] },
      },
      SocialAddresses: NO_SOCIAL_ADDRESSES,
      CoreMetaData: {
        '@type': 'CoreMetaData',
        date_created: CREATED_AT,
        date_modified: CREATED_AT,
        created_by: 30863,
        modified_by: null,
        version: 1,
        created_audit_id: CHANGE_ID,
        modified_audit_id: null,
        live_status: 1,
        validated: 0,
        checksum: recordChecksum(CREATED_AT, 30863, 1),
      },
    });
  });

  it.each(Object.entries(examples).filter(([set]) => set !== 'Names'))(
    'shows an empty %s as exactly one example object',
    (set, example) => {
      const out = toPersonOut(create({ Names: { '@set': [{ freeform_name: 'Cher' }] } }), links);
      expect(setIn(out, set as SetName)).toStrictEqual({ '@type': set, '@set': [example] });
    },
  );

  it('shows a set emptied by a PATCH as exactly one example object', () => {
    const { person } = patch(richPerson(), { PhoneNumbers: { '@set': [{ id: 6 }] } });
    expect(toPersonOut(person, links).PhoneNumbers['@set']).toStrictEqual([examples.PhoneNumbers]);
  });

  it('shows no example object in a set that holds items', () => {
    const out = toPersonOut(richPerson(), links);
    expect(out.Emails['@set'].map((item) => ('id' in item ? item.id : undefined))).toEqual([4, 5]);
  });

  it('gives every live item the person id as person_fk', () => {
    const out = toPersonOut(richPerson(), links);
    const items = [...out.Names['@set'], ...out.Emails['@set'], ...out.PhoneNumbers['@set']];
    expect(items).toHaveLength(5);
    for (const item of items) expect(item).toMatchObject({ person_fk: 1 });
  });

  it('shows each live item with its @type, every property and its local_reference_id', () => {
    const out = toPersonOut(richPerson(), links);
    expect(out.PhoneNumbers['@set']).toStrictEqual([
      {
        '@type': 'PhoneNumber',
        id: 6,
        phone_number: '+1 555 0100',
        primary: null,
        person_fk: 1,
        organization_fk: null,
        local_reference_id: 'phone-1',
      },
    ]);
    expect(out.Names['@set'][1]).toStrictEqual({
      '@type': 'Name',
      id: 3,
      first_name: 'Jonathan',
      last_name: 'Smith',
      middle_initial: 'Q.',
      freeform_name: null,
      name_prefix_fk: 21,
      name_suffix_fk: null,
      primary: true,
      person_fk: 1,
      local_reference_id: null,
    });
  });

  it('echoes tombstones after the live items as @type, the deleted id and local_reference_id', () => {
    const { person, tombstones } = patch(richPerson(), {
      Emails: {
        '@set': [
          { '@type': 'Email', id: 4, local_reference_id: 'gone-1' },
          { email: 'new@example.org' },
          { id: 999, local_reference_id: 'gone-2' },
        ],
      },
    });
    const set = toPersonOut(person, links, tombstones).Emails['@set'];
    expect(set).toHaveLength(4);
    expect(set.slice(0, 2).map((item) => ('id' in item ? item.id : null))).toEqual([5, 1000]);
    expect(set.slice(2)).toStrictEqual([
      { '@type': 'Email', id: 4, local_reference_id: 'gone-1' },
      { '@type': 'Email', id: 999, local_reference_id: 'gone-2' },
    ]);
  });

  it('echoes each tombstone in the set it was deleted from', () => {
    const { person, tombstones } = patch(richPerson(), {
      Names: { '@set': [{ id: 2, local_reference_id: 'name-gone' }] },
    });
    const out = toPersonOut(person, links, tombstones);
    expect(out.Names['@set'].at(-1)).toStrictEqual({
      '@type': 'Name',
      id: 2,
      local_reference_id: 'name-gone',
    });
    expect(JSON.stringify(out.Emails)).not.toContain('name-gone');
  });

  it('shows no tombstones when it is given none, as a later GET', () => {
    const { person } = patch(richPerson(), { Emails: { '@set': [{ id: 4, local_reference_id: 'gone-1' }] } });
    expect(JSON.stringify(toPersonOut(person, links))).not.toContain('gone-1');
  });

  it('derives fullname (with the prefix abbreviation) and email from the primary Name and Email', () => {
    const out = toPersonOut(richPerson(), links);
    expect(out.fullname).toBe('Dr. Jonathan Q. Smith');
    expect(out.email).toBe('jsmith@no-reply.org');
  });

  it('derives fullname from freeform_name when the primary Name has no structured parts', () => {
    const out = toPersonOut(create({ Names: { '@set': [{ freeform_name: 'Cher' }] } }), links);
    expect(out.fullname).toBe('Cher');
  });

  it('follows the primary when it moves to another item', () => {
    const { person } = patch(richPerson(), {
      Names: { '@set': [{ id: 2, primary: true }] },
      Emails: { '@set': [{ id: 4, primary: true }] },
    });
    const out = toPersonOut(person, links);
    expect(out.fullname).toBe('John Smith');
    expect(out.email).toBe('john@work.example');
  });

  it('gives a null email to a person without Emails', () => {
    expect(toPersonOut(create({ Names: { '@set': [{ freeform_name: 'Cher' }] } }), links).email).toBeNull();
  });

  it('shows a local_reference_id never set as null', () => {
    const out = toPersonOut(create({ Names: { '@set': [{ freeform_name: 'Cher' }] } }), links);
    expect(out).toHaveProperty('local_reference_id', null);
  });

  it('builds @id from the base URL and @context from the context URL', () => {
    const out = toPersonOut(richPerson(), {
      baseUrl: 'https://api.example.org/prod',
      contextUrl: 'https://schema.example.org/person.jsonld',
    });
    expect(out['@id']).toBe('https://api.example.org/prod/Person/1');
    expect(out['@context']).toBe('https://schema.example.org/person.jsonld');
  });

  it('wraps SocialAddresses and CoreMetaData with their @type', () => {
    const { person } = patch(richPerson(), {
      SocialAddresses: { linkedin: 'https://www.linkedin.com/in/jsmith' },
    });
    const out = toPersonOut(person, links);
    expect(out.SocialAddresses).toStrictEqual({
      '@type': 'SocialAddresses',
      twitter: 'https://x.com/jsmith',
      facebook: null,
      linkedin: 'https://www.linkedin.com/in/jsmith',
      youtube: null,
    });
    expect(out.CoreMetaData).toStrictEqual({
      '@type': 'CoreMetaData',
      date_created: CREATED_AT,
      date_modified: PATCHED_AT,
      created_by: 7,
      modified_by: 7,
      version: 2,
      created_audit_id: CHANGE_ID,
      modified_audit_id: CHANGE_ID,
      live_status: 1,
      validated: 0,
      checksum: recordChecksum(PATCHED_AT, 1, 1),
    });
  });

  it.each([
    ['a new person', () => toPersonOut(richPerson(), links)],
    [
      'a self-registered person',
      () => toPersonOut(create({ Names: { '@set': [{ freeform_name: 'Cher' }] } }, { requester: 0 }), links),
    ],
    [
      'a patched person with tombstones',
      () => {
        const { person, tombstones } = patch(richPerson(), {
          Emails: { '@set': [{ id: 4, local_reference_id: 'gone' }] },
          PhoneNumbers: { '@set': [{ id: 6, local_reference_id: 'phone-gone' }] },
        });
        return toPersonOut(person, links, tombstones);
      },
    ],
    [
      'a person whose only PhoneNumber was deleted with a tombstone',
      () => {
        const { person, tombstones } = patch(richPerson(), {
          PhoneNumbers: { '@set': [{ id: 6, local_reference_id: 'phone-gone' }] },
        });
        return toPersonOut(person, links, tombstones);
      },
    ],
  ])('gives output that the PersonOut schema accepts: %s', (_, render) => {
    const result = PersonOut.safeParse(render());
    expect(result.error?.issues ?? []).toEqual([]);
  });
});

describe('etagOf', () => {
  it('is the version as a strong ETag', () => {
    const created = create({ Names: { '@set': [{ freeform_name: 'Cher' }] } });
    expect(etagOf(created)).toBe('"1"');
    expect(etagOf(patch(created, { local_reference_id: 'ref' }).person)).toBe('"2"');
  });

  it('stays the same after a PATCH that changes nothing', () => {
    const created = create({ Names: { '@set': [{ freeform_name: 'Cher' }] } });
    expect(etagOf(patch(created, { Names: { '@set': [{ id: 2, freeform_name: 'Cher' }] } }).person)).toBe(
      '"1"',
    );
  });
});
