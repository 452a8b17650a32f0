/**
 * Sending the versioned write every resource shares (its actions are built in `actions.ts`):
 * a cancellation read back into domain errors, retries with backoff until the request's deadline, and
 * the in-process queue of one object's writes.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  PreconditionFailed,
  RequesterMerged,
  ServiceUnavailable,
  ValidationFailed,
} from '../../domain/errors';
import { type Preconditions, refusalOf } from '../../domain/preconditions';
import { addMetric } from '../../metrics';
import { storageCall } from '../table/storage-errors';
import { MAX_TRANSACTION_ACTIONS, type WriteTransaction } from './actions';
import { decodeCancellation } from './cancellation';

/** Sends a write; true when it landed, false when it met a concurrent write and should be retried. */
export const sendWrite = async (client: DynamoDBDocumentClient, { input, roles }: WriteTransaction) => {
  if (roles.length > MAX_TRANSACTION_ACTIONS) {
    throw new ValidationFailed(
      [{ path: '', message: 'The request changes more than one write can hold: split it over several' }],
      'The request changes more than one write can hold',
    );
  }
  try {
    await storageCall(() => client.send(new TransactWriteCommand(input)));
    return true;
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const outcome = decodeCancellation(error.CancellationReasons ?? [], roles);
    if (!outcome) throw error;
    if (outcome.retry) return false;
    throw outcome.error;
  }
};

/** Full jitter, capped: spreads colliding writers apart without long waits. */
export const jitteredBackoff = (attempt: number) => Math.random() * Math.min(1_000, 10 * 2 ** attempt);

/**
 * Refuses a write whose conditions do not hold for the version it would land on (`object` names it in
 * the refusal). Called inside the retry loop on each fresh read: a write that lands in between fails
 * the transaction's version condition, and the conditions are checked again on what it wrote.
 */
export const checkPreconditions = (conditions: Preconditions, version: number, object: string) => {
  const refusal = refusalOf(conditions, version);
  if (refusal) throw new PreconditionFailed(version, refusal, object);
};

export interface RetryOptions {
  /** Epoch ms past which a write that still meets concurrent ones gives up with 503. */
  deadline: number;
  /** Milliseconds to wait before retry `attempt` (1-based). */
  backoff: (attempt: number) => number;
}

/**
 * Runs the writes of one object that this process makes one after another. Concurrent writes of one
 * object only cancel each other (each reads a version the first to land makes stale, and a cancelled
 * transaction costs as much as one that lands), so a process serving many requests at once (the local
 * server) queues them and each lands on its first attempt. A Lambda container serves one request at a
 * time: there, writes from other containers meet at the version check and retry (`retrying`).
 */
export const objectQueue = () => {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(object: string, write: () => Promise<T>): Promise<T> => {
    const run = (tails.get(object) ?? Promise.resolve()).then(write);
    const tail = run.catch(() => undefined);
    tails.set(object, tail);
    void tail.then(() => {
      if (tails.get(object) === tail) tails.delete(object);
    });
    return run;
  };
};

/**
 * Runs `attempt` until it gives a result (undefined means "met a concurrent write: read again"), as
 * long as another attempt, which takes about as long as the last one, still ends before the deadline;
 * a backoff longer than what is left is shortened, not a reason to give up. Each attempt sent again
 * is counted (StorageRetries); one that would not fit is the 503 (StorageUnavailable, counted where it
 * is answered).
 */
export const retrying = async <T>(
  { deadline, backoff }: RetryOptions,
  attempt: () => Promise<T | undefined>,
): Promise<T> => {
  for (let n = 1; ; n++) {
    const started = Date.now();
    const result = await attempt();
    if (result !== undefined) return result;
    // Another attempt takes about as long as this one did; the wait is cut to what is left before it.
    const left = deadline - Date.now() - (Date.now() - started);
    if (left <= 0) break;
    addMetric('StorageRetries');
    await new Promise((resolve) => setTimeout(resolve, Math.min(backoff(n), left)));
  }
  throw new ServiceUnavailable('The object is being changed by many requests at once', 1);
};

/** How many merges a requester is followed through before it is taken as unknown. */
const MAX_REQUESTER_HOPS = 16;

/**
 * Makes a write as `requester`, and again as its survivor while the requester turns out to be a person
 * merged into another (API.md 13: a write naming a merged person acts as its survivor). The write
 * finds that out by its requester check (`requesterCheck`) or its read, before anything is written.
 */
export const asRequester = async <T>(
  requester: number,
  write: (requester: number) => Promise<T>,
): Promise<T> => {
  let acting = requester;
  for (let hop = 0; ; hop++) {
    try {
      return await write(acting);
    } catch (error) {
      if (!(error instanceof RequesterMerged) || hop === MAX_REQUESTER_HOPS) throw error;
      acting = error.survivor;
    }
  }
};
