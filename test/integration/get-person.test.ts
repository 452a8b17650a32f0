import { describe, expect, it } from 'vitest';
import { PersonOut } from '../../lib/domain/schemas';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { injectFaults, sdkError } from '../support/faults';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

describe('GET /Person/{id}', () => {
  it('returns the full Person with its strong ETag', async () => {
    const created = await suite.api.post(personBody('Get', uniqueTag('Me'), uniqueEmail()));
    const { status, headers, body } = await suite.api.get(created.body.id);
    expect(status).toBe(200);
    expect(headers.etag).toBe('"1"');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(PersonOut.parse(body)).toEqual(created.body);
  });

  it('answers If-None-Match with the current ETag with 304 and no body', async () => {
    const created = await suite.api.post(personBody('Cache', uniqueTag('Me')));
    const { status, headers, body } = await suite.api.get(created.body.id, { 'if-none-match': '"1"' });
    expect(status).toBe(304);
    expect(headers.etag).toBe('"1"');
    expect(body).toBeUndefined();
    expect((await suite.api.get(created.body.id, { 'if-none-match': '"0"' })).status).toBe(200);
  });

  it.each(['W/"1"', '*', '"0", "1"', '"7", W/"1"'])(
    'answers If-None-Match %s (weak, any, or a list holding the current ETag) with 304',
    async (header) => {
      const created = await suite.api.post(personBody('Weak', uniqueTag('Tag')));
      const { status, headers } = await suite.api.get(created.body.id, { 'if-none-match': header });
      expect(status).toBe(304);
      expect(headers.etag).toBe('"1"');
    },
  );

  it('answers If-None-Match of other versions only, weak or strong, with 200', async () => {
    const created = await suite.api.post(personBody('Other', uniqueTag('Tag')));
    const { status } = await suite.api.get(created.body.id, { 'if-none-match': 'W/"2", "0"' });
    expect(status).toBe(200);
  });

  it('shows the ETag of the latest version after a PATCH', async () => {
    const created = await suite.api.post(personBody('Ver', uniqueTag('Sion')));
    await suite.api.patch(created.body.id, { local_reference_id: 'v2' });
    const { headers, body } = await suite.api.get(created.body.id);
    expect(headers.etag).toBe('"2"');
    expect(body.CoreMetaData.version).toBe(2);
  });

  it('answers in application/ld+json when Accept prefers it', async () => {
    const created = await suite.api.post(personBody('Ld', uniqueTag('Get')));
    const { headers } = await suite.api.get(created.body.id, {
      accept: 'application/ld+json, application/json;q=0.5',
    });
    expect(headers['content-type']).toBe('application/ld+json; charset=utf-8');
  });

  it.each(['987654321', '-1', '0', 'abc', '1e3', '0x10', '%2e%2e', '1'.repeat(40)])(
    '404 not-found as problem+json for id %s',
    async (id) => {
      const { status, headers, body } = await suite.api.get(id);
      expect(status).toBe(404);
      expect(headers['content-type']).toBe('application/problem+json');
      expect(body).toMatchObject({ type: '/problems/not-found', status: 404, instance: `/Person/${id}` });
    },
  );

  it('503 unavailable with Retry-After when storage throttles, without leaking the SDK message', async () => {
    const created = await suite.api.post(personBody('Throt', uniqueTag('Tled')));
    const remove = injectFaults(suite.table.client, (command) =>
      command === 'GetItemCommand'
        ? sdkError(
            'ProvisionedThroughputExceededException',
            `Rate exceeded for table ${suite.table.tableName}`,
          )
        : undefined,
    );
    try {
      const { status, headers, body } = await suite.api.get(created.body.id);
      expect(status).toBe(503);
      expect(headers['retry-after']).toBe('1');
      expect(body).toMatchObject({ type: '/problems/unavailable', status: 503 });
      expect(JSON.stringify(body)).not.toContain(suite.table.tableName);
    } finally {
      remove();
    }
  });

  it('503 when storage is unreachable', async () => {
    const created = await suite.api.post(personBody('Net', uniqueTag('Work')));
    const remove = injectFaults(suite.table.client, () =>
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
    );
    try {
      expect((await suite.api.get(created.body.id)).status).toBe(503);
    } finally {
      remove();
    }
  });

  it('500 internal-error that says nothing of the cause for an unexpected storage error', async () => {
    const created = await suite.api.post(personBody('Inter', uniqueTag('Nal')));
    const secret = `ValidationException: One or more parameter values were invalid for table ${suite.table.tableName}`;
    const remove = injectFaults(suite.table.client, () => sdkError('ValidationException', secret));
    try {
      const { status, body } = await suite.api.get(created.body.id);
      expect(status).toBe(500);
      expect(body).toEqual({
        type: '/problems/internal-error',
        title: 'Internal error',
        status: 500,
        detail: expect.any(String),
        instance: `/Person/${created.body.id}`,
      });
      expect(JSON.stringify(body)).not.toMatch(/ValidationException|test-|at .*\.ts/);
    } finally {
      remove();
    }
  });
});
