import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { storageCall } from '../../../../lib/db/table/storage-errors';
import { ServiceUnavailable } from '../../../../lib/domain/errors';

/** An error shaped as the SDK throws it: a `name` and `$metadata`. */
const sdkError = (name: string, $metadata: { httpStatusCode?: number } = {}) =>
  Object.assign(new Error(`${name} from DynamoDB`), { name, $metadata });

const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code });

const failing = (error: unknown) => () => Promise.reject(error);

const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the call to fail');
};

describe('storageCall', () => {
  it.each<[string, unknown]>([
    [
      'ProvisionedThroughputExceededException',
      new ProvisionedThroughputExceededException({ message: 'Throughput exceeded', $metadata: {} }),
    ],
    ['ThrottlingException', sdkError('ThrottlingException')],
    ['RequestLimitExceeded', sdkError('RequestLimitExceeded')],
    ['an HTTP 429', sdkError('TooManyRequests', { httpStatusCode: 429 })],
    ['a network error (ECONNREFUSED)', networkError('ECONNREFUSED')],
    ['a network error (ECONNRESET)', networkError('ECONNRESET')],
    ['an SDK timeout', sdkError('TimeoutError')],
    [
      'a 500 service error',
      new InternalServerError({ message: 'Internal server error', $metadata: { httpStatusCode: 500 } }),
    ],
    ['a 503 service error', sdkError('ServiceUnavailable', { httpStatusCode: 503 })],
  ])('turns %s into ServiceUnavailable with a Retry-After', async (_, error) => {
    const thrown = await rejectionOf(storageCall(failing(error)));

    expect(thrown).toBeInstanceOf(ServiceUnavailable);
    const { retryAfterSeconds } = thrown as ServiceUnavailable;
    expect(Number.isInteger(retryAfterSeconds) && retryAfterSeconds > 0).toBe(true);
  });

  it('keeps the storage error as the cause of ServiceUnavailable', async () => {
    const error = networkError('ECONNREFUSED');

    const thrown = await rejectionOf(storageCall(failing(error)));

    expect((thrown as ServiceUnavailable).cause).toBe(error);
  });

  it.each<[string, unknown]>([
    [
      'a ConditionalCheckFailedException',
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: { httpStatusCode: 400 },
      }),
    ],
    [
      'a TransactionCanceledException',
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
      }),
    ],
    ['a plain Error', new Error('something else broke')],
    ['a TypeError', new TypeError('Cannot read properties of undefined')],
  ])('passes %s through unchanged', async (_, error) => {
    await expect(storageCall(failing(error))).rejects.toBe(error);
  });

  it('passes the value of a successful call through', async () => {
    const value = { Item: { pk: 'PERSON#1', sk: 'PERSON' } };
    await expect(storageCall(() => Promise.resolve(value))).resolves.toBe(value);
  });
});
