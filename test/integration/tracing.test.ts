/**
 * Traces (issue #42 step 2): real handlers, run as Lambda runs them with active tracing, against
 * DynamoDB Local and the loopback enrichment provider; the segments read back from the UDP socket
 * the X-Ray SDK sends to.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CreatePersonBody } from '../../lib/domain/schemas';
import { FIXTURE_EMAILS, startFixtureProvider } from '../../lib/local/fixture-provider';
import { personBody, uniqueTag } from '../support/api';
import { createTestTable, type TestTable, testRepository } from '../support/dynamo';
import { httpEvent, personEventRecord } from '../support/events';
import { newTraceId, runTraced, type Traced, type XraySegment } from '../support/xray';

const HANDLER_SEGMENT = '## index.handler';

let table: TestTable;
let env: Record<string, string>;

beforeAll(async () => {
  table = await createTestTable();
  env = { TABLE_NAME: table.tableName, DYNAMODB_ENDPOINT: inject('dynamoEndpoint') };
});

const ofTrace = (traced: Traced, traceId: string) =>
  traced.segments.filter((segment) => segment.trace_id === traceId);
const handlerSegment = (segments: XraySegment[]) => {
  const found = segments.filter((segment) => segment.name === HANDLER_SEGMENT);
  expect(found).toHaveLength(1);
  return found[0] as XraySegment;
};
const dynamoCalls = (segments: XraySegment[]) =>
  segments.filter((segment) => segment.name === 'DynamoDB').map((segment) => segment.aws?.operation);

describe('an HTTP function, traced as deployed', () => {
  const email = `${uniqueTag('trace')}@example.org`;
  const lastName = uniqueTag('Tracy');
  let id: number;
  let traced: Traced;
  const traces = { get: newTraceId(), missing: newTraceId(), create: newTraceId() };

  beforeAll(async () => {
    ({ id } = (
      await testRepository(table).create(CreatePersonBody.parse(personBody('Ada', lastName, email)), 0)
    ).person);
    const get = (personId: string) =>
      httpEvent({
        method: 'GET',
        route: '/Person/{id}',
        path: `/Person/${personId}`,
        pathParameters: { id: personId },
      });
    traced = await runTraced(
      [
        { handler: 'get-person', event: get(String(id)), traceId: traces.get },
        { handler: 'get-person', event: get('999999999'), traceId: traces.missing },
        {
          handler: 'create-person',
          event: httpEvent({
            method: 'POST',
            route: '/Person',
            body: personBody('Grace', uniqueTag('Hopper'), `${uniqueTag('grace')}@example.org`),
            requester: 0,
          }),
          traceId: traces.create,
        },
      ],
      env,
      'get-person',
    );
  }, 60_000);

  it('answers as untraced: 200, 404, 201', () => {
    expect(traced.results.map((result) => (result as { statusCode: number }).statusCode)).toEqual([
      200, 404, 201,
    ]);
  });

  it('records each DynamoDB call as a subsegment of the handler', () => {
    const segments = ofTrace(traced, traces.get);
    const handler = handlerSegment(segments);
    const calls = segments.filter((segment) => segment.name === 'DynamoDB');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.namespace).toBe('aws');
      expect(call.parent_id ?? handler.id).toBe(handler.id);
    }
    expect(dynamoCalls(ofTrace(traced, traces.create))).toContain('TransactWriteItems');
  });

  it('annotates the route, the person and the outcome', () => {
    expect(handlerSegment(ofTrace(traced, traces.get)).annotations).toMatchObject({
      route: 'GET /Person/{id}',
      personId: String(id),
      outcome: 200,
      ColdStart: true,
      Service: 'person-service',
    });
    const create = handlerSegment(ofTrace(traced, traces.create)).annotations;
    expect(create).toMatchObject({ route: 'POST /Person', outcome: 201, ColdStart: false });
    expect(create).not.toHaveProperty('personId');
  });

  it('records a refusal (404, problem+json) as an error, not a fault', () => {
    const missing = handlerSegment(ofTrace(traced, traces.missing));
    expect(missing.annotations).toMatchObject({ outcome: 404, personId: '999999999' });
    expect(missing.error).toBe(true);
    expect(missing.fault).toBeUndefined();
    expect(missing.cause).toBeUndefined();
    const found = handlerSegment(ofTrace(traced, traces.get));
    expect([found.error, found.fault]).toEqual([undefined, undefined]);
  });

  it('records no response body and no personal data', () => {
    expect(traced.datagrams.length).toBeGreaterThan(0);
    for (const datagram of traced.datagrams) {
      expect(datagram).not.toContain('@example.org');
      expect(datagram).not.toContain(lastName);
      expect(datagram).not.toContain('Grace');
    }
    for (const segment of traced.segments) expect(segment.metadata).toBeUndefined();
  });
});

describe('a 5xx, traced', () => {
  it('is a fault with its error class', async () => {
    const traceId = newTraceId();
    const traced = await runTraced(
      [
        {
          handler: 'get-person',
          event: httpEvent({
            method: 'GET',
            route: '/Person/{id}',
            path: '/Person/1',
            pathParameters: { id: '1' },
          }),
          traceId,
        },
      ],
      { ...env, TABLE_NAME: 'no-such-table' },
    );
    expect((traced.results[0] as { statusCode: number }).statusCode).toBe(500);
    const handler = handlerSegment(ofTrace(traced, traceId));
    expect(handler.annotations).toMatchObject({ outcome: 500 });
    expect(handler.fault).toBe(true);
    expect(handler.cause?.exceptions?.[0]?.type).toBe('ResourceNotFoundException');
  }, 60_000);
});

describe('the enrichment function, traced as deployed', () => {
  let provider: Awaited<ReturnType<typeof startFixtureProvider>>;
  beforeAll(async () => {
    provider = await startFixtureProvider();
  });
  afterAll(() => provider?.stop());

  it('records the provider call once, named for it, and the batch outcome', async () => {
    const email = FIXTURE_EMAILS[0] as string;
    const { person } = await testRepository(table).create(
      CreatePersonBody.parse(personBody('Ada', uniqueTag('Lovelace'), email)),
      0,
    );
    const traceId = newTraceId();
    const traced = await runTraced(
      [
        {
          handler: 'enrich-person',
          event: { Records: [await personEventRecord(table, person.id)] },
          traceId,
        },
      ],
      { ...env, ENRICHMENT_URL: provider.url, ENRICHMENT_API_KEY: provider.apiKey },
      'enrich-person',
    );
    expect(traced.results[0]).toEqual({ batchItemFailures: [] });
    const segments = ofTrace(traced, traceId);
    const handler = handlerSegment(segments);
    expect(handler.annotations).toMatchObject({ records: 1, failed: 0 });
    const calls = segments.filter((segment) => segment.namespace === 'remote');
    expect(calls.map(({ name, annotations }) => ({ name, outcome: annotations?.outcome }))).toEqual([
      { name: 'clearbit', outcome: 'found' },
    ]);
    expect(dynamoCalls(segments).length).toBeGreaterThan(0);
    for (const datagram of traced.datagrams) expect(datagram).not.toContain(email);
  }, 60_000);
});
