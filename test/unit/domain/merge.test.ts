import { describe, expect, it } from 'vitest';
import { ValidationFailed } from '../../../lib/domain/errors';
import { isMergedPerson, mergePersons, recordOfEarlierMerge } from '../../../lib/domain/merge';
import { LIMITS } from '../../../lib/domain/schemas';
import { createdPerson } from '../../support/fixtures';

const CONTEXT = { requester: 7, now: '2026-11-26T12:00:00.000Z', changeId: 555, sourceChangeId: 556 };

const survivor = () =>
  createdPerson(
    {
      local_reference_id: 'crm-1',
      Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] },
      Emails: { '@set': [{ email: 'ada@example.org' }] },
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958', primary: true }] },
      PostalAddresses: { '@set': [{ address1: '12 St James Square', city: 'London', primary: true }] },
      PersonRoles: { '@set': [{ name: 'Analyst', role_fk: 3 }] },
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
          { first_name: 'ADA', last_name: 'Lovelace', local_reference_id: 'n-same' },
          { first_name: 'Augusta Ada', last_name: 'King', local_reference_id: 'n-other' },
        ],
      },
      Emails: {
        '@set': [
          { email: 'countess@example.org', local_reference_id: 'e-1' },
          { email: 'ada.king@example.org' },
        ],
      },
      PhoneNumbers: {
        '@set': [
          { phone_number: '+44 (20) 7946-0958', primary: true },
          { phone_number: '+44 20 7946 0000', primary: false, local_reference_id: 'p-2' },
        ],
      },
      PostalAddresses: { '@set': [{ address1: '12 st james square', city: 'LONDON', primary: true }] },
      PersonRoles: {
        '@set': [
          { name: 'analyst (ERP)', role_fk: 3 },
          { name: 'Engineer', role_fk: 4 },
        ],
      },
      SocialAddresses: { twitter: '@countess', linkedin: 'ada-king' },
    },
    { firstId: 2000, requester: 2 },
  );

describe('merging a duplicate into its survivor (API.md 13)', () => {
  it("moves the source's items the survivor does not hold, as non-primary, keeping their ids and references", () => {
    const [from, into] = [source(), survivor()];
    const { person, moved, dropped } = mergePersons(into, from, CONTEXT);

    const other = (
      set: 'Names' | 'Emails' | 'PhoneNumbers' | 'PersonRoles',
      local: string | null,
      field: string,
    ) => from[set].find((item) => (item as Record<string, unknown>)[field] === local);
    expect(person.Emails.map(({ email, primary }) => [email, primary])).toEqual([
      ['ada@example.org', true],
      ['countess@example.org', false],
      ['ada.king@example.org', false],
    ]);
    expect(person.Emails[1]).toEqual({ ...from.Emails[0], primary: false });
    expect(person.Emails[1]?.local_reference_id).toBe('e-1');
    // The same folded Name, the same number without punctuation, the same address folded, the same role key: dropped.
    expect(
      person.Names.map(({ first_name, last_name, primary }) => [first_name, last_name, primary]),
    ).toEqual([
      ['Ada', 'Lovelace', true],
      ['Augusta Ada', 'King', false],
    ]);
    expect(person.PhoneNumbers.map(({ phone_number, primary }) => [phone_number, primary])).toEqual([
      ['+44 20 7946 0958', true],
      ['+44 20 7946 0000', false],
    ]);
    expect(person.PostalAddresses).toEqual(into.PostalAddresses);
    expect(person.PersonRoles.map(({ role_fk }) => role_fk)).toEqual([3, 4]);
    expect(dropped).toEqual([
      { set: 'Names', id: other('Names', 'n-same', 'local_reference_id')?.id },
      { set: 'PhoneNumbers', id: from.PhoneNumbers[0]?.id },
      { set: 'PersonRoles', id: from.PersonRoles[0]?.id },
      { set: 'PostalAddresses', id: from.PostalAddresses[0]?.id },
    ]);
    expect(moved.map(({ set }) => set)).toEqual(['Names', 'Emails', 'Emails', 'PhoneNumbers', 'PersonRoles']);
    expect(moved.find(({ set }) => set === 'PhoneNumbers')?.id).toBe(
      other('PhoneNumbers', 'p-2', 'local_reference_id')?.id,
    );
  });

  it("keeps the survivor's own values, and fills only its empty social addresses", () => {
    const [from, into] = [source(), survivor()];
    const { person, changed } = mergePersons(into, from, CONTEXT);

    expect(person.id).toBe(into.id);
    expect(person.fullname).toBe(into.fullname);
    expect(person.local_reference_id).toBe('crm-1');
    expect(person.SocialAddresses).toEqual({
      ...into.SocialAddresses,
      twitter: '@ada',
      linkedin: 'ada-king',
    });
    expect(person.CoreMetaData).toEqual({
      ...into.CoreMetaData,
      version: into.CoreMetaData.version + 1,
      date_modified: CONTEXT.now,
      modified_by: CONTEXT.requester,
      modified_audit_id: CONTEXT.changeId,
    });
    expect(person.CoreMetaData.created_by).toBe(1);
    expect(changed).toEqual(['/Names', '/Emails', '/PhoneNumbers', '/PersonRoles', '/SocialAddresses']);
    // The inputs are left as they were.
    expect(into).toEqual(survivor());
    expect(from).toEqual(source());
  });

  it("re-points the source's email claims to the survivor and releases the name claims no one holds any more", () => {
    const emailed = mergePersons(survivor(), source(), CONTEXT);
    expect(emailed.repoint).toEqual([
      { field: 'email', value: 'countess@example.org' },
      { field: 'email', value: 'ada.king@example.org' },
    ]);
    expect(emailed.releaseSource).toEqual([]);
    expect(emailed.releaseSurvivor).toEqual([]);

    // Known only by name on both sides: the source's name claim goes, the survivor's stays.
    const byName = (first: string, id: number) =>
      createdPerson({ Names: { '@set': [{ first_name: first, last_name: 'Byron' }] } }, { firstId: id });
    const named = mergePersons(byName('George', 3000), byName('Lord', 4000), CONTEXT);
    expect(named.repoint).toEqual([]);
    expect(named.releaseSource).toEqual([{ field: 'name', value: 'lord byron' }]);
    expect(named.releaseSurvivor).toEqual([]);

    // A survivor known only by name that gains the source's email: its name claim goes too.
    const gains = mergePersons(byName('George', 3000), source(), CONTEXT);
    expect(gains.repoint).toHaveLength(2);
    expect(gains.releaseSource).toEqual([]);
    expect(gains.releaseSurvivor).toEqual([{ field: 'name', value: 'george byron' }]);
  });

  it('leaves the source merged into the survivor: its id, its survivor, its metadata one version on, no personal data', () => {
    const from = source();
    const { source: merged } = mergePersons(survivor(), from, CONTEXT);
    expect(merged).toEqual({
      id: from.id,
      superceded_by: survivor().id,
      CoreMetaData: {
        ...from.CoreMetaData,
        version: from.CoreMetaData.version + 1,
        date_modified: CONTEXT.now,
        modified_by: CONTEXT.requester,
        modified_audit_id: CONTEXT.sourceChangeId,
      },
    });
    expect(isMergedPerson(merged)).toBe(true);
    expect(isMergedPerson(from)).toBe(false);
  });

  it('keeps an alias Name an alias', () => {
    const from = createdPerson(
      {
        Names: {
          '@set': [
            { first_name: 'Ada', last_name: 'Byron' },
            { freeform_name: 'The Enchantress of Numbers', primary: 2 },
          ],
        },
      },
      { firstId: 5000 },
    );
    const { person } = mergePersons(survivor(), from, CONTEXT);
    expect(person.Names.map(({ primary }) => primary)).toEqual([true, false, 2]);
  });

  it('refuses a person merged into itself, and a set over its limit, writing nothing', () => {
    const into = survivor();
    expect(() => mergePersons(into, survivor(), CONTEXT)).toThrow(ValidationFailed);

    const phones = (count: number, from: number) =>
      createdPerson(
        {
          Names: { '@set': [{ first_name: 'P', last_name: `Phones${from}` }] },
          PhoneNumbers: {
            '@set': Array.from({ length: count }, (_, n) => ({
              phone_number: `+1 555 ${from + n}`,
              primary: n === 0,
            })),
          },
        },
        { firstId: from },
      );
    const half = LIMITS.sets.PhoneNumbers / 2;
    expect(() => mergePersons(phones(half, 10_000), phones(half, 20_000), CONTEXT)).not.toThrow();
    try {
      mergePersons(phones(half, 10_000), phones(half + 1, 20_000), CONTEXT);
      expect.unreachable('a merge over the limit must be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      expect((error as ValidationFailed).errors).toEqual([
        {
          path: '/PhoneNumbers/@set',
          message: expect.stringContaining(`more than ${LIMITS.sets.PhoneNumbers}`),
        },
      ]);
    }
  });
});

describe('what a merge remembers for its undo (API.md 13.1)', () => {
  it('records what moved with its primary in the source, what was dropped whole, the social values taken and the root key', () => {
    const [from, into] = [source(), survivor()];
    const { record, moved, dropped } = mergePersons(into, from, CONTEXT);
    // Every moved item, with the primary it had in the source (the survivor's copy is not primary).
    expect(record.moved).toEqual(moved);
    expect(record.moved.length).toBeGreaterThan(0);
    for (const { set, id, primary } of record.moved)
      expect(primary).toEqual(
        (from[set] as { id: number; primary?: unknown }[]).find((item) => item.id === id)?.primary,
      );
    expect(record.moved).toContainEqual(expect.objectContaining({ set: 'PhoneNumbers', primary: false }));
    // Every dropped item, as the source held it.
    expect(record.dropped.map(({ set, item }) => ({ set, id: item.id }))).toEqual(dropped);
    for (const { set, item } of record.dropped)
      expect(item).toEqual((from[set] as { id: number }[]).find((held) => held.id === item.id));
    expect(record.social).toEqual({ linkedin: 'ada-king' });
    expect(record.local_reference_id).toBe('erp-9');
  });

  it('is the same when made again from the two persons the merge read (a merge made before records were kept)', () => {
    const [from, into] = [source(), survivor()];
    const { record } = mergePersons(into, from, CONTEXT);
    expect(recordOfEarlierMerge(into, from)).toEqual(record);
    // The record holds copies: a later change of the persons read does not change it.
    (from.PhoneNumbers[0] as { phone_number: string }).phone_number = '+1 555 0100';
    expect(record.dropped[0]?.item).not.toMatchObject({ phone_number: '+1 555 0100' });
  });
});
