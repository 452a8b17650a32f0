/**
 * What a client reads when its request is refused (API.md 2 and 2.1), over real HTTP against the local
 * server (`npm start`'s entry): a body that is not UTF-8 is refused and nothing is stored, other patch
 * formats are 415 naming the media types this API takes, a JSON Patch document sent as JSON and an
 * empty body say what to send instead, and unknown query parameters name the accepted ones.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { NAME_REQUIRED } from '../../lib/domain/schemas';
import { personBody, uniqueEmail } from '../support/api';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

const server = serverSuite({ env: { ENRICHMENT: 'off' } });
const person = { id: 0 };

const send = async (
  method: string,
  path: string,
  body?: string | Uint8Array,
  headers: Record<string, string> = {},
) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-requester-person': method === 'POST' ? '0' : String(person.id), ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as Json };
};

const json = { 'content-type': 'application/json' };

/** What a refused write must leave as it was: the person list, the change history, the person. */
const state = async () => {
  const listed = await send('GET', '/Person?limit=0');
  const history = await send('GET', '/ChangeHistory?perPage=1');
  const stored = await fetch(`${server.url}/Person/${person.id}`);
  return {
    persons: listed.body.Pagination.count as number,
    changes: history.body.total as number,
    etag: stored.headers.get('etag'),
    person: await stored.json(),
  };
};

beforeAll(async () => {
  const created = await send(
    'POST',
    '/Person',
    JSON.stringify(personBody('Refusal', 'Target', uniqueEmail('refusal'))),
    json,
  );
  expect(created.status).toBe(201);
  person.id = created.body.id;
});

describe('a body that is not valid UTF-8', () => {
  const withBadBytes = (text: string) => {
    const [before, after] = text.split('BAD') as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);
  };

  it('is 400 on POST and nothing is stored, not Bad\ufffd\ufffd', async () => {
    const before = await state();

    const response = await send(
      'POST',
      '/Person',
      withBadBytes('{"Names": {"@set": [{"first_name": "BadBAD", "last_name": "Bytes"}]}}'),
      json,
    );

    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      type: '/problems/validation-error',
      detail: 'The body is not valid UTF-8: send JSON text encoded as UTF-8',
    });
    expect(await state()).toEqual(before);
    expect((await send('GET', '/Person?last_name=bytes')).body.Pagination.count).toBe(0);
  });

  it('is 400 on PATCH and the person is unchanged', async () => {
    const before = await state();

    const response = await send(
      'PATCH',
      `/Person/${person.id}`,
      withBadBytes('{"local_reference_id": "refBAD"}'),
      json,
    );

    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/not valid UTF-8/);
    expect(await state()).toEqual(before);
  });

  it('still stores valid multi-byte UTF-8 as sent', async () => {
    const response = await send(
      'PATCH',
      `/Person/${person.id}`,
      Buffer.from(JSON.stringify({ local_reference_id: 'Zoë-李-𝄞' }), 'utf8'),
      json,
    );

    expect(response.status).toBe(200);
    expect(response.body.local_reference_id).toBe('Zoë-李-𝄞');
  });
});

describe('other media types', () => {
  it.each([
    ['application/json-patch+json', /does not take JSON Patch: send the changed object itself/],
    ['application/merge-patch+json', /does not take JSON Merge Patch: send the changed object itself/],
  ])('a PATCH as %s is 415 naming the accepted media types, with Accept-Patch', async (type, detail) => {
    const before = await state();

    const response = await send('PATCH', `/Person/${person.id}`, '{"local_reference_id": "x"}', {
      'content-type': type,
    });

    expect(response.status).toBe(415);
    expect(response.body.type).toBe('/problems/unsupported-media-type');
    expect(response.body.detail).toMatch(detail);
    expect(response.body.detail).toMatch(/application\/json or application\/ld\+json/);
    expect(response.headers.get('accept-patch')).toBe('application/json, application/ld+json');
    expect(await state()).toEqual(before);
  });

  it('a POST as text/plain is 415 naming the accepted media types', async () => {
    const response = await send('POST', '/Person', '{}', { 'content-type': 'text/plain' });

    expect(response.status).toBe(415);
    expect(response.body.detail).toBe('Send the body as application/json or application/ld+json');
    expect(response.headers.get('accept-patch')).toBeNull();
  });
});

describe('a JSON Patch document sent as application/json', () => {
  it('is 400 saying this API takes the changed object, and changes nothing', async () => {
    const before = await state();
    const document = [{ op: 'replace', path: '/Emails/@set/0/email', value: uniqueEmail('patched') }];

    const response = await send('PATCH', `/Person/${person.id}`, JSON.stringify(document), json);

    expect(response.status).toBe(400);
    expect(response.body.type).toBe('/problems/validation-error');
    expect(response.body.detail).toMatch(/does not take JSON Patch/);
    expect(response.body.detail).toContain('{"Emails": {"@set": [ ... ]}}');
    expect(JSON.stringify(response.body)).not.toMatch(/expected object|received array/);
    expect(await state()).toEqual(before);
  });
});

describe('bodies that say nothing', () => {
  it.each([
    ['POST', 'no body at all', undefined],
    ['POST', 'blanks only', '  \n '],
    ['PATCH', 'no body at all', undefined],
  ])('a %s with %s says the body is empty', async (method, _, body) => {
    const path = method === 'POST' ? '/Person' : `/Person/${person.id}`;

    const response = await send(method, path, body, json);

    expect(response.status).toBe(400);
    expect(response.body.detail).toBe('The body is empty: send a JSON object');
  });

  it.each([
    ['{}', {}],
    ['an empty @set of Names', { Names: { '@set': [] } }],
    ['only example Names', { Names: { '@set': [{ '@type': 'Name', first_name: null, last_name: null }] } }],
  ])('a POST of %s says a Person needs at least one Name, at /Names', async (_, body) => {
    const response = await send('POST', '/Person', JSON.stringify(body), json);

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: '/Names', message: NAME_REQUIRED }]);
  });

  it('Names sent as an array says it takes {"@set": [...]}', async () => {
    const response = await send(
      'POST',
      '/Person',
      JSON.stringify({ Names: [{ first_name: 'Ada', last_name: 'Lovelace' }] }),
      json,
    );

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      { path: '/Names', message: 'Names takes {"@type": "Names", "@set": [ ... ]}, not an array' },
    ]);
  });
});

describe('unknown query parameters', () => {
  it('GET /Person?firstname=ada names the parameters GET /Person accepts', async () => {
    const response = await send('GET', '/Person?firstname=ada');

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        path: '/firstname',
        message: expect.stringMatching(
          /^firstname is not a query parameter of this route; it accepts first_name, last_name, email, search, .*sort_dir, limit, offset, page, perPage$/,
        ),
      },
    ]);
  });
});
