/**
 * Undoing a merge (API.md section 13.1), black box over real HTTP against the real local server
 * (`npm start`'s entry): every expectation here is read from API.md's text (sections 13, 13.1, 2.1, 4,
 * 5.5, 7, 14), not from the code. A merge, edits of moved items on the survivor, the unmerge; both
 * persons as they should be, their claims, their history, the feed's events, the client's own key
 * before and after, a preview, If-Match and the refusals.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { feedEventsOf, type RequestOptions, request } from '../support/http';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
let base: string;

beforeAll(() => {
  base = server.url;
});

const send = (method: string, path: string, options: Omit<RequestOptions, 'redirect'> = {}) =>
  request(base, method, path, { ...options, redirect: 'manual' });

const json = async (response: Response, status: number) => {
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
};

const create = async (body: Json) =>
  json(await send('POST', '/Person', { body: { '@type': 'Person', ...body }, requester: 0 }), 201);

const itemsOf = (container: Json | undefined): Json[] =>
  ((container?.['@set'] ?? []) as Json[]).filter(({ id }) => id !== null);

const listedIds = async (query: string) =>
  ((await json(await send('GET', `/Person?${query}`), 200))['@set'] as Json[]).map(({ id }) => id as number);

describe('POST /Person/{id}/unmerge over HTTP (API.md 13.1)', () => {
  const tag = uniqueTag('unm').toLowerCase();
  const email = (label: string) => `${label}-${tag}@example.org`;
  let survivor: Json;
  let source: Json;
  let merged: Json;

  beforeAll(async () => {
    survivor = await create({
      local_reference_id: `crm-a-${tag}`,
      Names: { '@set': [{ first_name: 'Octavia', last_name: `Ashdown${tag}` }] },
      Emails: { '@set': [{ email: email('octavia') }] },
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0101' }] },
    });
    source = await create({
      local_reference_id: `crm-b-${tag}`,
      Names: { '@set': [{ first_name: 'Bertrand', last_name: `Quill${tag}` }] },
      Emails: { '@set': [{ email: email('bertrand') }, { email: email('quill') }] },
      PhoneNumbers: { '@set': [{ phone_number: '+33 1 42 68 53 00' }] },
      SocialAddresses: { linkedin: `quill-${tag}` },
    });
    merged = await json(
      await send('POST', `/Person/${survivor.id}/merge`, {
        body: { source: source.id },
        requester: survivor.id,
      }),
      200,
    );
  });

  it('answers the survivor for the merged person’s own key while merged, once', async () => {
    expect(await listedIds(`local_reference_id=crm-b-${tag}`)).toEqual([survivor.id]);
  });

  it('refuses a stale If-Match and answers a preview, writing nothing', async () => {
    const stale = await send('POST', `/Person/${survivor.id}/unmerge`, {
      body: { source: source.id },
      requester: survivor.id,
      headers: { 'if-match': `"${survivor.CoreMetaData.version}"` },
    });
    expect(stale.status).toBe(412);
    const preview = await json(
      await send('POST', `/Person/${survivor.id}/unmerge`, {
        body: { source: source.id, preview: true },
        requester: survivor.id,
      }),
      200,
    );
    expect(preview['@type']).toBe('Unmerge');
    expect(preview.source.id).toBe(source.id);
    expect((await send('GET', `/Person/${source.id}`)).status).toBe(301);
    expect(await json(await send('GET', `/Person/${survivor.id}`), 200)).toEqual(merged);
  });

  describe('after edits of moved items on the survivor', () => {
    let undone: Json;
    let movedPhone: Json;
    let added: string;

    beforeAll(async () => {
      // Edit the moved phone, delete one moved email, add an email of the survivor's own.
      movedPhone = itemsOf(source.PhoneNumbers)[0] as Json;
      const deleted = itemsOf(source.Emails).find((item) => item.email === email('quill')) as Json;
      added = email('octavia-work');
      const patched = await json(
        await send('PATCH', `/Person/${survivor.id}`, {
          body: {
            PhoneNumbers: { '@set': [{ id: movedPhone.id, phone_number: '+33 1 42 68 53 99' }] },
            Emails: { '@set': [{ id: deleted.id }, { email: added }] },
          },
          requester: survivor.id,
        }),
        200,
      );
      const response = await send('POST', `/Person/${survivor.id}/unmerge`, {
        body: { source: source.id },
        requester: survivor.id,
        headers: { 'if-match': `"${patched.CoreMetaData.version}"` },
      });
      undone = await json(response, 200);
      expect(response.headers.get('etag')).toBe(`"${patched.CoreMetaData.version + 1}"`);
      expect(undone.survivor.CoreMetaData.version).toBe(patched.CoreMetaData.version + 1);
    });

    it('answers both persons as GET now shows them', async () => {
      expect(undone['@type']).toBe('Unmerge');
      expect(await json(await send('GET', `/Person/${survivor.id}`), 200)).toEqual(undone.survivor);
      expect(await json(await send('GET', `/Person/${source.id}`), 200)).toEqual(undone.source);
      expect(undone.source.CoreMetaData.version).toBe(source.CoreMetaData.version + 2);
    });

    it('gives the source its items back as the survivor held them, and its names, key and social values', () => {
      const back = undone.source;
      expect(itemsOf(back.Names).map(({ id, first_name }) => [id, first_name])).toEqual(
        itemsOf(source.Names).map(({ id, first_name }) => [id, first_name]),
      );
      expect(itemsOf(back.PhoneNumbers)).toEqual([
        expect.objectContaining({
          id: movedPhone.id,
          phone_number: '+33 1 42 68 53 99',
          primary: movedPhone.primary,
        }),
      ]);
      expect(itemsOf(back.Emails).map(({ email: address }) => address)).toEqual([email('bertrand')]);
      expect(back.local_reference_id).toBe(`crm-b-${tag}`);
      expect(back.SocialAddresses.linkedin).toBe(`quill-${tag}`);
      expect(back.fullname).toBe(source.fullname);
    });

    it('leaves the survivor its own items and what was added after the merge, and no value taken from the source', () => {
      const kept = undone.survivor;
      expect(itemsOf(kept.Emails).map(({ email: address }) => address)).toEqual([email('octavia'), added]);
      expect(itemsOf(kept.PhoneNumbers)).toEqual(itemsOf(survivor.PhoneNumbers));
      expect(itemsOf(kept.Names)).toEqual(itemsOf(survivor.Names));
      expect(kept.SocialAddresses.linkedin).toBeNull();
    });

    it('gives the returning email back to the source: another person may not take it', async () => {
      const taken = await send('POST', '/Person', {
        body: {
          Names: { '@set': [{ first_name: 'Other', last_name: `Taker${tag}` }] },
          Emails: { '@set': [{ email: email('bertrand') }] },
        },
        requester: 0,
      });
      const problem = await json(taken, 409);
      expect(problem.type).toBe('/problems/duplicate-email');
      expect(JSON.stringify(problem)).toContain(`${base}/Person/${source.id}`);
    });

    it('writes an UNMERGE entry on each, and the feed carries person.unmerged and person.updated', async () => {
      for (const id of [survivor.id, source.id]) {
        const history = await json(
          await send('GET', `/ChangeHistory?endpoint=Person&object_id=${id}&limit=100`),
          200,
        );
        expect(history['@set'][0]).toMatchObject({ type: 'UNMERGE' });
      }
      const sourceEvents = await feedEventsOf(base, `Person/${source.id}`, 'person.unmerged');
      expect(sourceEvents.map(({ type }) => type)).toEqual([
        'person.created',
        'person.merged',
        'person.unmerged',
      ]);
      const unmerged = sourceEvents.at(-1) as Json;
      expect(unmerged.data.version).toBe(undone.source.CoreMetaData.version);
      const survivorEvents = await feedEventsOf(base, `Person/${survivor.id}`, 'person.updated');
      const last = survivorEvents.at(-1) as Json;
      expect(last.type).toBe('person.updated');
      expect(last.data.version).toBe(undone.survivor.CoreMetaData.version);
    });

    it('answers the source again, not the survivor, for its own key', async () => {
      expect(await listedIds(`local_reference_id=crm-b-${tag}`)).toEqual([source.id]);
      expect(await listedIds(`local_reference_id=crm-a-${tag}`)).toEqual([survivor.id]);
    });

    it('refuses the same unmerge again: the source is not merged into this person (409 not-merged)', async () => {
      const again = await send('POST', `/Person/${survivor.id}/unmerge`, {
        body: { source: source.id },
        requester: survivor.id,
      });
      const problem = await json(again, 409);
      expect(problem.type).toBe('/problems/not-merged');
      expect(problem).toMatchObject({ status: 409, detail: expect.any(String) });
      expect(problem).not.toHaveProperty('stack');
    });
  });
});
