/** The GRC rules of API.md 11.1 and 11.4 in the pure patch: what GRC clients send, and what it means. */
import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../../lib/domain/errors';
import { applyPatch, referencedVocabulary } from '../../../lib/domain/patch';
import type { Person } from '../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody, type SetName } from '../../../lib/domain/schemas';
import {
  abbreviationClaim,
  applyEntryPatch,
  selectEntries,
  vocabularyBody,
} from '../../../lib/domain/vocabulary';
import { patchContext, sendSet } from '../../support/fixtures';

const NOW = '2026-11-21T15:04:05.123Z';

const context = (first: number) => patchContext({ requester: 7, now: NOW, firstId: first });
const create = (body: unknown) => applyPatch(null, CreatePersonBody.parse(body), context(1));
const patch = (stored: Person, body: unknown) =>
  applyPatch(stored, PatchPersonBody.parse(body), context(1000));

const john = (extra: Record<string, unknown> = {}) =>
  create({ Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] }, ...extra }).person;

const pathsOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    if (error instanceof ValidationFailed) return error.errors.map(({ path }) => path);
    throw error;
  }
  throw new Error('expected a ValidationFailed');
};

const schemaPaths = (body: unknown) => {
  const parsed = CreatePersonBody.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `/${issue.path.join('/')}`);
};

describe('primary as GRC sends it (API.md 11.1)', () => {
  it.each([
    [1, true],
    [0, false],
    [true, true],
    [false, false],
  ])('reads primary %s on an Email as %s', (sent, stored) => {
    const { person } = create({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
      Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org', primary: sent }] },
    });
    expect(person.Emails[1]?.primary).toBe(stored);
  });

  it('takes the documented Minimum Required Object with primary 1 on its Name and Email', () => {
    const { person } = create({
      '@context': 'https://grcschema.org',
      '@type': 'Person',
      Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', email: 'jsmith@no-reply.org', primary: 1 }] },
      Names: {
        '@type': 'Names',
        '@set': [{ '@type': 'Name', first_name: 'John', last_name: 'Smith', primary: 1 }],
      },
      id: null,
    });
    expect([person.Names[0]?.primary, person.Emails[0]?.primary]).toEqual([true, true]);
  });

  it.each([2, 3])('keeps the alias type %i on a Name, which is not the primary name', (alias) => {
    const { person } = create({
      Names: {
        '@set': [
          { freeform_name: 'jsmith-system', primary: alias },
          { first_name: 'John', last_name: 'Smith' },
        ],
      },
    });
    expect(person.Names.map((name) => name.primary)).toEqual([alias, true]);
    expect(person.fullname).toBe('John Smith');
  });

  it('refuses a person whose every Name is an alias', () => {
    expect(pathsOf(() => create({ Names: { '@set': [{ freeform_name: 'sys', primary: 2 }] } }))).toEqual([
      '/Names',
    ]);
  });

  it('keeps an alias when another Name becomes primary, and promotes a non-alias when the primary goes', () => {
    const stored = create({
      Names: {
        '@set': [
          { freeform_name: 'old-system-name', primary: 3 },
          { first_name: 'John', last_name: 'Smith', primary: 1 },
          { first_name: 'Johnny', last_name: 'Smith' },
        ],
      },
    }).person;
    const [alias, primary] = stored.Names;
    const { person } = patch(stored, { Names: { '@set': [{ id: primary?.id }] } });
    expect(person.Names.map((name) => [name.id, name.primary])).toEqual([
      [alias?.id, 3],
      [stored.Names[2]?.id, true],
    ]);
  });

  it.each([
    [
      '4 on a Name',
      { Names: { '@set': [{ first_name: 'A', last_name: 'B', primary: 4 }] } },
      '/Names/@set/0/primary',
    ],
    [
      '2 on an Email',
      { Names: { '@set': [{ freeform_name: 'A' }] }, Emails: { '@set': [{ email: 'a@b.org', primary: 2 }] } },
      '/Emails/@set/0/primary',
    ],
    [
      '"1" as a string',
      { Names: { '@set': [{ first_name: 'A', last_name: 'B', primary: '1' }] } },
      '/Names/@set/0/primary',
    ],
  ])('refuses primary %s', (_, body, path) => {
    expect(schemaPaths(body)).toContain(path);
  });
});

describe('GRC keys a client sends back (API.md 11.1)', () => {
  it('accepts organization_fk on Emails, PhoneNumbers and PostalAddresses and stores none of it', () => {
    const { person } = create({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
      Emails: { '@set': [{ email: 'a@example.org', organization_fk: 12 }] },
      PhoneNumbers: { '@set': [{ phone_number: '1', organization_fk: null }] },
      PostalAddresses: { '@set': [{ city: 'Phoenix', organization_fk: 3 }] },
    });
    expect(JSON.stringify(person)).not.toContain('organization_fk');
  });

  it('treats an element of nothing but null and organization_fk as an example object', () => {
    const stored = john();
    const { changed } = patch(stored, {
      Emails: { '@set': [{ id: null, email: null, organization_fk: 5 }] },
    });
    expect(changed).toEqual([]);
  });

  it("accepts GRC's CoreMetaData keys with date-only dates and placeholders, and ignores them", () => {
    const stored = john();
    const body = {
      CoreMetaData: {
        '@type': 'CoreMetaData',
        date_created: '2021-02-02',
        date_modified: 'Date',
        created_audit_id: 74,
        modified_audit_id: null,
        live_status: null,
        checksum: 0,
        validated: 0,
        deprecated_notes: null,
        superceded_by: null,
      },
    };
    expect(patch(stored, body)).toMatchObject({ person: stored, changed: [] });
  });

  it('still refuses a key no one defines, with its path', () => {
    expect(
      schemaPaths({
        Names: { '@set': [{ freeform_name: 'A' }] },
        PersonMemberships: { PersonTeams: { '@set': [{ name: 'x', colour: 'red' }] } },
      }),
    ).toEqual(['/PersonMemberships/PersonTeams/@set/0']);
  });
});

describe('PersonMemberships: sub-objects under 5.3 (API.md 11.1)', () => {
  const sets: [SetName, string][] = [
    ['PersonOrganizations', 'organization_fk'],
    ['PersonGroups', 'group_fk'],
    ['PersonInitiatives', 'initiative'],
    ['PersonTeams', 'team_fk'],
  ];

  it.each(sets)('adds, changes (fk kept) and deletes a %s item, echoing a tombstone', (set, key) => {
    const added = patch(john(), sendSet(set, [{ name: 'Audit', [key]: 9, local_reference_id: 'm1' }]));
    const [item] = added.person[set];
    expect(item).toEqual({ id: 1000, name: 'Audit', [key]: 9, local_reference_id: 'm1' });
    expect(added.changed).toEqual([`/PersonMemberships/${set}`]);

    const changed = patch(added.person, sendSet(set, [{ id: 1000, name: 'Risk', [key]: 10 }])).person;
    expect(changed[set]).toEqual([{ id: 1000, name: 'Risk', [key]: 9, local_reference_id: 'm1' }]);

    const deleted = patch(changed, sendSet(set, [{ id: 1000, local_reference_id: 'm1' }]));
    expect(deleted.person[set]).toEqual([]);
    expect(deleted.tombstones).toEqual({ [set]: [{ id: 1000, local_reference_id: 'm1' }] });
  });

  it.each(sets)('refuses a %s item with neither a name nor its key, at its JSON Pointer', (set) => {
    expect(pathsOf(() => patch(john(), sendSet(set, [{ local_reference_id: 'x', name: ' ' }])))).toEqual([
      `/PersonMemberships/${set}/@set/0`,
    ]);
  });

  it('refuses a change of an id the person does not hold', () => {
    expect(pathsOf(() => patch(john(), sendSet('PersonGroups', [{ id: 4242, name: 'x' }])))).toEqual([
      '/PersonMemberships/PersonGroups/@set/0/id',
    ]);
  });

  it('holds at most 50 items per set', () => {
    const fifty = Array.from({ length: 50 }, (_, n) => ({ name: `Team ${n}` }));
    const full = patch(john(), sendSet('PersonTeams', fifty)).person;
    expect(full.PersonTeams).toHaveLength(50);
    expect(pathsOf(() => patch(full, sendSet('PersonTeams', [{ name: 'one more' }])))).toEqual([
      '/PersonMemberships/PersonTeams/@set',
    ]);
  });
});

describe("fullname by GRC's formula (API.md 3)", () => {
  it('joins the prefix abbreviation, first, middle initial, last and the suffix abbreviation', () => {
    const { person } = create({
      Names: {
        '@set': [
          {
            first_name: 'James',
            middle_initial: 'T',
            last_name: 'Doolitle',
            name_prefix_fk: 21,
            name_suffix_fk: 19,
          },
        ],
      },
    });
    expect(person.fullname).toBe('Dr. James T Doolitle Esquire');
  });

  it('uses the freeform name, without prefix or suffix, for a Name with no structured parts', () => {
    const { person } = create({ Names: { '@set': [{ freeform_name: 'Cher', name_prefix_fk: 21 }] } });
    expect(person.fullname).toBe('Cher');
  });

  it('keeps the stored fullname when a PATCH does not touch Names', () => {
    const stored = { ...john(), fullname: 'As Stored' };
    expect(patch(stored, { local_reference_id: 'r' }).person.fullname).toBe('As Stored');
  });

  it('refuses a foreign key that names no vocabulary entry, at its path', () => {
    expect(
      pathsOf(() =>
        create({ Names: { '@set': [{ first_name: 'A', last_name: 'B', name_suffix_fk: 999_999 }] } }),
      ),
    ).toEqual(['/Names/@set/0/name_suffix_fk']);
  });

  it('checks each entry a new Name points at once, and none a change only mentions', () => {
    const { references, person } = create({
      Names: {
        '@set': [
          { first_name: 'A', last_name: 'B', name_prefix_fk: 21 },
          { first_name: 'C', last_name: 'D', name_prefix_fk: 21, name_suffix_fk: 1 },
        ],
      },
    });
    expect(references.map(({ kind, id }) => [kind, id])).toEqual([
      ['NamePrefix', 21],
      ['NameSuffix', 1],
    ]);
    const [first] = person.Names;
    expect(
      patch(person, { Names: { '@set': [{ id: first?.id, name_prefix_fk: 2, first_name: 'E' }] } })
        .references,
    ).toEqual([]);
  });

  it('names the entries a write must read: the body’s, and the stored Names’ only when Names are sent', () => {
    const stored = create({
      Names: { '@set': [{ first_name: 'A', last_name: 'B', name_prefix_fk: 21 }] },
    }).person;
    expect(referencedVocabulary(stored, PatchPersonBody.parse({ local_reference_id: 'x' }))).toEqual({
      NamePrefix: [],
      NameSuffix: [],
    });
    expect(
      referencedVocabulary(
        stored,
        PatchPersonBody.parse({ Names: { '@set': [{ freeform_name: 'F', name_suffix_fk: 2 }] } }),
      ),
    ).toEqual({ NamePrefix: [21], NameSuffix: [2] });
  });
});

describe('NamePrefix and NameSuffix entries (API.md 11.4)', () => {
  const write = { requester: 7, now: NOW, changeId: 50 };

  it('creates an entry at version 1 with its texts trimmed and its abbreviation claimed folded', () => {
    const result = applyEntryPatch(
      'NamePrefix',
      null,
      600,
      { prefix: ' Admiral ', abbreviation: ' Ádm. ' },
      write,
    );
    expect(result.entry).toEqual({
      id: 600,
      term: 'Admiral',
      abbreviation: 'Ádm.',
      local_reference_id: null,
      CoreMetaData: {
        date_created: NOW,
        date_modified: NOW,
        created_by: 7,
        modified_by: null,
        version: 1,
        created_audit_id: 50,
        modified_audit_id: null,
      },
    });
    expect(result.take).toEqual([{ field: 'NamePrefix', value: 'adm.', path: '/abbreviation' }]);
  });

  it('moves the claim when a PATCH changes the abbreviation, and only then', () => {
    const { entry } = applyEntryPatch(
      'NameSuffix',
      null,
      601,
      { suffix: 'Junior', abbreviation: 'Jr.' },
      write,
    );
    const renamed = applyEntryPatch(
      'NameSuffix',
      entry,
      601,
      { suffix: 'Junior the Second' },
      { ...write, changeId: 51 },
    );
    expect(renamed).toMatchObject({ changed: ['/suffix'], take: [], release: [] });
    expect(renamed.entry.CoreMetaData).toMatchObject({ version: 2, modified_by: 7, modified_audit_id: 51 });
    const moved = applyEntryPatch('NameSuffix', entry, 601, { abbreviation: 'JR' }, write);
    expect(moved.take).toEqual([{ ...abbreviationClaim('NameSuffix', 'JR'), path: '/abbreviation' }]);
    expect(moved.release).toEqual([abbreviationClaim('NameSuffix', 'Jr.')]);
  });

  it('changes nothing for a PATCH that sends the entry back as it is', () => {
    const { entry } = applyEntryPatch(
      'NamePrefix',
      null,
      602,
      { prefix: 'Doctor', abbreviation: 'Dr.' },
      write,
    );
    expect(
      applyEntryPatch('NamePrefix', entry, 602, { prefix: 'Doctor', abbreviation: 'Dr.' }, write),
    ).toMatchObject({
      entry,
      changed: [],
    });
  });

  it.each([
    ['a blank abbreviation', { prefix: 'Admiral', abbreviation: '  ' }],
    ['no prefix', { abbreviation: 'Adm.' }],
    ['a suffix key on a NamePrefix', { prefix: 'Admiral', abbreviation: 'Adm.', suffix: 'x' }],
  ])('refuses a POST with %s', (_, body) => {
    expect(vocabularyBody('NamePrefix', true).safeParse(body).success).toBe(false);
  });

  it("accepts GRC's PATCH with placeholder CoreMetaData and ignores it", () => {
    const parsed = vocabularyBody('NamePrefix', false).parse({
      '@context': 'http://grcschema.org/',
      '@type': 'NamePrefix',
      CoreMetaData: {
        '@type': 'CoreMetaData',
        date_created: 'Date',
        created_by: 'Integer',
        live_status: 'Boolean',
      },
      abbreviation: 'Adm.',
      id: 2,
      prefix: 'Admiral',
      local_reference_id: 'ref',
    });
    expect(applyEntryPatch('NamePrefix', null, 2, parsed, write).entry).toMatchObject({
      term: 'Admiral',
      local_reference_id: 'ref',
    });
  });

  it('lists by id, filtered by substrings case- and accent-insensitively, combined with AND', () => {
    const entries = [
      applyEntryPatch('NamePrefix', null, 5, { prefix: 'Professor', abbreviation: 'Prof.' }, write).entry,
      applyEntryPatch('NamePrefix', null, 2, { prefix: 'Admiral', abbreviation: 'Adm.' }, write).entry,
      applyEntryPatch(
        'NamePrefix',
        null,
        9,
        { prefix: 'Prófessor Emeritus', abbreviation: 'Prof. Em.' },
        write,
      ).entry,
    ];
    expect(selectEntries(entries, {}, false).map(({ id }) => id)).toEqual([2, 5, 9]);
    expect(selectEntries(entries, {}, true).map(({ id }) => id)).toEqual([9, 5, 2]);
    expect(selectEntries(entries, { term: 'profes' }, false).map(({ id }) => id)).toEqual([5, 9]);
    expect(
      selectEntries(entries, { term: 'profes', abbreviation: 'em.' }, false).map(({ id }) => id),
    ).toEqual([9]);
    expect(selectEntries(entries, { search: 'adm' }, false).map(({ id }) => id)).toEqual([2]);
  });
});
