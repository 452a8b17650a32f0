/**
 * Merging duplicates (API.md 13, issue #39) against DynamoDB Local, through the handlers: what moves
 * and what is dropped as equal, the answer, the source's 301 and tombstone, its absence from lists,
 * counts, search and matching, PATCH of a merged person 409, a requester naming it acting as its
 * survivor, every refusal changing nothing, `preview`, a retried merge, both MERGE entries, claims
 * passing to the survivor, a pair too large for one transaction, and a merge racing PATCHes.
 */
import { describe, expect, it } from 'vitest';
import { buildHandler as buildListAudit } from '../../functions/list-person-audit';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { auditLog } from '../../lib/db/history/audit-log';
import { personList } from '../../lib/db/person/read/person-list';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { ALL_VISIBLE } from '../../lib/domain/reconcile';
import { reconcileHandler } from '../../lib/http/reconcile-handlers';
import { type Json, personBody, personHistoryOf, uniqueEmail, uniqueTag } from '../support/api';
import { httpEvent, invoke } from '../support/events';
import { checkInvariants } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const BASE = 'https://api.example.test';

type Item = Json & { id: number };
const setOf = (person: Json, set: string): Item[] => {
  const container = (
    set.startsWith('Person') && set !== 'PersonRoles' ? (person.PersonMemberships as Json)[set] : person[set]
  ) as { '@set': Item[] };
  return container['@set'].filter((item) => item.id !== null);
};
const meta = (person: Json) => person.CoreMetaData as Json & { version: number };

const create = async (body: unknown, requester = 0) => {
  const { status, body: created } = await suite.api.post(body, { requester });
  expect(status).toBe(201);
  return created;
};

const listPersons = (query: Record<string, string>) =>
  invoke<{ '@set': Json[]; Pagination: { count: number } }>(
    buildListPersons({ personList: personList(suite.table) }),
    httpEvent({ method: 'GET', route: '/Person', query: { limit: '100', ...query } }),
  );

const historyOf = (id: number) => personHistoryOf(suite.table, id);

const reconcile = async (query: Json) => {
  const handler = reconcileHandler({ reader: reconcileReader(suite.table), visibility: ALL_VISIBLE });
  const { body } = await invoke<Record<string, { result: { id: string; match: boolean }[] }>>(
    handler,
    httpEvent({ method: 'GET', route: '/reconcile', query: { queries: JSON.stringify({ q0: query }) } }),
  );
  return body.q0?.result ?? [];
};

/** A survivor and a duplicate of it, as section 13's example pairs look. */
const pair = async () => {
  const tag = uniqueTag('m');
  const survivor = await create({
    local_reference_id: `crm-${tag}`,
    Names: { '@set': [{ first_name: 'Ada', last_name: `Lovelace${tag}` }] },
    Emails: { '@set': [{ email: uniqueEmail('ada') }] },
    PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958' }] },
    PostalAddresses: { '@set': [{ address1: '12 St James Square', city: 'London' }] },
    PersonRoles: { '@set': [{ name: 'Analyst' }] },
    SocialAddresses: { twitter: '@ada' },
  });
  const countess = uniqueEmail('countess');
  const source = await create({
    local_reference_id: `erp-${tag}`,
    Names: {
      '@set': [
        { first_name: 'ADA', last_name: `LOVELACE${tag}`, local_reference_id: 'n-same' },
        { first_name: 'Augusta Ada', last_name: `King${tag}`, local_reference_id: 'n-other' },
      ],
    },
    Emails: { '@set': [{ email: countess, local_reference_id: 'e-1' }] },
    PhoneNumbers: {
      '@set': [
        { phone_number: '+44 (20) 7946-0958' },
        { phone_number: '+44 20 7946 0000', local_reference_id: 'p-2' },
      ],
    },
    PostalAddresses: { '@set': [{ address1: '12 st james square', city: 'LONDON' }] },
    PersonRoles: { '@set': [{ name: 'analyst' }, { name: 'Engineer' }] },
    SocialAddresses: { twitter: '@countess', linkedin: 'ada-king' },
  });
  return { survivor, source, countess, tag };
};

describe('POST /Person/{id}/merge (API.md 13)', () => {
  it("moves the source's items the survivor lacks, drops its equal ones, and answers the survivor one version on", async () => {
    const { survivor, source, countess } = await pair();
    const merged = await suite.api.merge(survivor.id, { source: source.id });
    expect(merged.status).toBe(200);
    expect(merged.headers.etag).toBe(`"${meta(survivor).version + 1}"`);
    const person = merged.body;
    expect(meta(person).version).toBe(meta(survivor).version + 1);
    // The answer is what GET now shows.
    expect((await suite.api.get(survivor.id)).body).toEqual(person);

    // Names: the equal one (folded) dropped, the other moved, non-primary, id and reference kept.
    const names = setOf(person, 'Names');
    const king = setOf(source, 'Names')[1] as Item;
    expect(names.map((name) => name.id)).toEqual([setOf(survivor, 'Names')[0]?.id, king.id]);
    expect(names[1]).toMatchObject({
      id: king.id,
      primary: false,
      local_reference_id: 'n-other',
      person_fk: survivor.id,
    });
    // The email moves (non-primary); the equal phone number (punctuation aside) is dropped.
    expect(
      setOf(person, 'Emails').map((email) => [email.email, email.primary, email.local_reference_id]),
    ).toEqual([
      [person.email, true, null],
      [countess, false, 'e-1'],
    ]);
    expect(setOf(person, 'PhoneNumbers').map((phone) => phone.phone_number)).toEqual([
      '+44 20 7946 0958',
      '+44 20 7946 0000',
    ]);
    expect(setOf(person, 'PostalAddresses')).toHaveLength(1);
    expect(setOf(person, 'PersonRoles').map((role) => role.name)).toEqual(['Analyst', 'Engineer']);
    // Empty social fields take the source's values; the survivor's own stay.
    expect(person.SocialAddresses).toMatchObject({ twitter: '@ada', linkedin: 'ada-king' });
    // Its own root reference, creator and fullname stay.
    expect(person.local_reference_id).toBe(survivor.local_reference_id);
    expect(person.fullname).toBe(survivor.fullname);
    expect(meta(person).created_by).toBe(meta(survivor).created_by);
    expect(meta(person).modified_by).toBe(survivor.id);
  });

  it('leaves the source a 301 to its survivor, with a body holding no personal data', async () => {
    const { survivor, source } = await pair();
    await suite.api.merge(survivor.id, { source: source.id });
    const gone = await suite.api.get(source.id);
    expect(gone.status).toBe(301);
    expect(gone.headers.location).toBe(`${BASE}/Person/${survivor.id}`);
    expect(gone.body).toEqual({
      '@context': expect.any(String),
      '@type': 'Person',
      '@id': `${BASE}/Person/${source.id}`,
      id: source.id,
      superceded_by: survivor.id,
      CoreMetaData: expect.objectContaining({
        live_status: 0,
        superceded_by: survivor.id,
        version: meta(source).version + 1,
        created_by: meta(source).created_by,
      }),
    });
    expect(JSON.stringify(gone.body)).not.toContain('Lovelace');
  });

  it('sends GET of a merged person to the live end of its chain', async () => {
    const [a, b, c] = [
      await create(personBody('Chain', uniqueTag('A'), uniqueEmail())),
      await create(personBody('Chain', uniqueTag('B'), uniqueEmail())),
      await create(personBody('Chain', uniqueTag('C'), uniqueEmail())),
    ];
    expect((await suite.api.merge(b.id, { source: a.id })).status).toBe(200);
    expect((await suite.api.merge(c.id, { source: b.id })).status).toBe(200);
    const first = await suite.api.get(a.id);
    expect(first.status).toBe(301);
    expect(first.headers.location).toBe(`${BASE}/Person/${c.id}`);
    // Its own link stays the survivor it was merged into.
    expect(first.body.superceded_by).toBe(b.id);
    // The chain's emails all end at the live end.
    expect(
      setOf((await suite.api.get(c.id)).body, 'Emails')
        .map((email) => email.email)
        .sort(),
    ).toEqual([a.email, b.email, c.email].sort());
  });

  it('takes the source out of lists, counts, search and matching', async () => {
    const tag = uniqueTag('gone');
    const survivor = await create(personBody('Solo', `Survivor${tag}`, uniqueEmail()));
    const source = await create({
      ...personBody('Solo', `Dupe${tag}`, `dupe-${tag}@example.org`),
      local_reference_id: `ref-${tag}`,
    });
    const byReference = async () =>
      (await listPersons({ local_reference_id: `ref-${tag}` })).body['@set'].map((stub) => stub.id);
    expect(await byReference()).toEqual([source.id]);
    const before = (await listPersons({ limit: '0' })).body;
    expect((await listPersons({ last_name: `Dupe${tag}` })).body['@set']).toHaveLength(1);
    expect((await reconcile({ query: `Solo Dupe${tag}` })).map((r) => r.id)).toContain(String(source.id));

    await suite.api.merge(survivor.id, { source: source.id });
    expect((await listPersons({ limit: '0' })).body.Pagination.count).toBe(before.Pagination.count - 1);
    // The source's own name is the survivor's alias now: found, as the survivor.
    const byName = (await listPersons({ last_name: `Dupe${tag}` })).body['@set'];
    expect(byName.map((stub) => stub.id)).toEqual([survivor.id]);
    const byEmail = (await listPersons({ email: `dupe-${tag}` })).body['@set'];
    expect(byEmail.map((stub) => stub.id)).toEqual([survivor.id]);
    // The source's own key finds the survivor now (API.md 13.1).
    expect(await byReference()).toEqual([survivor.id]);
    const candidates = await reconcile({ query: `Solo Dupe${tag}` });
    expect(candidates.map((r) => r.id)).not.toContain(String(source.id));
    expect(candidates[0]?.id).toBe(String(survivor.id));
    const byMail = await reconcile({ query: `dupe-${tag}@example.org` });
    expect(byMail.map((r) => [r.id, r.match])).toEqual([[String(survivor.id), true]]);
  });

  it('passes the email claims to the survivor and releases the name claim of an email-less source', async () => {
    const { survivor, source, countess } = await pair();
    await suite.api.merge(survivor.id, { source: source.id });
    const clash = await suite.unchangedBy(() => suite.api.post(personBody('New', 'Person', countess)));
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      type: '/problems/duplicate-email',
      errors: [{ existing: `${BASE}/Person/${survivor.id}` }],
    });

    const tag = uniqueTag('byname');
    const named = await create(personBody('Only', `Named${tag}`));
    const other = await create(personBody('Other', `Named${tag}`));
    expect((await suite.api.merge(other.id, { source: named.id })).status).toBe(200);
    // Its name is free again for a person known only by name.
    expect((await suite.api.post(personBody('Only', `Named${tag}`))).status).toBe(201);
  });

  it('writes one MERGE entry on each person, naming the requester; the source keeps its history', async () => {
    const { survivor, source } = await pair();
    const requester = await create(personBody('Clerk', uniqueTag('Merge'), uniqueEmail()));
    const merged = await suite.api.merge(survivor.id, { source: source.id }, { requester: requester.id });
    const [onSurvivor] = await historyOf(survivor.id);
    const [onSource, sourceCreate] = await historyOf(source.id);
    expect(onSurvivor).toMatchObject({
      type: 'MERGE',
      person_fk: requester.id,
      object_id: survivor.id,
      previous_object: { id: survivor.id, CoreMetaData: { version: meta(survivor).version } },
      current_object: merged.body,
    });
    expect(onSurvivor?.id).toBe(meta(merged.body).modified_audit_id);
    expect(onSource).toMatchObject({
      type: 'MERGE',
      person_fk: requester.id,
      previous_object: { id: source.id, fullname: source.fullname },
      current_object: { id: source.id, superceded_by: survivor.id, CoreMetaData: { live_status: 0 } },
    });
    expect(onSource?.changed).toContain('/superceded_by');
    expect(sourceCreate?.type).toBe('POST');
    const audit = await invoke<{ items: Json[] }>(
      buildListAudit({ audit: auditLog(suite.table) }),
      httpEvent({
        method: 'GET',
        route: '/Person/{id}/audit',
        path: `/Person/${source.id}/audit`,
        pathParameters: { id: String(source.id) },
      }),
    );
    expect(audit.status).toBe(200);
    expect(audit.body.items.map((entry) => entry.action)).toEqual(['merge', 'create']);
  });

  it('refuses a PATCH of the merged person with 409 merged naming the survivor', async () => {
    const { survivor, source } = await pair();
    await suite.api.merge(survivor.id, { source: source.id });
    const patched = await suite.unchangedBy(() =>
      suite.api.patch(source.id, { local_reference_id: 'late' }, { requester: survivor.id }),
    );
    expect(patched.status).toBe(409);
    expect(patched.body).toMatchObject({
      type: '/problems/merged',
      errors: [{ existing: `${BASE}/Person/${survivor.id}` }],
    });
  });

  it('lets a write naming the merged person as requester act as its survivor', async () => {
    const { survivor, source } = await pair();
    await suite.api.merge(survivor.id, { source: source.id });
    const made = await create(personBody('Made', uniqueTag('By'), uniqueEmail()), source.id);
    expect(meta(made).created_by).toBe(survivor.id);
    const changed = await suite.api.patch(made.id, { local_reference_id: 'x' }, { requester: source.id });
    expect(changed.status).toBe(200);
    expect(meta(changed.body).modified_by).toBe(survivor.id);
  });

  it('answers a merge sent again the survivor, changing nothing; into another survivor, 409', async () => {
    const { survivor, source } = await pair();
    const first = await suite.api.merge(survivor.id, { source: source.id });
    const again = await suite.unchangedBy(() => suite.api.merge(survivor.id, { source: source.id }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await create(personBody('Other', uniqueTag('Survivor'), uniqueEmail()));
    const elsewhere = await suite.unchangedBy(() => suite.api.merge(other.id, { source: source.id }));
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body).toMatchObject({
      type: '/problems/merged',
      errors: [{ existing: `${BASE}/Person/${survivor.id}` }],
    });
    // Into the merged person itself: 409, naming its survivor.
    const into = await suite.unchangedBy(() =>
      suite.api.merge(source.id, { source: other.id }, { requester: other.id }),
    );
    expect(into.status).toBe(409);
    expect(into.body).toMatchObject({
      type: '/problems/merged',
      errors: [{ existing: `${BASE}/Person/${survivor.id}` }],
    });
  });

  it('refuses, changing nothing: itself 400, unknown persons 404, a set over its limit 400, a stale If-Match 412, a bad body 400', async () => {
    const { survivor, source } = await pair();
    const itself = await suite.unchangedBy(() => suite.api.merge(survivor.id, { source: survivor.id }));
    expect(itself.status).toBe(400);
    expect((await suite.unchangedBy(() => suite.api.merge(survivor.id, { source: 99_999_999 }))).status).toBe(
      404,
    );
    expect(
      (
        await suite.unchangedBy(() =>
          suite.api.merge(99_999_998, { source: source.id }, { requester: survivor.id }),
        )
      ).status,
    ).toBe(404);
    const stale = await suite.unchangedBy(() =>
      suite.api.merge(survivor.id, { source: source.id }, { headers: { 'if-match': '"99"' } }),
    );
    expect(stale.status).toBe(412);
    for (const body of [
      {},
      { source: 'x' },
      { source: source.id, extra: 1 },
      { source: source.id, preview: 'yes' },
    ]) {
      const refused = await suite.unchangedBy(() => suite.api.merge(survivor.id, body));
      expect(refused.status, JSON.stringify(body)).toBe(400);
    }
    expect(
      (
        await suite.unchangedBy(() =>
          suite.api.merge(survivor.id, { source: source.id }, { requester: null }),
        )
      ).status,
    ).toBe(400);

    const phones = (from: number) =>
      Array.from({ length: 30 }, (_, n) => ({ phone_number: `+1 555 ${String(from + n).padStart(4, '0')}` }));
    const full = await create({
      ...personBody('Full', uniqueTag('Phones'), uniqueEmail()),
      PhoneNumbers: { '@set': phones(0) },
    });
    const more = await create({
      ...personBody('More', uniqueTag('Phones'), uniqueEmail()),
      PhoneNumbers: { '@set': phones(100) },
    });
    const over = await suite.unchangedBy(() => suite.api.merge(full.id, { source: more.id }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ errors: [{ path: '/PhoneNumbers/@set' }] });
    // With a current If-Match it lands.
    const current = await suite.api.merge(
      survivor.id,
      { source: source.id },
      { headers: { 'if-match': `"${meta(survivor).version}"` } },
    );
    expect(current.status).toBe(200);
  });

  it('answers a preview as the merge would, and writes nothing', async () => {
    const { survivor, source } = await pair();
    const preview = await suite.unchangedBy(() =>
      suite.api.merge(survivor.id, { source: source.id, preview: true }),
    );
    expect(preview.status).toBe(200);
    const merged = await suite.api.merge(survivor.id, { source: source.id });
    const { CoreMetaData: previewMeta, ...previewed } = preview.body;
    const { CoreMetaData: mergedMeta, ...made } = merged.body;
    expect(previewed).toEqual(made);
    expect(meta(preview.body).version).toBe(meta(merged.body).version);
    expect(previewMeta).not.toBeUndefined();
    expect(mergedMeta).not.toBeUndefined();
  });

  it('merges a pair too large for one transaction through the postings chain, leaving storage consistent', async () => {
    const emails = (label: string) =>
      Array.from({ length: 25 }, (_, n) => ({ email: uniqueEmail(`${label}${n}`) }));
    const survivor = await create({
      Names: { '@set': [{ first_name: 'Big', last_name: uniqueTag('Survivor') }] },
      Emails: { '@set': emails('s') },
    });
    const source = await create({
      Names: { '@set': [{ first_name: 'Big', last_name: uniqueTag('Source') }] },
      Emails: { '@set': emails('d') },
    });
    const merged = await suite.api.merge(survivor.id, { source: source.id });
    expect(merged.status).toBe(200);
    expect(setOf(merged.body, 'Emails')).toHaveLength(50);
    expect(await checkInvariants(suite.table)).toEqual([]);
  });

  it('never enriches a merged person', async () => {
    const { survivor, source } = await pair();
    await suite.api.merge(survivor.id, { source: source.id });
    const writer = socialAddressWriter(suite.table);
    expect(await writer.fill(source.id, { youtube: 'late' })).toBe('no-such-person');
    expect((await suite.api.get(source.id)).status).toBe(301);
  });

  it('serializes with concurrent PATCHes of either person: every PATCH that answered 200 is kept', async () => {
    const { survivor, source } = await pair();
    const patches = Array.from({ length: 6 }, (_, n) => {
      const target = n % 2 === 0 ? survivor : source;
      return suite.api
        .patch(
          target.id,
          { PhoneNumbers: { '@set': [{ phone_number: `+1 999 000 ${n}` }] } },
          { requester: target.id },
        )
        .then((answer) => ({ n, answer }));
    });
    const merge = suite.api.merge(survivor.id, { source: source.id });
    const [merged, ...answers] = await Promise.all([merge, ...patches]);
    expect(merged.status).toBe(200);
    const stored = setOf((await suite.api.get(survivor.id)).body, 'PhoneNumbers').map(
      (phone) => phone.phone_number,
    );
    for (const { n, answer } of answers) {
      if (answer.status === 200) expect(stored, `PATCH ${n}`).toContain(`+1 999 000 ${n}`);
      else expect(answer.status, `PATCH ${n}`).toBe(409);
    }
  });
});
