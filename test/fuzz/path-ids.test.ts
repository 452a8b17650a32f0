/**
 * Random path ids (`-1`, `1e3`, `0x10`, `%2e%2e`, 40 digits, Unicode, ...) on GET /Person/{id},
 * GET /Person/{id}/audit and PATCH /Person/{id}, against the real handlers and a real table: an id
 * that is not a positive integer names no person (404), never a 5xx, and nothing changes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildGet } from '../../functions/get-person';
import { buildHandler as buildAudit } from '../../functions/list-person-audit';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { auditLog } from '../../lib/db/history/audit-log';
import { PersonOut } from '../../lib/domain/schemas';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { type TestTable, testRepository } from '../support/dynamo';
import { httpEvent } from '../support/events';
import { integrationSuite } from '../support/suite';
import { pathIdJunk } from './arbitraries';
import {
  call,
  expectSafeAnswer,
  fuzz,
  type Handler,
  prototypeGuard,
  timeoutFor,
  type Workbench,
  workbench,
} from './harness';

const suite = integrationSuite();
const RUNS = 300;

/** The three handlers over a table with one person, whose id and Name id the fuzzer may pick. */
const setup = async (table: TestTable) => {
  const persons = testRepository(table);
  const { body } = await personApi(persons).post(personBody('Path', 'Finder', uniqueEmail('path')));
  return {
    handlers: {
      get: buildGet({ persons }),
      audit: buildAudit({ audit: auditLog(table) }),
      patch: buildUpdate({ persons }),
    } as Record<'get' | 'audit' | 'patch', Handler>,
    person: body.id,
    nameId: (body.Names['@set'][0] as { id: number }).id,
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

/** Ids: junk, the real person's id, a Name's id (real, but not a person) and one never handed out. */
const pathId = fc.oneof(
  { weight: 6, arbitrary: pathIdJunk },
  { weight: 1, arbitrary: fc.constantFrom('person', 'nameId', 'unused') },
);

const ROUTES = {
  get: { method: 'GET', route: '/Person/{id}', suffix: '' },
  audit: { method: 'GET', route: '/Person/{id}/audit', suffix: '/audit' },
  patch: { method: 'PATCH', route: '/Person/{id}', suffix: '' },
} as const;

/** The path as a client would send it; a lone surrogate cannot be percent-encoded and goes as it is. */
const encoded = (id: string) => {
  try {
    return encodeURIComponent(id);
  } catch {
    return id;
  }
};

const isPositiveInteger = (id: string) => /^[1-9]\d{0,15}$/.test(id) && Number.isSafeInteger(Number(id));

describe('fuzzing path ids', () => {
  it(
    'answers any path id on GET, audit and PATCH without a 5xx; one that is not a positive integer is 404',
    async () => {
      await fuzz(
        'path ids',
        fc.record({
          id: pathId,
          operation: fc.constantFrom('get', 'audit', 'patch') as fc.Arbitrary<keyof typeof ROUTES>,
        }),
        async ({ id: chosen, operation }) => {
          await bench.before();
          const { handlers, person, nameId, table } = bench.current;
          const named: Record<string, number> = { person, nameId, unused: 999_999_999 };
          const id = Object.hasOwn(named, chosen) ? String(named[chosen]) : chosen;
          const { method, route, suffix } = ROUTES[operation];
          const path = `/Person/${encoded(id)}${suffix}`;
          const response = await call(
            handlers[operation],
            httpEvent({
              method,
              route,
              path,
              pathParameters: { id },
              ...(method === 'PATCH'
                ? { body: { local_reference_id: `path-${id.length}` }, requester: person }
                : {}),
            }),
          );
          const seen = `${path}\n${id}`;
          pollution.check();
          const body = expectSafeAnswer(response, seen, table);
          if (method === 'GET') await bench.unchanged(seen);
          else await bench.after(response.status, seen);

          if (!isPositiveInteger(id) || chosen === 'nameId' || chosen === 'unused') {
            expect(response.status, `id ${JSON.stringify(id)} names no person`).toBe(404);
            expect((body as { type: string }).type).toBe('/problems/not-found');
          } else if (operation !== 'audit' && response.status === 200) {
            expect(PersonOut.parse(body).id).toBe(Number(id));
          }
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );
});
