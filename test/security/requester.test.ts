/**
 * Requester spoofing (API.md 5.1): `x-requester-person` attributes a write to a person, so a value
 * that names no person is refused and leaves nothing behind, and nothing in the body can attribute a
 * write to someone else.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../lib/db/history/audit-log';
import { PersonOut } from '../../lib/domain/schemas';
import { type CallOptions, personBody, uniqueEmail } from '../support/api';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

/** A person to patch, another person, and ids that exist but name no person. */
const known = { target: 0, other: 0, nameId: 0, emailId: 0, auditEntryId: 0 };

beforeAll(async () => {
  const other = await suite.api.post(personBody('Other', 'Requester', uniqueEmail('other')));
  const target = await suite.api.post(personBody('Target', 'Person', uniqueEmail('target')));
  const patched = await suite.api.patch(target.body.id, { local_reference_id: 'audited' });
  expect([other.status, target.status, patched.status]).toEqual([201, 201, 200]);
  known.other = other.body.id;
  known.target = target.body.id;
  known.nameId = (target.body.Names['@set'][0] as { id: number }).id;
  known.emailId = (target.body.Emails['@set'][0] as { id: number }).id;
  const { entries } = await auditLog(suite.table).page(known.target, { offset: 0, limit: 1 });
  known.auditEntryId = entries[0]?.id as number;
  expect(known.auditEntryId).toBeGreaterThan(0);
});

const refused = async (send: () => Promise<{ status: number; body: Record<string, unknown> }>) => {
  const before = await snapshot(suite.table);
  const response = await send();
  expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

const post = (requester: CallOptions['requester']) =>
  refused(() => suite.api.post(personBody('Spoof', 'Attempt', uniqueEmail('spoof')), { requester }));

const patch = (requester: CallOptions['requester']) =>
  refused(() => suite.api.patch(known.target, { local_reference_id: 'spoofed' }, { requester }));

/** Values that are not a non-negative integer as the header must carry it. */
const MALFORMED = [
  '-1',
  '-0',
  '+1',
  '1e3',
  '0x10',
  '1.0',
  '1,2',
  'abc',
  '',
  ' ',
  '１',
  '99999999999999999',
  '9007199254740993',
  '1234567890123456789012345678901234567890',
];

describe('x-requester-person on POST /Person', () => {
  it('refuses ids that name no person with 403 and stores nothing', async () => {
    for (const id of [999_999_999, known.nameId, known.emailId, known.auditEntryId]) {
      const response = await post(id);

      expect(response.status, `requester ${id}`).toBe(403);
      expect(response.body.type).toBe('/problems/unknown-requester');
    }
  });

  it.each([1, 2, 3, 10])(
    'refuses with 403 the id the new person or its parts are about to get (%i ahead), never 500',
    async (ahead) => {
      // Ids are handed out in order: the next create starts right after the last one's change id.
      const probe = await suite.api.post(personBody('Probe', 'Ahead', uniqueEmail('probe')));
      const changeId = PersonOut.parse(probe.body).CoreMetaData.created_audit_id;
      expect(changeId).toBeTypeOf('number');
      const next = (changeId as number) + ahead;

      const response = await post(next);

      expect(response.status, `requester ${next}`).toBe(403);
      expect(response.body.type).toBe('/problems/unknown-requester');
    },
  );

  it.each(MALFORMED)('refuses %j with 400 invalid-requester and stores nothing', async (value) => {
    const response = await post(value);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/invalid-requester');
  });

  it('refuses a missing header with 400 missing-requester and stores nothing', async () => {
    const response = await post(null);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/missing-requester');
  });

  it('attributes the person to the requester, not to CoreMetaData sent in the body', async () => {
    const response = await suite.api.post(
      {
        ...personBody('Attributed', 'Create', uniqueEmail('attributed')),
        CoreMetaData: { created_by: known.target, modified_by: known.target, version: 99 },
      },
      { requester: known.other },
    );

    expect(response.status).toBe(201);
    expect(PersonOut.parse(response.body).CoreMetaData).toMatchObject({
      created_by: known.other,
      modified_by: null,
      version: 1,
    });
  });
});

describe('x-requester-person on PATCH /Person/{id}', () => {
  it('refuses 0 with 400 invalid-requester: self-registration is for create only', async () => {
    const response = await patch(0);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/invalid-requester');
  });

  it('refuses ids that name no person with 403 and changes nothing', async () => {
    for (const id of [999_999_999, known.nameId, known.emailId, known.auditEntryId]) {
      const response = await patch(id);

      expect(response.status, `requester ${id}`).toBe(403);
      expect(response.body.type).toBe('/problems/unknown-requester');
    }
  });

  it.each(MALFORMED)('refuses %j with 400 invalid-requester and changes nothing', async (value) => {
    const response = await patch(value);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/invalid-requester');
  });

  it('refuses a missing header with 400 missing-requester and changes nothing', async () => {
    const response = await patch(null);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/missing-requester');
  });

  it('attributes the change to the requester, not to CoreMetaData or person_fk sent in the body', async () => {
    const response = await suite.api.patch(
      known.target,
      {
        local_reference_id: 'attributed',
        CoreMetaData: { modified_by: known.target, created_by: known.other, version: 1 },
        Emails: { '@set': [{ email: uniqueEmail('fk'), person_fk: known.other }] },
      },
      { requester: known.other },
    );

    expect(response.status).toBe(200);
    const person = PersonOut.parse(response.body);
    expect(person.CoreMetaData.modified_by).toBe(known.other);
    expect(person.CoreMetaData.created_by).not.toBe(known.other);
    for (const email of person.Emails['@set']) expect(email).toMatchObject({ person_fk: known.target });
    const other = await suite.api.get(known.other);
    expect(other.body.Emails['@set']).toHaveLength(1);
  });
});
