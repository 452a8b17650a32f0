/**
 * Erasure (API.md section 15), black box over real HTTP against the real local server (`npm start`'s
 * entry): every expectation here is read from API.md's text (sections 15, 7, 14, 2.1, 5.5, 13), not
 * from the code. The 200 with the tombstone, GET and HEAD 410 with it, a second DELETE the same, the
 * email free again, the writes refused 410, the ERASE entry, and `person.erased` on the feed.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueTag } from '../support/api';
import { feedEventsOf, type RequestOptions, request } from '../support/http';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

// Every log line the service writes, down to DEBUG, is kept: none may hold an erased person's values.
const server = serverSuite({ env: { ENRICHMENT: 'off', POWERTOOLS_LOG_LEVEL: 'DEBUG' } });
let base: string;

beforeAll(() => {
  base = server.url;
});

const send = (method: string, path: string, options: Omit<RequestOptions, 'redirect'> = {}) =>
  request(base, method, path, { ...options, redirect: 'manual' });

/** Every tag a person of this file was created with: values its logs must never hold. */
const tags: string[] = [];

const create = async (tag: string) => {
  tags.push(tag);
  const response = await send('POST', '/Person', {
    requester: 0,
    body: {
      '@type': 'Person',
      local_reference_id: `crm-${tag}`,
      Names: { '@type': 'Names', '@set': [{ first_name: 'Erin', last_name: `Erased${tag}` }] },
      Emails: { '@type': 'Emails', '@set': [{ email: `${tag}@example.org` }] },
      PhoneNumbers: { '@type': 'PhoneNumbers', '@set': [{ phone_number: '+1 555 0100' }] },
    },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Json;
};

describe('DELETE /Person/{id} over HTTP (API.md 15)', () => {
  it('erases the person: 200 with the tombstone, then GET and HEAD 410, a second DELETE the same 200', async () => {
    const tag = uniqueTag('http').toLowerCase();
    const person = await create(tag);
    const erased = await send('DELETE', `/Person/${person.id}`, { requester: person.id });
    expect(erased.status).toBe(200);
    const tombstone = (await erased.json()) as Json;
    expect(tombstone).toMatchObject({
      '@type': 'Person',
      '@id': `${base}/Person/${person.id}`,
      id: person.id,
      CoreMetaData: {
        date_created: person.CoreMetaData.date_created,
        version: person.CoreMetaData.version + 1,
        live_status: 0,
      },
    });
    expect(typeof tombstone.CoreMetaData.erased).toBe('string');
    expect(typeof tombstone.CoreMetaData.date_modified).toBe('string');
    expect(JSON.stringify(tombstone).toLowerCase()).not.toContain(tag);

    const read = await send('GET', `/Person/${person.id}`);
    expect(read.status).toBe(410);
    expect(await read.json()).toEqual(tombstone);
    const head = await send('HEAD', `/Person/${person.id}`);
    expect(head.status).toBe(410);
    expect(await head.text()).toBe('');

    const again = await send('DELETE', `/Person/${person.id}`, { requester: person.id });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(tombstone);
  });

  it('frees the email for a new person, refuses writes of the id 410 `erased`, and leaves the lists', async () => {
    const tag = uniqueTag('free').toLowerCase();
    const person = await create(tag);
    const other = await create(uniqueTag('other').toLowerCase());
    expect((await send('DELETE', `/Person/${person.id}`, { requester: other.id })).status).toBe(200);

    const patched = await send('PATCH', `/Person/${person.id}`, {
      requester: other.id,
      body: { local_reference_id: 'again' },
    });
    expect(patched.status).toBe(410);
    expect(patched.headers.get('content-type')).toContain('application/problem+json');
    expect(((await patched.json()) as Json).type).toMatch(/\/problems\/erased$/);
    const merged = await send('POST', `/Person/${other.id}/merge`, {
      requester: other.id,
      body: { source: person.id },
    });
    expect(merged.status).toBe(410);

    for (const query of [`last_name=Erased${tag}`, `local_reference_id=crm-${tag}`]) {
      const list = (await (await send('GET', `/Person?${query}`)).json()) as Json;
      expect(list['@set'], query).toEqual([]);
      expect(list.Pagination.count, query).toBe(0);
    }
    const recreated = await create(tag);
    expect(recreated.id).not.toBe(person.id);
  });

  it('writes one ERASE ChangeHistory entry and puts person.erased on the feed, both with nothing personal', async () => {
    const tag = uniqueTag('feed').toLowerCase();
    const person = await create(tag);
    expect((await send('DELETE', `/Person/${person.id}`, { requester: person.id })).status).toBe(200);
    const history = (await (
      await send('GET', `/ChangeHistory?endpoint=Person&object_id=${person.id}&limit=100`)
    ).json()) as Json[] | Json;
    const entries: Json[] = Array.isArray(history) ? history : history['@set'];
    const erase = entries.filter((entry) => entry.type === 'ERASE');
    expect(erase).toHaveLength(1);
    expect(erase[0]).toMatchObject({ object_id: person.id, person_fk: person.id });
    expect(JSON.stringify({ ...erase[0], previous_object: null }).toLowerCase()).not.toContain(tag);

    const events = await feedEventsOf(base, `Person/${person.id}`, 'person.erased');
    const [erasedEvent, ...more] = events.filter((event) => event.type === 'person.erased');
    expect(more).toEqual([]);
    expect(erasedEvent?.data).toMatchObject({ id: person.id, version: person.CoreMetaData.version + 1 });
    expect(JSON.stringify(erasedEvent).toLowerCase()).not.toContain(tag);
  });

  it('answers a replay of the keyed create of an erased person 410 `erased`, and creates no one', async () => {
    const tag = uniqueTag('keyed').toLowerCase();
    tags.push(tag);
    const body = {
      '@type': 'Person',
      Names: { '@type': 'Names', '@set': [{ first_name: 'Kay', last_name: `Keyed${tag}` }] },
      Emails: { '@type': 'Emails', '@set': [{ email: `${tag}@example.org` }] },
    };
    const post = () =>
      send('POST', '/Person', { requester: 0, body, headers: { 'idempotency-key': `k-${tag}` } });
    const created = await post();
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as Json;
    expect((await post()).headers.get('idempotent-replayed')).toBe('true');
    expect((await send('DELETE', `/Person/${id}`, { requester: id })).status).toBe(200);
    const replay = await post();
    expect(replay.status).toBe(410);
    expect(((await replay.json()) as Json).type).toMatch(/\/problems\/erased$/);
    const list = (await (await send('GET', `/Person?last_name=Keyed${tag}`)).json()) as Json;
    expect(list['@set']).toEqual([]);
  });

  it('logs none of the values of the persons it erased: the log lines of this whole run hold no tag', async () => {
    const output = server.output().toLowerCase();
    expect(output).toContain('"status":200');
    expect(tags.length).toBeGreaterThan(3);
    expect(tags.filter((tag) => output.includes(tag))).toEqual([]);
  });

  it('answers DELETE of an unknown person 404 and a request without a requester 400', async () => {
    const person = await create(uniqueTag('norequester').toLowerCase());
    expect((await send('DELETE', '/Person/99999999', { requester: person.id })).status).toBe(404);
    expect((await send('DELETE', `/Person/${person.id}`)).status).toBe(400);
    expect((await send('GET', `/Person/${person.id}`)).status).toBe(200);
  });
});
