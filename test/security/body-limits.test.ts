/**
 * The body limit (API.md 5.2: 256 KiB, else 413) is counted in bytes as they arrive, whatever the
 * characters or the encoding, on POST and PATCH alike; a refused body changes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { LIMITS } from '../../lib/domain/schemas';
import { call, expectProblem, type Handler } from '../fuzz/harness';
import { personBody, uniqueEmail } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent } from '../support/events';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const handlers = {} as Record<'POST' | 'PATCH', Handler>;
let target = 0;

beforeAll(async () => {
  const persons = testRepository(suite.table);
  handlers.POST = buildCreate({ persons });
  handlers.PATCH = buildUpdate({ persons });
  target = (await suite.api.post(personBody('Limit', 'Target', uniqueEmail('limit')))).body.id;
});

/** A valid body padded with white space (which JSON ignores) to exactly `bytes` bytes of UTF-8. */
const padded = (bytes: number) => {
  const text = JSON.stringify(personBody('Padded', 'Body', uniqueEmail('padded')));
  return `${text}${' '.repeat(bytes - Buffer.byteLength(text))}`;
};

/** A body whose one string is `count` copies of `character`: few characters, many bytes. */
const wide = (character: string, count: number) =>
  JSON.stringify({ ...personBody('Wide', 'Body'), local_reference_id: character.repeat(count) });

const send = async (method: 'POST' | 'PATCH', body: string, base64 = false) => {
  const id = String(target);
  const event = httpEvent({
    method,
    route: method === 'POST' ? '/Person' : '/Person/{id}',
    ...(method === 'PATCH' ? { path: `/Person/${id}`, pathParameters: { id } } : {}),
    body,
    headers: { 'content-type': 'application/json' },
    requester: method === 'POST' ? 0 : target,
  });
  if (base64) {
    event.body = Buffer.from(body, 'utf8').toString('base64');
    event.isBase64Encoded = true;
  }
  const before = await snapshot(suite.table);
  const response = await call(handlers[method], event);
  if (response.status >= 400) expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

describe.each(['POST', 'PATCH'] as const)('%s body size', { timeout: 60_000 }, (method) => {
  const accepted = method === 'POST' ? 201 : 200;

  it('accepts a body of exactly 256 KiB', async () => {
    const response = await send(method, padded(LIMITS.bodyBytes));

    expect(response.status).toBe(accepted);
  });

  it('refuses a body one byte over 256 KiB with 413 payload-too-large', async () => {
    const response = await send(method, padded(LIMITS.bodyBytes + 1));

    expect(response.status).toBe(413);
    expect(expectProblem(response).type).toBe('/problems/payload-too-large');
  });

  it('counts bytes, not characters: 140 000 two-byte characters are over the limit', async () => {
    const body = wide('é', 140_000);
    expect(body.length).toBeLessThan(LIMITS.bodyBytes);

    const response = await send(method, body);

    expect(response.status).toBe(413);
  });

  it('counts the decoded bytes of a base64-encoded body', async () => {
    expect((await send(method, padded(LIMITS.bodyBytes + 1), true)).status).toBe(413);
    expect((await send(method, padded(200_000), true)).status).toBe(accepted);
  });

  it('refuses a 10 MB body with 413 without trying to parse it', async () => {
    const response = await send(method, `[${'1,'.repeat(5_000_000)}1]`);

    expect(response.status).toBe(413);
  });
});
