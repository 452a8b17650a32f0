/**
 * Sending a write with its search postings (`postings.ts` builds them, `write/send.ts` sends each
 * transaction): the prelude that puts the `POSTINGS` item before a write with no room for it, its undo
 * when the write then does not land, and the chain of postings that did not fit, sent after it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { logger as defaultLogger } from '../../../logger';
import { storageCall } from '../../table/storage-errors';
import { transactionOf, type WriteTransaction } from '../../write/actions';
import { type RetryOptions, retrying, sendWrite } from '../../write/send';
import type { PersonWrite } from './person-write';
import { tokenRelease } from './postings';

/**
 * How a chain of postings ended: all sent, taken over by a later write of the person, or stopped
 * where the next transaction would not end before `until`.
 */
export type ChainOutcome = 'done' | 'taken over' | 'out of time';

/**
 * Sends the transactions of a chain of postings (`postings.ts`) once its write has landed, in order. A
 * transaction whose token (or guard) no longer holds means a later write took the postings over: the
 * chain stops there, its work is that write's. One that meets a concurrent transaction is sent again
 * until the deadline; any other failure is thrown, and the `POSTINGS` item stays for the next write.
 * With `until` (a request's answer is due), the chain also stops, its item left the same way, where
 * the next transaction, taking as long as the last, would end after it: the write has landed, and a
 * request that runs out of time is answered by no one.
 */
export const sendChain = async (
  client: DynamoDBDocumentClient,
  chain: readonly WriteTransaction[],
  retry: RetryOptions,
  until = Number.POSITIVE_INFINITY,
): Promise<ChainOutcome> => {
  let last = 0;
  for (const { input, roles } of chain) {
    if (Date.now() + last > until) return 'out of time';
    const started = Date.now();
    const outcome = await retrying(retry, async () => {
      try {
        await storageCall(() => client.send(new TransactWriteCommand(input)));
        return 'sent';
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        const lost = reasons.some(
          (reason, index) => reason.Code === 'ConditionalCheckFailed' && roles[index]?.kind !== 'posting',
        );
        if (lost) return 'taken over';
        if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return undefined;
        throw error;
      }
    });
    if (outcome === 'taken over') return outcome;
    last = Date.now() - started;
  }
  return 'done';
};

/** What `sendWithPostings` needs besides the write: its chains' token, and how long it may retry. */
export interface PostingsSendOptions {
  tableName: string;
  /** Names the write's chains, should it need them. */
  token: string;
  retry: RetryOptions;
  logger: Pick<typeof defaultLogger, 'warn'>;
}

/**
 * Sends a write with its postings: the `POSTINGS` item first when the write has no room for it, the
 * postings that do not fit after it. A chain that fails leaves the item for the person's next write
 * (or `npm run backfill`): the write has landed, so the request still succeeds. True when the write
 * landed, false when it met a concurrent write and should be retried.
 */
export const sendWithPostings = async (
  client: DynamoDBDocumentClient,
  { prelude, write: transaction, chain, preluded, chained }: PersonWrite,
  { tableName, token, retry, logger }: PostingsSendOptions,
): Promise<boolean> => {
  if (prelude && !(await sendWrite(client, prelude))) return false;
  // A write that does not land changes nothing: the POSTINGS items its prelude put go again (one
  // that was there before stays, with the terms of both: the postings are as unfinished as they were).
  const unprelude = async () => {
    if (preluded.length > 0)
      await sendWrite(
        client,
        transactionOf(preluded.map((personId) => tokenRelease(tableName, personId, token))),
      ).catch(() => undefined);
  };
  const landed = await sendWrite(client, transaction).catch(async (error: unknown) => {
    await unprelude();
    throw error;
  });
  if (!landed) {
    await unprelude();
    return false;
  }
  if (chain.length > 0) {
    const outcome = await sendChain(client, chain, retry, retry.deadline).catch((error: unknown) => {
      logger.warn('postings left pending', { personIds: chained, error });
      return 'failed';
    });
    if (outcome === 'out of time') logger.warn('postings left pending', { personIds: chained, outcome });
  }
  return true;
};
