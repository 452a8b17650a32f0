import { afterAll, beforeAll, expect } from 'vitest';
import type { PersonRepositoryDeps } from '../../lib/db/person-repository';
import { personApi } from './api';
import { createTestTable, type TestTable, testRepository } from './dynamo';
import { checkInvariants, snapshot } from './invariants';

export interface Suite {
  table: TestTable;
  api: ReturnType<typeof personApi>;
  /** Sends a request that must be refused and checks that the table is as it was. */
  unchangedBy: <T>(request: () => Promise<T>) => Promise<T>;
}

/**
 * A table of this file's own and the handlers wired to it; after the file's tests, the invariant
 * checker must find nothing.
 */
export const integrationSuite = (deps: Partial<PersonRepositoryDeps> = {}): Suite => {
  const suite = {
    unchangedBy: async (request) => {
      const before = await snapshot(suite.table);
      const response = await request();
      expect(await snapshot(suite.table)).toEqual(before);
      return response;
    },
  } as Suite;
  beforeAll(async () => {
    suite.table = await createTestTable();
    suite.api = personApi(testRepository(suite.table, deps));
  });
  afterAll(async () => {
    expect(await checkInvariants(suite.table)).toEqual([]);
  });
  return suite;
};
