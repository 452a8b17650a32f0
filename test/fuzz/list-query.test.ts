/**
 * GET /Person and GET /Person/{id}/audit under random query strings (filters, sort_dir, limit, offset,
 * page, perPage, unknown and prototype-named parameters, junk values), against the real handlers and
 * a real table: never a 5xx, refusals are problem+json, answers have the contract's shape, and a read
 * changes nothing.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildHandler as buildAudit } from '../../functions/list-person-audit';
import { buildHandler as buildList } from '../../functions/list-persons';
import { auditLog } from '../../lib/db/history/audit-log';
import { personList } from '../../lib/db/person/read/person-list';
import { LIST_DEFAULTS, PAGE_DEFAULTS } from '../../lib/domain/listing';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { type TestTable, testRepository } from '../support/dynamo';
import { httpEvent } from '../support/events';
import { integrationSuite } from '../support/suite';
import { listQuery, oddString, QUERY_VALUES } from './arbitraries';
import {
  call,
  expectSafeAnswer,
  fuzz,
  type Handler,
  prototypeGuard,
  REQUEST_FUZZ_RUNS,
  timeoutFor,
  type Workbench,
  workbench,
} from './harness';

const suite = integrationSuite();
const RUNS = REQUEST_FUZZ_RUNS;

const Stub = z.object({
  '@type': z.literal('Stub'),
  '@id': z.url(),
  id: z.int().positive(),
  property_name: z.literal('fullname'),
  property_value: z.string(),
  thing_type: z.literal('Person'),
});

const StubList = z.strictObject({
  '@context': z.string(),
  Pagination: z.object({
    '@type': z.literal('Pagination'),
    count: z.int().min(0),
    limit: z.int().min(0).max(LIST_DEFAULTS.maxLimit),
    offset: z.int().min(0),
  }),
  '@set': z.array(Stub),
});

const paginated = <T extends z.ZodType>(item: T) =>
  z.object({
    '@type': z.literal('PaginatedList'),
    '@id': z.url(),
    page: z.int().min(1),
    perPage: z.int().min(1).max(PAGE_DEFAULTS.maxPerPage),
    total: z.int().min(0),
    previousPage: z.url().nullable(),
    nextPage: z.url().nullable(),
    items: z.array(item),
  });

const AuditEntry = z.object({
  '@type': z.literal('AuditEntry'),
  id: z.int().positive(),
  person_id: z.int().positive(),
  action: z.enum(['create', 'update', 'enrich']),
  at: z.iso.datetime(),
  changed: z.array(z.string()),
});

/** The two handlers over a table holding persons with accents, scripts and LIKE-ish characters. */
const setup = async (table: TestTable) => {
  const api = personApi(testRepository(table));
  const ids: number[] = [];
  for (const [first, last] of [
    ['José', 'Álvarez'],
    ['jose', 'alvarez'],
    ['Zoë', 'O’Brien'],
    ['李', '小龍'],
    ['Ada', '%_*\\'],
  ] as const) {
    const { body } = await api.post(personBody(first, last, uniqueEmail('list')));
    ids.push(body.id);
  }
  await api.patch(ids[0] as number, { local_reference_id: 'changed' });
  return {
    list: buildList({ personList: personList(table) }),
    audit: buildAudit({ audit: auditLog(table) }),
    ids,
  };
};

let bench: Workbench<Awaited<ReturnType<typeof setup>>>;
const pollution = prototypeGuard();

beforeAll(async () => {
  bench = await workbench(suite.table, setup);
});
afterAll(async () => {
  await bench.close();
});

/** Calls a read handler; the answer must be safe and the table untouched. */
const read = async (
  handler: Handler,
  route: string,
  path: string,
  query: Record<string, string>,
  id?: string,
) => {
  await bench.before();
  const event = httpEvent({
    method: 'GET',
    route,
    path,
    query,
    ...(id !== undefined ? { pathParameters: { id } } : {}),
  });
  const response = await call(handler, event);
  const seen = `${path}\n${Object.entries(query).flat().join('\n')}`;
  pollution.check();
  const body = expectSafeAnswer(response, seen, bench.current.table);
  await bench.unchanged(seen);
  return { response, body };
};

const has = (query: Record<string, string>, key: string) => Object.hasOwn(query, key);

describe('fuzzing the person list and audit queries', () => {
  it(
    'answers any query string on GET /Person without a 5xx, in the shape its style asks for',
    async () => {
      await fuzz(
        'GET /Person query strings',
        listQuery,
        async (query) => {
          const { response, body } = await read(bench.current.list, '/Person', '/Person', query);
          if (response.status !== 200) {
            expect(response.status).toBe(400);
            return;
          }
          if (has(query, 'page') || has(query, 'perPage')) {
            const page = paginated(Stub).parse(body);
            expect(page.items.length).toBeLessThanOrEqual(page.perPage);
          } else {
            const stubs = StubList.parse(body);
            expect(stubs['@set']).toHaveLength(stubs.Pagination.limit);
            if (has(query, 'offset')) expect(stubs.Pagination.offset).toBe(Number(query.offset));
          }
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );

  it(
    'answers any page and perPage on GET /Person/{id}/audit without a 5xx',
    async () => {
      const value = fc.oneof(fc.constantFrom(...QUERY_VALUES), oddString);
      const query = fc
        .array(fc.tuple(fc.constantFrom('page', 'perPage', 'limit', '__proto__', 'x'), value), {
          maxLength: 3,
        })
        .map((pairs) => Object.fromEntries(pairs) as Record<string, string>);
      await fuzz(
        'GET /Person/{id}/audit query strings',
        fc.record({ query, person: fc.nat({ max: 4 }) }),
        async ({ query: parameters, person }) => {
          const id = String(bench.current.ids[person]);
          const { response, body } = await read(
            bench.current.audit,
            '/Person/{id}/audit',
            `/Person/${id}/audit`,
            parameters,
            id,
          );
          if (response.status !== 200) expect(response.status).toBe(400);
          else expect(paginated(AuditEntry).parse(body).total).toBeGreaterThanOrEqual(1);
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );
});
