/**
 * `Idempotency-Key` outside in, over the real local server (`npm start`'s code, the handler modules as
 * deployed, wired to their production dependencies): a create whose connection dropped before its
 * answer, sent again with its key, gives one person and the first 201; every write route answers
 * a retry with the first answer; and a retry's body is compared as JSON (API.md 5.6): other white space
 * or key order is the same body, another value is 422.
 */
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { serverSuite } from '../support/server-suite';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

const server = serverSuite({ env: { ENRICHMENT: 'off' } });

/** The same JSON value written another way: keys in reverse order at every depth, and indented. */
const reserialized = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reserialized)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([name, member]) => [name, reserialized(member)]),
        )
      : value;

const sendText = (method: string, path: string, body: string, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

const write = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** What a client compares: status, the headers that name the result, and the body. */
const answerOf = async (response: Response) => ({
  status: response.status,
  location: response.headers.get('location'),
  etag: response.headers.get('etag'),
  contentType: response.headers.get('content-type'),
  replayed: response.headers.get('idempotent-replayed'),
  body: (await response.json()) as Json,
});

/** Sends a request and drops the connection without reading a byte of the answer. */
const sendAndDrop = async (method: string, path: string, body: string, headers: Record<string, string>) => {
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const head = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  await new Promise<void>((resolve) => socket.end(head + body, resolve));
  socket.destroy();
};

describe('a create retried after a dropped connection', () => {
  it('gives one person, and the retry is answered with the 201 of the first', async () => {
    const reference = uniqueTag('dropped');
    const body = {
      ...personBody('Mary', 'Somerville', uniqueEmail('dropped')),
      local_reference_id: reference,
    };
    const headers = { 'x-requester-person': '0', 'idempotency-key': `import-${reference}` };
    await sendAndDrop('POST', '/Person', JSON.stringify(body), headers);
    const count = async () =>
      ((await (await fetch(`${server.url}/Person?local_reference_id=${reference}`)).json()) as Json)
        .Pagination.count;
    // The dropped request went on and created the person: the retry below is what a client would send
    // not knowing it.
    await vi.waitFor(async () => expect(await count()).toBe(1), { timeout: 10_000, interval: 50 });

    // The first may still be running: 409 with Retry-After until it is answered.
    let retried = await write('POST', '/Person', body, headers);
    for (let attempt = 0; retried.status === 409 && attempt < 20; attempt += 1) {
      expect(((await retried.json()) as Json).type).toBe('/problems/request-in-progress');
      await new Promise((wait) => setTimeout(wait, Number(retried.headers.get('retry-after')) * 100));
      retried = await write('POST', '/Person', body, headers);
    }
    const answer = await answerOf(retried);
    expect(answer.status).toBe(201);

    const found = (await (
      await fetch(`${server.url}/Person?local_reference_id=${reference}`)
    ).json()) as Json;
    expect(found.Pagination.count).toBe(1);
    expect(found['@set'][0].id).toBe(answer.body.id);
    expect(answer.location).toBe(`${server.url}/Person/${answer.body.id}`);
    // Its only change is the create: the retry wrote nothing.
    const audit = (await (await fetch(`${server.url}/Person/${answer.body.id}/audit`)).json()) as Json;
    expect(audit.items.map((entry: Json) => entry.action)).toEqual(['create']);
    // And sent once more, the same answer.
    expect(await answerOf(await write('POST', '/Person', body, headers))).toEqual(answer);
  });
});

describe('every write route', () => {
  it('answers a retry with its key with the first answer, and the key with another body 422', async () => {
    const created = await answerOf(
      await write('POST', '/Person', personBody('Ro', 'Utes', uniqueEmail('routes')), {
        'x-requester-person': '0',
      }),
    );
    const requester = String(created.body.id);
    const abbreviation = (kind: string) => `${uniqueTag(kind)}.`;
    const prefix = await answerOf(
      await write(
        'POST',
        '/NamePrefix',
        { prefix: 'Route', abbreviation: abbreviation('P') },
        {
          'x-requester-person': requester,
        },
      ),
    );
    const suffix = await answerOf(
      await write(
        'POST',
        '/NameSuffix',
        { suffix: 'Route', abbreviation: abbreviation('S') },
        {
          'x-requester-person': requester,
        },
      ),
    );
    const writes: [string, string, Json, Json][] = [
      ['POST', '/Person', personBody('Re', 'Try', uniqueEmail('retry')), { local_reference_id: 'other' }],
      ['PATCH', `/Person/${requester}`, { local_reference_id: 'patched' }, { local_reference_id: 'other' }],
      ['POST', '/NamePrefix', { prefix: 'Keyed', abbreviation: abbreviation('KP') }, { prefix: 'Other' }],
      ['PATCH', `/NamePrefix/${prefix.body.id}`, { prefix: 'Keyed again' }, { prefix: 'Other' }],
      ['POST', '/NameSuffix', { suffix: 'Keyed', abbreviation: abbreviation('KS') }, { suffix: 'Other' }],
      ['PATCH', `/NameSuffix/${suffix.body.id}/`, { suffix: 'Keyed again' }, { suffix: 'Other' }],
    ];
    for (const [method, path, body, otherBody] of writes) {
      const headers = {
        'x-requester-person': requester,
        'idempotency-key': `${method}:${path}:${uniqueTag()}`,
      };
      const first = await answerOf(await write(method, path, body, headers));
      expect({ method, path, status: first.status }).toEqual({
        method,
        path,
        status: method === 'POST' ? 201 : 200,
      });
      expect(first.replayed).toBeNull();
      expect(await answerOf(await write(method, path, body, headers))).toEqual({
        ...first,
        replayed: 'true',
      });
      const other = await answerOf(await write(method, path, otherBody, headers));
      expect({ method, path, status: other.status, type: other.body.type }).toEqual({
        method,
        path,
        status: 422,
        type: '/problems/idempotency-key-reused',
      });
    }
  });

  it('refuses a key of 256 characters with 400 over HTTP', async () => {
    const refused = await write('POST', '/Person', personBody('Lo', 'Ng', uniqueEmail('long')), {
      'x-requester-person': '0',
      'idempotency-key': 'k'.repeat(256),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as Json).detail).toContain('Idempotency-Key');
  });
});

describe('a retry’s body, compared as JSON', () => {
  it('replays the first answer for the same value with other white space and key order, nested too, and writes nothing', async () => {
    const reference = uniqueTag('canonical');
    const body = {
      ...personBody('Sofia', 'Kovalevskaya', uniqueEmail('canonical'), uniqueEmail('second')),
      local_reference_id: reference,
    };
    const headers = { 'x-requester-person': '0', 'idempotency-key': `canonical-${reference}` };
    const first = await answerOf(await sendText('POST', '/Person', JSON.stringify(body), headers));
    expect(first.status).toBe(201);

    const spelled = {
      'indented and spaced': JSON.stringify(body, null, 2),
      'keys in reverse order at every depth': JSON.stringify(reserialized(body)),
      'both, with a trailing newline': `${JSON.stringify(reserialized(body), null, '\t')}\n`,
    };
    for (const [how, text] of Object.entries(spelled)) {
      expect(text).not.toBe(JSON.stringify(body));
      const again = await answerOf(await sendText('POST', '/Person', text, headers));
      expect({ how, ...again }).toEqual({ how, ...first, replayed: 'true' });
    }
    const found = (await (
      await fetch(`${server.url}/Person?local_reference_id=${reference}`)
    ).json()) as Json;
    expect(found.Pagination.count).toBe(1);

    // Another value is another body: an email changed deep inside, or the array's order, is 422.
    const [one, two] = body.Emails?.['@set'] ?? [];
    const others = {
      'a nested value changed': {
        ...body,
        Names: { ...body.Names, '@set': [{ ...body.Names['@set'][0], first_name: 'Sophie' }] },
      },
      'an array in another order': { ...body, Emails: { ...body.Emails, '@set': [two, one] } },
    };
    for (const [how, other] of Object.entries(others)) {
      const refused = await answerOf(
        await sendText('POST', '/Person', JSON.stringify(reserialized(other)), headers),
      );
      expect({ how, status: refused.status, type: refused.body.type }).toEqual({
        how,
        status: 422,
        type: '/problems/idempotency-key-reused',
      });
    }
  });
});
