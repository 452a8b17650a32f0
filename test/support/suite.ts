import { afterAll, beforeAll, expect } from 'vitest';
import type { PersonRepositoryDeps } from '../../lib/db/person-repository';
import { personApi } from './api';
import { createTestTable, type TestTable, testRepository } from './dynamo';
import { checkInvariants } from './invariants';

export interface Suite {
  table: TestTable;
  api: ReturnType<typeof personApi>;
}

/**
 * A table of this file's own and the handlers wired to it; after the file's tests, the invariant
 * checker must find nothing.
 */
export const integrationSuite = (deps: Partial<PersonRepositoryDeps> = {}): Suite => {
  const suite = {} as Suite;
  beforeAll(async () => {
    suite.table = await createTestTable();
    suite.api = personApi(testRepository(suite.table, deps));
  });
  afterAll(async () => {
    expect(await checkInvariants(suite.table)).toEqual([]);
  });
  return suite;
};
