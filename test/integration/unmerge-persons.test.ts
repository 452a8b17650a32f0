import { describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { personList } from '../../lib/db/person/read/person-list';
import { mergedFromKey } from '../../lib/db/table/keys';
import { type Json, personHistoryOf, uniqueEmail, uniqueTag } from '../support/api';
import { forgetMergeRecord } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

type Item = Json & { id: number };
const setOf = (person: Json, set: string): Item[] =>
  ((person[set] as { '@set': Item[] })['@set'] ?? []).filter((item) => item.id !== null);
const version = (person: Json) => (person.CoreMetaData as { version: number }).version;

const create = async (body: unknown) => {
  const { status, body: created } = await suite.api.post(body);
  expect(status).toBe(201);
  return created as Json & { id: number };
};

const get = async (id: number) => (await suite.api.get(id)).body as Json & { id: number };

const listPersons = (query: Record<string, string>) =>
  invoke<{ '@set': Json[] }>(
    buildListPersons({ personList: personList(suite.table) }),
    httpEvent({ method: 'GET', route: '/Person', query: { limit: '100', ...query } }),
  );

/** A survivor and its duplicate, each with items of its own and one equal item, merged. */
const mergedPair = async () => {
  const tag = uniqueTag('u');
  const emails = { ada: uniqueEmail('ada'), countess: uniqueEmail('countess'), king: uniqueEmail('king') };
  const survivor = await create({
    local_reference_id: `crm-${tag}`,
    Names: { '@set': [{ first_name: 'Ada', last_name: `Lovelace${tag}` }] },
    Emails: { '@set': [{ email: emails.ada }] },
    PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958', primary: true }] },
    SocialAddresses: { twitter: '@ada' },
  });
  const source = await create({
    local_reference_id: `erp-${tag}`,
    Names: {
      '@set': [
        { first_name: 'Augusta Ada', last_name: `King${tag}`, local_reference_id: 'n-own' },
        { first_name: 'ada', last_name: `lovelace${tag}`, local_reference_id: 'n-equal' },
      ],
    },
    Emails: { '@set': [{ email: emails.countess, primary: true }, { email: emails.king }] },
    PhoneNumbers: {
      '@set': [
        { phone_number: '+44 (20) 7946-0958', primary: true, local_reference_id: 'p-equal' },
        { phone_number: '+44 20 7946 0000' },
      ],
    },
    SocialAddresses: { twitter: '@countess', linkedin: `ada-king-${tag}` },
  });
  const merge = await suite.api.merge(survivor.id, { source: source.id });
  expect(merge.status).toBe(200);
  return { tag, emails, survivor, source, merged: merge.body as Json & { id: number } };
};

/** A person as GET shows it, without what any write changes: metadata, and the echo of deletes. */
const content = ({ CoreMetaData: _meta, ...rest }: Json) => rest;

describe('POST /Person/{id}/unmerge (API.md 13.1)', () => {
  it('gives both persons back as they were when nothing changed in between, each one version higher', async () => {
    const { survivor, source, merged } = await mergedPair();
    const { status, body, headers } = await suite.api.unmerge(survivor.id, { source: source.id });
    expect(status).toBe(200);
    expect(body['@type']).toBe('Unmerge');
    expect(content(body.survivor)).toEqual(content(survivor));
    expect(content(body.source)).toEqual(content(source));
    expect(version(body.survivor)).toBe(version(merged) + 1);
    expect(version(body.source)).toBe(version(source) + 2);
    expect(headers.etag).toBe(`"${version(body.survivor)}"`);
    // Each GET shows what the answer showed.
    expect(await get(survivor.id)).toEqual(body.survivor);
    expect(await suite.api.get(source.id)).toMatchObject({ status: 200, body: body.source });
  });

  it('sends moved items back as the survivor holds them now, keeps a deleted one deleted and an added one on the survivor', async () => {
    const { emails, survivor, source, merged } = await mergedPair();
    const [ownName] = setOf(source, 'Names');
    const [, king] = setOf(source, 'Emails');
    const countess = setOf(merged, 'Emails').find((item) => item.email === emails.countess);
    const added = uniqueEmail('added');
    const patched = await suite.api.patch(survivor.id, {
      Names: { '@set': [{ id: ownName?.id, first_name: 'Augusta Ada (Countess)' }] },
      Emails: { '@set': [{ id: king?.id }, { email: added }, { id: countess?.id, primary: true }] },
      SocialAddresses: { youtube: '@ada-talks' },
    });
    expect(patched.status).toBe(200);

    const { status, body } = await suite.api.unmerge(survivor.id, { source: source.id });
    expect(status).toBe(200);
    const back = body.source;
    expect(setOf(back, 'Names').map(({ id, first_name, primary }) => [id, first_name, primary])).toEqual([
      [ownName?.id, 'Augusta Ada (Countess)', true],
      [setOf(source, 'Names')[1]?.id, 'ada', false],
    ]);
    // The email deleted on the survivor stays deleted; the other comes back with its primary.
    expect(setOf(back, 'Emails').map(({ email, primary }) => [email, primary])).toEqual([
      [emails.countess, true],
    ]);
    // The equal phone the merge dropped comes back as the source held it.
    expect(setOf(back, 'PhoneNumbers')).toEqual(setOf(source, 'PhoneNumbers'));
    expect(back.local_reference_id).toBe(source.local_reference_id);
    expect(back.SocialAddresses).toEqual(source.SocialAddresses);
    // The survivor keeps its own and what was added after the merge; its primary falls back on its own.
    expect(setOf(body.survivor, 'Emails').map(({ email, primary }) => [email, primary])).toEqual([
      [emails.ada, true],
      [added, false],
    ]);
    expect(setOf(body.survivor, 'Names')).toEqual(setOf(survivor, 'Names'));
    expect(body.survivor.SocialAddresses).toEqual({
      ...(survivor.SocialAddresses as Json),
      youtube: '@ada-talks',
    });
  });

  it('gives the source its Names back when the survivor deleted every one that moved: a person needs a Name', async () => {
    const tag = uniqueTag('n');
    const survivor = await create({
      Names: { '@set': [{ first_name: 'Edith', last_name: `Wharton${tag}` }] },
      Emails: { '@set': [{ email: uniqueEmail('edith') }] },
    });
    const source = await create({
      Names: { '@set': [{ first_name: 'Edith', last_name: `Jones${tag}`, local_reference_id: 'n-maiden' }] },
      Emails: { '@set': [{ email: uniqueEmail('jones') }] },
    });
    expect((await suite.api.merge(survivor.id, { source: source.id })).status).toBe(200);
    const [maiden] = setOf(source, 'Names');
    expect((await suite.api.patch(survivor.id, { Names: { '@set': [{ id: maiden?.id }] } })).status).toBe(
      200,
    );
    const { status, body } = await suite.api.unmerge(survivor.id, { source: source.id });
    expect(status).toBe(200);
    expect(setOf(body.source, 'Names')).toEqual(setOf(source, 'Names'));
    expect(body.source.fullname).toBe(source.fullname);
  });

  it('passes the returning claims back: the source’s email is its own again, not the survivor’s', async () => {
    const { emails, survivor, source } = await mergedPair();
    expect((await suite.api.unmerge(survivor.id, { source: source.id })).status).toBe(200);
    const taken = await suite.api.post({
      Names: { '@set': [{ first_name: 'Someone', last_name: 'Else' }] },
      Emails: { '@set': [{ email: emails.countess }] },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      type: expect.stringMatching(/duplicate-email$/),
      errors: [
        expect.objectContaining({ existing: expect.stringMatching(new RegExp(`/Person/${source.id}$`)) }),
      ],
    });
    // The survivor may not add it either: the source holds it.
    const added = await suite.api.patch(survivor.id, { Emails: { '@set': [{ email: emails.countess }] } });
    expect(added.status).toBe(409);
  });

  it('writes an UNMERGE entry on each person, and the source is found by search again', async () => {
    const { tag, survivor, source } = await mergedPair();
    // Merged, the source's name is the survivor's.
    const before = (await listPersons({ last_name: `King${tag}` })).body['@set'];
    expect(before.map((stub) => stub.id)).toEqual([survivor.id]);
    const { body } = await suite.api.unmerge(survivor.id, { source: source.id });
    const [survivorLast] = await personHistoryOf(suite.table, survivor.id);
    const [sourceLast] = await personHistoryOf(suite.table, source.id);
    expect(survivorLast).toMatchObject({
      type: 'UNMERGE',
      person_fk: survivor.id,
      object_id: survivor.id,
      current_object: body.survivor,
    });
    expect(sourceLast).toMatchObject({
      type: 'UNMERGE',
      person_fk: survivor.id,
      previous_object: { id: source.id, superceded_by: survivor.id },
      current_object: body.source,
    });
    expect(sourceLast?.changed).toContain('/superceded_by');
    expect((body.source.CoreMetaData as Json).modified_audit_id).toBe(sourceLast?.id);
    const found = (await listPersons({ last_name: `King${tag}` })).body['@set'];
    expect(found.map((stub) => stub.id)).toEqual([source.id]);
    expect(
      (await listPersons({ local_reference_id: `erp-${tag}` })).body['@set'].map((stub) => stub.id),
    ).toEqual([source.id]);
  });

  it('answers a preview as the unmerge would, and writes nothing', async () => {
    const { survivor, source } = await mergedPair();
    const preview = await suite.unchangedBy(() =>
      suite.api.unmerge(survivor.id, { source: source.id, preview: true }),
    );
    expect(preview.status).toBe(200);
    expect((await suite.api.get(source.id)).status).toBe(301);
    const done = await suite.api.unmerge(survivor.id, { source: source.id });
    expect(content(preview.body.survivor)).toEqual(content(done.body.survivor));
    expect(content(preview.body.source)).toEqual(content(done.body.source));
    expect(version(preview.body.source)).toBe(version(done.body.source));
  });

  it('honours If-Match on the survivor', async () => {
    const { survivor, source, merged } = await mergedPair();
    const stale = await suite.unchangedBy(() =>
      suite.api.unmerge(
        survivor.id,
        { source: source.id },
        { headers: { 'if-match': `"${version(survivor)}"` } },
      ),
    );
    expect(stale.status).toBe(412);
    const fresh = await suite.api.unmerge(
      survivor.id,
      { source: source.id },
      { headers: { 'if-match': `"${version(merged)}"` } },
    );
    expect(fresh.status).toBe(200);
  });

  it('refuses a source not merged into this person: live, merged elsewhere, unmerged already (409 not-merged)', async () => {
    const { survivor, source } = await mergedPair();
    const other = await mergedPair();
    const refusals = [
      await suite.unchangedBy(() => suite.api.unmerge(survivor.id, { source: other.survivor.id })),
      await suite.unchangedBy(() => suite.api.unmerge(survivor.id, { source: other.source.id })),
    ];
    expect(refusals.map(({ status }) => status)).toEqual([409, 409]);
    expect(refusals[0]?.body).toMatchObject({ type: expect.stringMatching(/not-merged$/) });
    expect(refusals[0]?.body).not.toHaveProperty('errors');
    expect(refusals[1]?.body).toMatchObject({
      type: expect.stringMatching(/not-merged$/),
      errors: [
        { path: '/source', existing: expect.stringMatching(new RegExp(`/Person/${other.survivor.id}$`)) },
      ],
    });
    expect((await suite.api.unmerge(survivor.id, { source: source.id })).status).toBe(200);
    const again = await suite.unchangedBy(() => suite.api.unmerge(survivor.id, { source: source.id }));
    expect(again.status).toBe(409);
    expect((await suite.api.unmerge(survivor.id, { source: 9_999_999_999 })).status).toBe(404);
  });

  it('refuses an unmerge on a survivor merged since (409 merged, naming its survivor): that merge first', async () => {
    const { survivor, source } = await mergedPair();
    const next = await create({
      Names: { '@set': [{ first_name: 'Next', last_name: uniqueTag('n') }] },
      Emails: { '@set': [{ email: uniqueEmail('next') }] },
    });
    expect((await suite.api.merge(next.id, { source: survivor.id })).status).toBe(200);
    const refused = await suite.unchangedBy(() =>
      suite.api.unmerge(survivor.id, { source: source.id }, { requester: next.id }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      type: expect.stringMatching(/merged$/),
      errors: [{ existing: expect.stringMatching(new RegExp(`/Person/${next.id}$`)) }],
    });
    // Undone in order: the later merge, then the first.
    expect((await suite.api.unmerge(next.id, { source: survivor.id })).status).toBe(200);
    expect((await suite.api.unmerge(survivor.id, { source: source.id })).status).toBe(200);
  });

  it('refuses a returning name a third person holds now (409 duplicate-name naming it), nothing written', async () => {
    const tag = uniqueTag('d');
    const survivor = await create({
      Names: { '@set': [{ first_name: 'Mary', last_name: `Shelley${tag}` }] },
      Emails: { '@set': [{ email: uniqueEmail('mary') }] },
    });
    // Known by name alone: its name claim goes with the merge, and a namesake may take it.
    const source = await create({ Names: { '@set': [{ first_name: 'Percy', last_name: `Shelley${tag}` }] } });
    expect((await suite.api.merge(survivor.id, { source: source.id })).status).toBe(200);
    const third = await create({ Names: { '@set': [{ first_name: 'Percy', last_name: `Shelley${tag}` }] } });
    const refused = await suite.unchangedBy(() => suite.api.unmerge(survivor.id, { source: source.id }));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      type: expect.stringMatching(/duplicate-name$/),
      errors: [{ existing: expect.stringMatching(new RegExp(`/Person/${third.id}$`)) }],
    });
  });

  it('answers 410 once the survivor, and the source with it, was erased', async () => {
    const { survivor, source } = await mergedPair();
    const steward = await create({
      Names: { '@set': [{ first_name: 'Steward', last_name: uniqueTag('s') }] },
      Emails: { '@set': [{ email: uniqueEmail('steward') }] },
    });
    expect((await suite.api.erase(survivor.id)).status).toBe(200);
    const refused = await suite.unchangedBy(() =>
      suite.api.unmerge(survivor.id, { source: source.id }, { requester: steward.id }),
    );
    expect(refused.status).toBe(410);
  });

  it('undoes a merge made before records were kept, from its MERGE entries', async () => {
    const { survivor, source } = await mergedPair();
    await forgetMergeRecord(suite.table, mergedFromKey(survivor.id, source.id));
    const { status, body } = await suite.api.unmerge(survivor.id, { source: source.id });
    expect(status).toBe(200);
    expect(content(body.source)).toEqual(content(source));
    expect(content(body.survivor)).toEqual(content(survivor));
  });

  it('merges, unmerges and merges again to the same survivor', async () => {
    const { survivor, source, merged } = await mergedPair();
    expect((await suite.api.unmerge(survivor.id, { source: source.id })).status).toBe(200);
    const again = await suite.api.merge(survivor.id, { source: source.id });
    expect(again.status).toBe(200);
    expect(content(again.body)).toEqual(content(merged));
    expect((await suite.api.get(source.id)).status).toBe(301);
  });
});
