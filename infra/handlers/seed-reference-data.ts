/**
 * The reference-data custom resource (Provider framework `onEvent`): writes the seeded NamePrefix and
 * NameSuffix entries at deploy with the same seed function `npm start` and the tests use
 * (`seedVocabulary`, seed/seed-vocabulary.ts), so the deployed table holds exactly what
 * `SEEDED_VOCABULARY` (seed/vocabulary-seed.ts) declares, each entry with its ChangeHistory entry and
 * abbreviation claim. A stack update that changes the seed changes the resource's `DataVersion` and
 * so seeds again (only entries not there yet are written); delete leaves the data with the table. On
 * a table that holds no person yet it also marks the posting counts complete.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { documentClient } from '../../lib/db/table/client';
import { seedVocabulary } from './seed/seed-vocabulary';

export interface SeedResult {
  PhysicalResourceId: string;
}

export const buildHandler =
  ({ client }: { client: DynamoDBDocumentClient }) =>
  async (event: CloudFormationCustomResourceEvent): Promise<SeedResult> => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const tableName = event.ResourceProperties.TableName as string;
    await seedVocabulary({ client, tableName });
    // The stack's count-postings function counts the stream from its start: on a table that holds no
    // person yet, the counts are complete (lib/db/person/read/posting-counts.ts).
    await markPostingCountsIfEmpty({ client, tableName }, new Date().toISOString());
    // Stable per table: a new table (a replacement) is a new resource, the old one's delete a no-op.
    return { PhysicalResourceId: `reference-data:${tableName}` };
  };

export const handler = buildHandler({ client: documentClient() });
