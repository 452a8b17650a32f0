/**
 * No error body leaks internals (API.md 7): whatever the SDK throws (its messages name the table, the
 * account and ARNs), every handler answers with a problem+json that carries none of it: no stack
 * trace, no SDK or exception name, no table name, no `arn:`.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { buildHandler as buildGet } from '../../functions/get-person';
import { buildHandler as buildAudit } from '../../functions/list-person-audit';
import { buildHandler as buildList } from '../../functions/list-persons';
import { buildHandler as buildPrefixes } from '../../functions/list-prefixes';
import { buildHandler as buildUpdate } from '../../functions/update-person';
import { auditLog } from '../../lib/db/history/audit-log';
import { personList } from '../../lib/db/person/read/person-list';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { RESPONSE_RESERVE_MS } from '../../lib/timeouts';
import { call, expectNoLeak, expectProblem, type Handler } from '../fuzz/harness';
import { personBody, uniqueEmail } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, lambdaContext } from '../support/events';
import { injectFaults, sdkError, transactionConflict } from '../support/faults';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
let removeFaults: (() => void) | undefined;
const person = { id: 0 };
const requests = {} as Record<string, { handler: Handler; event: () => APIGatewayProxyEventV2 }>;

beforeAll(async () => {
  // Conflicts retried without waiting, so "conflicts forever" ends quickly in 503.
  const persons = testRepository(suite.table, { backoff: () => 0 });
  const created = await suite.api.post(personBody('Fault', 'Target', uniqueEmail('fault')));
  person.id = created.body.id;
  const id = String(person.id);
  const personRoute = { path: `/Person/${id}`, pathParameters: { id } };
  Object.assign(requests, {
    'POST /Person': {
      handler: buildCreate({ persons }),
      event: () =>
        httpEvent({
          method: 'POST',
          route: '/Person',
          body: personBody('New', 'Person', uniqueEmail('new')),
          requester: person.id,
        }),
    },
    'PATCH /Person/{id}': {
      handler: buildUpdate({ persons }),
      event: () =>
        httpEvent({
          method: 'PATCH',
          route: '/Person/{id}',
          ...personRoute,
          body: { Emails: { '@set': [{ email: uniqueEmail('added') }] } },
          requester: person.id,
        }),
    },
    'GET /Person/{id}': {
      handler: buildGet({ persons }),
      event: () => httpEvent({ method: 'GET', route: '/Person/{id}', ...personRoute }),
    },
    'GET /Person': {
      handler: buildList({ personList: personList(suite.table) }),
      event: () => httpEvent({ method: 'GET', route: '/Person', query: { search: 'fault' } }),
    },
    'GET /Person/{id}/audit': {
      handler: buildAudit({ audit: auditLog(suite.table) }),
      event: () =>
        httpEvent({
          method: 'GET',
          route: '/Person/{id}/audit',
          ...personRoute,
          path: `/Person/${id}/audit`,
        }),
    },
    'GET /Prefix': {
      handler: buildPrefixes({ vocabulary: vocabularyRepository(suite.table) }),
      event: () => httpEvent({ method: 'GET', route: '/Prefix' }),
    },
  });
});

afterEach(() => {
  removeFaults?.();
  removeFaults = undefined;
});

const account = '123456789012';
const tableArn = (table: string) => `arn:aws:dynamodb:eu-west-1:${account}:table/${table}`;

/** What the SDK throws, with the kind of message AWS really sends (table names, ARNs, accounts). */
const FAULTS: [string, (table: string) => Error, number][] = [
  [
    'ValidationException',
    (table) =>
      sdkError(
        'ValidationException',
        `One or more parameter values were invalid: Missing the key pk in the item (table ${table}, ${tableArn(table)})`,
      ),
    500,
  ],
  [
    'ResourceNotFoundException',
    (table) =>
      sdkError('ResourceNotFoundException', `Requested resource not found: Table: ${table} not found`),
    500,
  ],
  [
    'AccessDeniedException',
    (table) =>
      sdkError(
        'AccessDeniedException',
        `User: arn:aws:sts::${account}:assumed-role/person-service/fn is not authorized to perform: dynamodb:TransactWriteItems on resource: ${tableArn(table)}`,
      ),
    500,
  ],
  [
    'ConditionalCheckFailedException',
    (table) => sdkError('ConditionalCheckFailedException', `The conditional request failed for ${table}`),
    500,
  ],
  [
    'ItemCollectionSizeLimitExceededException',
    (table) => sdkError('ItemCollectionSizeLimitExceededException', `Collection size exceeded in ${table}`),
    500,
  ],
  [
    'ProvisionedThroughputExceededException',
    (table) =>
      sdkError(
        'ProvisionedThroughputExceededException',
        `Rate of requests exceeds the allowed throughput on ${table}`,
      ),
    503,
  ],
  [
    'ThrottlingException',
    (table) => sdkError('ThrottlingException', `Rate exceeded for ${tableArn(table)}`),
    503,
  ],
  [
    'InternalServerError',
    (table) =>
      Object.assign(sdkError('InternalServerError', `Internal server error on ${table}`), {
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
      }),
    503,
  ],
  [
    'network error (ECONNREFUSED)',
    (table) =>
      Object.assign(new Error(`connect ECONNREFUSED 10.0.0.1:443 (${table})`), {
        code: 'ECONNREFUSED',
        $metadata: {},
      }),
    503,
  ],
  [
    'TimeoutError',
    (table) => Object.assign(new Error(`Socket timed out talking to ${table}`), { name: 'TimeoutError' }),
    503,
  ],
  [
    'TypeError from a bug',
    (table) => new TypeError(`Cannot read properties of undefined (reading 'Item') at ${table}`),
    500,
  ],
];

/** Calls with every storage call failing; the answer must be the expected problem, leaking nothing. */
const expectCleanFailure = async (name: string, fault: (table: string) => Error, status: number) => {
  const { tableName } = suite.table;
  for (const [route, { handler, event }] of Object.entries(requests)) {
    const thrown = fault(tableName);
    removeFaults = injectFaults(suite.table.client, () => fault(tableName));
    const response = await call(handler, event());
    removeFaults();
    removeFaults = undefined;

    const where = `${route} under ${name}`;
    expect(response.status, where).toBe(status);
    const body = expectProblem(response);
    expectNoLeak(response.text, '', tableName);
    expect(response.text, where).not.toContain(thrown.message);
    expect(response.text, where).not.toContain(account);
    if (status === 503) expect(response.headers['retry-after'], where).toMatch(/^\d+$/);
    expect(body.detail, where).not.toMatch(/dynamo|table|sdk/i);
  }
};

describe('error bodies when storage fails', { timeout: 60_000 }, () => {
  it.each(FAULTS)(
    '%s: every handler answers with a clean problem, no internals',
    async (name, fault, status) => {
      const before = await snapshot(suite.table);
      await expectCleanFailure(name, fault, status);
      expect(await snapshot(suite.table)).toEqual(before);
    },
  );

  // An invocation with 300 ms left beyond what the response needs: the retries end as they do when a
  // full invocation's time runs out (about 29 s of spinning a route otherwise), with the same answer.
  const shortInvocation = () => ({
    ...lambdaContext(),
    getRemainingTimeInMillis: () => RESPONSE_RESERVE_MS + 300,
  });

  it('transactions that conflict forever end in a clean 503 on POST and PATCH', async () => {
    for (const route of ['POST /Person', 'PATCH /Person/{id}']) {
      const { handler, event } = requests[route] as (typeof requests)[string];
      removeFaults = injectFaults(suite.table.client, (command, input) =>
        command === 'TransactWriteItemsCommand' ? transactionConflict(input) : undefined,
      );
      const response = await call(handler, event(), shortInvocation());

      expect(response.status, route).toBe(503);
      expectProblem(response);
      expectNoLeak(response.text, '', suite.table.tableName);
      expect(response.text).not.toMatch(/TransactionConflict|cancell?ation/i);
    }
  });
});
