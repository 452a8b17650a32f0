/**
 * Fault injection through the SDK's middleware stack, for faults DynamoDB Local cannot produce on
 * demand (throttling, transaction conflicts, network errors). It runs before the SDK's retry step, so
 * an injected error is what the service sees after the SDK gave up.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export type Fault = (commandName: string, input: Record<string, unknown>) => Error | undefined;

export const injectFaults = (client: DynamoDBDocumentClient, fault: Fault): (() => void) => {
  const name = `fault-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const error = fault(context.commandName ?? '', args.input as Record<string, unknown>);
      if (error) throw error;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
};

/** What DynamoDB answers when another transaction touched the same items at the same moment. */
export const transactionConflict = (input: Record<string, unknown>) =>
  new TransactionCanceledException({
    message:
      'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: (input.TransactItems as unknown[]).map(() => ({
      Code: 'TransactionConflict',
      Message: 'Transaction is ongoing for the item',
    })),
  });

export const sdkError = (name: string, message = name) =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: 400 }, $fault: 'client' });

/** Fails the first `times` calls of one command, and counts every call of it. */
export const failFirst = (
  commandName: string,
  times: number,
  error: (input: Record<string, unknown>) => Error,
) => {
  const counter = { calls: 0 };
  const fault: Fault = (name, input) => {
    if (name !== commandName) return undefined;
    counter.calls += 1;
    return counter.calls <= times ? error(input) : undefined;
  };
  return { fault, counter };
};
