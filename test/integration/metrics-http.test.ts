/**
 * Issue #42 step 4: under `npm start` the service's metrics appear as JSON lines (CloudWatch's embedded
 * metric format) on its stdout, in the local namespace, each under its catalogue name (lib/api/metrics.ts)
 * with the catalogue's unit and dimension.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_METRICS_NAMESPACE, METRICS, type MetricDefinition } from '../../lib/api/metrics';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { type MetricPoint, metricPointsOf } from '../support/metrics';
import { type ServerProcess, startServer } from '../support/server';

const CATALOGUE: Record<string, MetricDefinition> = METRICS;

let server: ServerProcess;
let stdout = '';

beforeAll(async () => {
  // The test run turns metrics off (vitest.config.ts), and the server inherits its environment.
  server = await startServer({ env: { POWERTOOLS_METRICS_DISABLED: 'false' } });
  server.process.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The metric points on stdout so far, once `wanted` are all there (the last line may still be on its way). */
const pointsWith = async (wanted: (points: MetricPoint[]) => boolean) => {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const points = metricPointsOf(stdout.slice(0, stdout.lastIndexOf('\n') + 1));
    if (wanted(points) || Date.now() > deadline) return points;
    await new Promise((wait) => setTimeout(wait, 100));
  }
};

describe('npm start: metrics in its JSON log lines', () => {
  it('writes a create, a duplicate email, a stale If-Match and a list as their metrics, with the catalogue’s names and units', async () => {
    const email = uniqueEmail('metrics');
    const created = await send('POST', '/Person', personBody('Metered', uniqueTag('Person'), email), {
      'x-requester-person': '0',
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const duplicate = await send('POST', '/Person', personBody('Other', uniqueTag('Person'), email), {
      'x-requester-person': '0',
    });
    expect(duplicate.status).toBe(409);
    const stale = await send(
      'PATCH',
      `/Person/${id}`,
      { local_reference_id: 'stale' },
      { 'x-requester-person': String(id), 'if-match': '"7"' },
    );
    expect(stale.status).toBe(412);
    const list = await send('GET', '/Person?limit=10');
    expect(list.status).toBe(200);

    const expected: { name: string; dimensions?: Record<string, string> }[] = [
      { name: 'PersonsCreated' },
      { name: 'UniquenessConflicts', dimensions: { field: 'email' } },
      { name: 'PreconditionFailures' },
      { name: 'ItemsReadPerList' },
    ];
    const has = (points: MetricPoint[], { name, dimensions = {} }: (typeof expected)[number]) =>
      points.some(
        (point) =>
          point.name === name &&
          Object.entries(dimensions).every(([key, value]) => point.dimensions[key] === value),
      );
    const points = await pointsWith((seen) => expected.every((metric) => has(seen, metric)));

    for (const metric of expected) {
      const point = points.find((candidate) => candidate.name === metric.name && has([candidate], metric));
      expect(point, metric.name).toMatchObject({
        namespace: LOCAL_METRICS_NAMESPACE,
        unit: CATALOGUE[metric.name]?.unit,
        dimensions: { service: 'person-service', ...metric.dimensions },
      });
    }
    expect(points.find(({ name }) => name === 'ItemsReadPerList')?.values[0]).toBeGreaterThan(0);

    // Every metric written is the catalogue's: its name, its unit, and no dimension it does not name.
    for (const { namespace, name, unit, dimensions } of points) {
      const definition = CATALOGUE[name];
      expect(definition, `${name} is not in lib/api/metrics.ts`).toBeDefined();
      expect({ name, namespace, unit }).toEqual({
        name,
        namespace: LOCAL_METRICS_NAMESPACE,
        unit: definition?.unit,
      });
      const { service, ...own } = dimensions;
      expect(service).toBe('person-service');
      expect(own).toEqual(
        definition?.dimension
          ? { [definition.dimension.name]: expect.toBeOneOf([...definition.dimension.values]) }
          : {},
      );
    }
  }, 60_000);
});
