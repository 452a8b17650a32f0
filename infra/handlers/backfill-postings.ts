/**
 * The search postings backfill as a one-off of the stack (custom resource, Provider framework): at
 * the deploy that adds it, the persons already stored get their postings and reference items
 * (lib/db/person/write/backfill.ts). The
 * function is both `onEvent` and `isComplete`: each call works until a minute before its timeout,
 * keeps its place in the table and says whether every segment is done, and the Provider calls again
 * until it is (up to its total timeout). A later deploy runs it again only if `BackfillVersion`
 * changes (a new version starts from the beginning); delete leaves the postings with the table.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import { backfillPostings, backfillTotals } from '../../lib/db/person/write/backfill';
import { documentClient } from '../../lib/db/table/client';
import { logger } from '../../lib/logger';

/** Scan segments worked at once. */
export const BACKFILL_SEGMENTS = 8;

/** Left of a call's time when it stops taking pages. */
const STOP_BEFORE_TIMEOUT_MS = 60_000;

export interface BackfillResult {
  PhysicalResourceId: string;
  IsComplete: boolean;
}

export const buildHandler =
  ({ client }: { client: DynamoDBDocumentClient }) =>
  async (
    event: CloudFormationCustomResourceEvent,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<BackfillResult> => {
    const tableName = event.ResourceProperties.TableName as string;
    const PhysicalResourceId = `postings-backfill:${tableName}`;
    if (event.RequestType === 'Delete') return { PhysicalResourceId, IsComplete: true };
    const segments = await backfillPostings(
      { client, tableName },
      {
        run: `stack-${event.ResourceProperties.BackfillVersion}`,
        segments: BACKFILL_SEGMENTS,
        deadline: Date.now() + context.getRemainingTimeInMillis() - STOP_BEFORE_TIMEOUT_MS,
      },
    );
    const IsComplete = segments.every((segment) => segment.done);
    logger.info('postings backfill', { tableName, ...backfillTotals(segments), complete: IsComplete });
    return { PhysicalResourceId, IsComplete };
  };

export const handler = buildHandler({ client: documentClient() });
