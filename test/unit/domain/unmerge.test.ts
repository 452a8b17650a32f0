/**
 * Undoing a merge, pure (API.md 13.1): the two persons as they would be had the merge never happened,
 * apart from the changes made in between, with the claims that follow them.
 */
import { describe, expect, it } from 'vitest';
import { UniquenessConflict, ValidationFailed } from '../../../lib/domain/errors';
import { mergePersons } from '../../../lib/domain/merge';
import { applyPatch } from '../../../lib/domain/patch';
import type { Person } from '../../../lib/domain/person';
import { PatchPersonBody } from '../../../lib/domain/schemas';
import { unmergePersons } from '../../../lib/domain/unmerge';
import { createdPerson, patchContext, SEEDED_ABBREVIATIONS } from '../../support/fixtures';

const MERGE = { requester: 7, now: '2026-11-26T12:00:00.000Z', changeId: 555, sourceChangeId: 556 };
const UNMERGE = {
  requester: 8,
  now: '2026-11-28T12:00:00.000Z',
  changeId: 777,
  sourceChangeId: 778,
  abbreviations: SEEDED_ABBREVIATIONS,
};

const survivor = () =>
  createdPerson(
    {
      local_reference_id: 'crm-1',
      Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] },
      Emails: { '@set': [{ email: 'ada@example.org' }] },
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958', primary: true }] },
      SocialAddresses: { twitter: '@ada' },
    },
    { firstId: 1000, requester: 1 },
  );

const source = () =>
  createdPerson(
    {
      local_reference_id: 'erp-9',
      Names: {
        '@set': [
          { first_name: 'ADA', last_name: 'Lovelace', name_prefix_fk: null, local_reference_id: 'n-same' },
          { first_name: 'Augusta Ada', last_name: 'King', local_reference_id: 'n-other' },
        ],
      },
      Emails: {
        '@set': [{ email: 'countess@example.org' }, { email: 'ada.king@example.org', primary: true }],
      },
      PhoneNumbers: {
        '@set': [
          { phone_number: '+44 (20) 7946-0958', primary: true },
          { phone_number: '+44 20 7946 0000', primary: false },
        ],
      },
      SocialAddresses: { twitter: '@countess', linkedin: 'ada-king' },
    },
    { firstId: 2000, requester: 2 },
  );

const merged = (into: Person, from: Person) => {
  const result = mergePersons(into, from, MERGE);
  return { after: result.person, merged: result.source, record: result.record };
};

const patch = (person: Person, body: unknown, firstId = 5000) =>
  applyPatch(person, PatchPersonBody.parse(body), patchContext({ requester: 9, now: MERGE.now, firstId }))
    .person;

/** A person without what any write changes of it: its metadata. */
const content = ({ CoreMetaData: _, ...rest }: Person) => rest;

describe('undoing a merge (API.md 13.1)', () => {
  it('gives both persons back as they were, apart from their metadata', () => {
    const [into, from] = [survivor(), source()];
    const { after, merged: stored, record } = merged(into, from);
    const result = unmergePersons(after, stored, record, UNMERGE);

    expect(content(result.survivor)).toEqual(content(into));
    expect(content(result.source)).toEqual(content(from));
    expect(result.source.CoreMetaData).toEqual({
      ...from.CoreMetaData,
      version: from.CoreMetaData.version + 2,
      date_modified: UNMERGE.now,
      modified_by: UNMERGE.requester,
      modified_audit_id: UNMERGE.sourceChangeId,
    });
    expect(result.survivor.CoreMetaData).toEqual({
      ...into.CoreMetaData,
      version: into.CoreMetaData.version + 2,
      date_modified: UNMERGE.now,
      modified_by: UNMERGE.requester,
      modified_audit_id: UNMERGE.changeId,
    });
    expect(result.changed).toEqual({
      survivor: ['/Names', '/Emails', '/PhoneNumbers', '/SocialAddresses'],
      source: [
        '/local_reference_id',
        '/Names',
        '/Emails',
        '/PhoneNumbers',
        '/SocialAddresses',
        '/superceded_by',
      ],
    });
    // The inputs are left as they were.
    expect(after).toEqual(merged(survivor(), source()).after);
  });

  it('sends back moved items as the survivor holds them now; one deleted since stays deleted, one added stays', () => {
    const { after, merged: stored, record } = merged(survivor(), source());
    const [countess, king] = after.Emails.slice(1);
    const other = after.Names.find((name) => name.last_name === 'King');
    const edited = patch(after, {
      Names: { '@set': [{ id: other?.id, first_name: 'Augusta Ada (Countess)' }] },
      Emails: { '@set': [{ id: countess?.id }, { email: 'added@example.org' }] },
    });
    const result = unmergePersons(edited, stored, record, UNMERGE);

    expect(result.source.Names.find((name) => name.id === other?.id)?.first_name).toBe(
      'Augusta Ada (Countess)',
    );
    expect(result.source.Emails.map(({ id, email, primary }) => [id, email, primary])).toEqual([
      [king?.id, 'ada.king@example.org', true],
    ]);
    expect(result.survivor.Emails.map(({ email }) => email)).toEqual([
      'ada@example.org',
      'added@example.org',
    ]);
    // The deleted email's claim was released with its delete; the returning one passes back.
    expect(result.repoint).toEqual([{ field: 'email', value: 'ada.king@example.org' }]);
    expect(result.takeSource).toEqual([]);
    expect(result.releaseSurvivor).toEqual([]);
  });

  it('gives each item back the primary it had in the source, and a set that lost its primary takes its lowest id', () => {
    const { after, merged: stored, record } = merged(survivor(), source());
    const king = after.Emails.find((email) => email.email === 'ada.king@example.org');
    // The survivor made a moved email its primary, which demoted its own.
    const edited = patch(after, { Emails: { '@set': [{ id: king?.id, primary: true }] } });
    expect(edited.Emails.find((email) => email.email === 'ada@example.org')?.primary).toBe(false);

    const result = unmergePersons(edited, stored, record, UNMERGE);
    expect(result.source.Emails.map(({ email, primary }) => [email, primary])).toEqual([
      ['countess@example.org', false],
      ['ada.king@example.org', true],
    ]);
    expect(result.survivor.Emails.map(({ email, primary }) => [email, primary])).toEqual([
      ['ada@example.org', true],
    ]);
  });

  it('gives the source its Names of the merge back when the survivor deleted every one that moved (a person needs a Name)', () => {
    const into = survivor();
    const from = createdPerson(
      {
        Names: {
          '@set': [
            { first_name: 'Augusta', last_name: 'King' },
            { first_name: 'Ada', last_name: 'King' },
          ],
        },
        Emails: { '@set': [{ email: 'augusta@example.org' }] },
      },
      { firstId: 3000 },
    );
    const { after, merged: stored, record } = merged(into, from);
    const moved = after.Names.filter((name) => name.id >= 3000).map((name) => ({ id: name.id }));
    const edited = patch(after, { Names: { '@set': moved } });
    expect(edited.Names).toEqual(into.Names);

    const result = unmergePersons(edited, stored, record, UNMERGE);
    expect(result.source.Names).toEqual(from.Names);
    expect(result.source.fullname).toBe(from.fullname);
    // One left: the deleted one stays deleted.
    const kept = unmergePersons(patch(after, { Names: { '@set': [moved[1]] } }), stored, record, UNMERGE);
    expect(kept.source.Names.map(({ first_name }) => first_name)).toEqual(['Augusta']);
  });

  it('sets back to null the social values the survivor took, unless changed since, and the source has its own', () => {
    const { after, merged: stored, record } = merged(survivor(), source());
    expect(after.SocialAddresses.linkedin).toBe('ada-king');
    const kept = unmergePersons(after, stored, record, UNMERGE);
    expect(kept.survivor.SocialAddresses.linkedin).toBeNull();
    expect(kept.source.SocialAddresses).toEqual(source().SocialAddresses);

    const changed = unmergePersons(
      patch(after, { SocialAddresses: { linkedin: 'lovelace' } }),
      stored,
      record,
      UNMERGE,
    );
    expect(changed.survivor.SocialAddresses.linkedin).toBe('lovelace');
  });

  it('gives the source its name claim back, and a survivor left without email takes one', () => {
    const byName = createdPerson(
      { Names: { '@set': [{ first_name: 'George', last_name: 'Byron' }] } },
      { firstId: 3000 },
    );
    const emailed = createdPerson(
      {
        Names: { '@set': [{ first_name: 'Lord', last_name: 'Byron' }] },
        Emails: { '@set': [{ email: 'byron@example.org' }] },
      },
      { firstId: 4000 },
    );
    const { after, merged: stored, record } = merged(byName, emailed);
    const result = unmergePersons(after, stored, record, UNMERGE);
    expect(result.repoint).toEqual([{ field: 'email', value: 'byron@example.org' }]);
    expect(result.takeSurvivor).toEqual([{ field: 'name', value: 'george byron' }]);
    expect(result.releaseSurvivor).toEqual([]);

    // The email deleted since: the source comes back known by name alone, and takes its name claim.
    const deleted = patch(after, { Emails: { '@set': [{ id: after.Emails[0]?.id }] } });
    const byNameAlone = unmergePersons(deleted, stored, record, UNMERGE);
    expect(byNameAlone.source.Emails).toEqual([]);
    expect(byNameAlone.takeSource).toEqual([{ field: 'name', value: 'lord byron' }]);
    expect(byNameAlone.repoint).toEqual([]);
  });

  it("refuses a source that would come back to the email-less survivor's own name", () => {
    const survivorByName = createdPerson(
      { Names: { '@set': [{ first_name: 'Mary', last_name: 'Shelley' }] } },
      { firstId: 3000 },
    );
    const sourceEmailed = createdPerson(
      {
        Names: { '@set': [{ first_name: 'Mary', last_name: 'Shelley' }] },
        Emails: { '@set': [{ email: 'mary@example.org' }] },
      },
      { firstId: 4000 },
    );
    const { after, merged: stored, record } = merged(survivorByName, sourceEmailed);
    const emailless = patch(after, { Emails: { '@set': [{ id: after.Emails[0]?.id }] } });
    const refusal = (() => {
      try {
        unmergePersons(emailless, stored, record, UNMERGE);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(UniquenessConflict);
    expect(refusal).toMatchObject({
      field: 'name',
      errors: [{ path: '/source', existing: { type: 'Person', id: survivorByName.id } }],
    });
  });

  it('computes the fullnames again from the Names each person shows', () => {
    const into = createdPerson(
      { Emails: { '@set': [{ email: 'x@example.org' }] }, Names: { '@set': [{ freeform_name: 'X' }] } },
      { firstId: 3000 },
    );
    const from = createdPerson(
      { Names: { '@set': [{ first_name: 'Grace', last_name: 'Hopper', name_prefix_fk: 21 }] } },
      { firstId: 4000 },
    );
    const { after, merged: stored, record } = merged(into, from);
    const result = unmergePersons(after, stored, record, UNMERGE);
    expect(result.source.fullname).toBe(from.fullname);
    expect(result.source.fullname).toMatch(/^Dr\. Grace Hopper/);
    expect(result.survivor.fullname).toBe(into.fullname);
  });

  it('refuses a merged person the record does not name as merged into this survivor', () => {
    const { after, merged: stored, record } = merged(survivor(), source());
    expect(() => unmergePersons(after, { ...stored, superceded_by: 1 }, record, UNMERGE)).toThrow(
      ValidationFailed,
    );
  });
});
