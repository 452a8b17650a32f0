import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import {
  claimActions,
  existsCheck,
  MAX_TRANSACTION_ACTIONS,
  objectPut,
  transactionOf,
  type WriteTransaction,
} from '../../../../lib/db/write/actions';
import { retrying, sendWrite } from '../../../../lib/db/write/send';
import { ServiceUnavailable, UniquenessConflict, ValidationFailed } from '../../../../lib/domain/errors';
import type { ClaimToTake } from '../../../../lib/domain/patch';

const TABLE = 'people-test';

const many = <T>(count: number, make: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => make(index));

/** A client whose every send answers with `outcome` (or throws it), recording what it was sent. */
const fakeClient = (outcome: () => Promise<unknown>) => {
  const sent: TransactWriteCommand[] = [];
  const client = {
    send: (command: TransactWriteCommand) => {
      sent.push(command);
      return outcome();
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
};

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('sendWrite', () => {
  const abbreviation: ClaimToTake = { field: 'NamePrefix', value: 'dr.', path: '/abbreviation' };
  /** A NamePrefix create: the entry's Put, then its abbreviation claim. */
  const write: WriteTransaction = transactionOf([
    objectPut(TABLE, { pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000021' }, null),
    ...claimActions(TABLE, { type: 'NamePrefix', id: 21 }, [abbreviation], []),
  ]);

  it('sends the transaction as built and reports that it landed', async () => {
    const { client, sent } = fakeClient(() => Promise.resolve({}));

    await expect(sendWrite(client, write)).resolves.toBe(true);
    expect(sent.map((command) => command.input)).toEqual([write.input]);
  });

  it('reports a write that met a concurrent one, to be retried', async () => {
    const { client } = fakeClient(() => Promise.reject(cancelled('TransactionConflict', 'None')));

    await expect(sendWrite(client, write)).resolves.toBe(false);
  });

  it('throws the verdict a cancellation carries', async () => {
    const { client } = fakeClient(() => Promise.reject(cancelled('None', 'ConditionalCheckFailed')));

    await expect(sendWrite(client, write)).rejects.toBeInstanceOf(UniquenessConflict);
  });

  it('rethrows a cancellation it cannot read', async () => {
    const error = cancelled('ValidationError', 'None');
    const { client } = fakeClient(() => Promise.reject(error));

    await expect(sendWrite(client, write)).rejects.toBe(error);
  });

  it('refuses a transaction of more actions than DynamoDB takes without sending it', async () => {
    const { client, sent } = fakeClient(() => Promise.resolve({}));
    const tooMany = transactionOf(
      many(MAX_TRANSACTION_ACTIONS + 1, (index) =>
        existsCheck(TABLE, { pk: `PERSON#${index}`, sk: 'PERSON' }, { kind: 'requester', requester: index }),
      ),
    );

    await expect(sendWrite(client, tooMany)).rejects.toBeInstanceOf(ValidationFailed);
    expect(sent).toEqual([]);
  });
});

describe('retrying', () => {
  it('runs the attempt again after each concurrent write and returns the first result', async () => {
    const results = [undefined, undefined, 'written'];
    const waits: number[] = [];

    const result = await retrying(
      {
        deadline: Date.now() + 60_000,
        backoff: (attempt) => {
          waits.push(attempt);
          return 0;
        },
      },
      async () => results.shift(),
    );

    expect(result).toBe('written');
    expect(waits).toEqual([1, 2]);
  });

  it('keeps retrying while the budget lasts, however many attempts that is', async () => {
    let attempts = 0;

    const result = await retrying({ deadline: Date.now() + 60_000, backoff: () => 0 }, async () =>
      ++attempts === 500 ? 'written' : undefined,
    );

    expect(result).toBe('written');
    expect(attempts).toBe(500);
  });

  it('gives up with 503 when another attempt and its wait would end past the deadline', async () => {
    // Fake timers and clock: the rule is about time, and a loaded machine's real timers fire late.
    vi.useFakeTimers();
    try {
      let attempts = 0;
      const started = Date.now();

      const outcome = retrying({ deadline: started + 300, backoff: () => 20 }, async () => {
        attempts++;
        await new Promise((resolve) => setTimeout(resolve, 30));
        return undefined;
      });
      const refused = expect(outcome).rejects.toBeInstanceOf(ServiceUnavailable);
      await vi.runAllTimersAsync();
      await refused;

      // Each round is 30 ms of attempt and 20 ms of wait: the budget holds six, never past it.
      expect(attempts).toBe(6);
      expect(Date.now() - started).toBeLessThan(300);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shortens a backoff longer than the budget left instead of giving up before the deadline', async () => {
    let attempts = 0;
    const started = Date.now();

    const result = await retrying({ deadline: started + 200, backoff: () => 10_000 }, async () =>
      ++attempts === 2 ? 'written' : undefined,
    );

    expect(result).toBe('written');
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('makes one attempt even when the budget is already spent', async () => {
    let attempts = 0;

    await expect(
      retrying({ deadline: Date.now() - 1, backoff: () => 0 }, async () => {
        attempts++;
        return undefined;
      }),
    ).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(attempts).toBe(1);
  });
});
