import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import { ServiceUnavailable } from '../../domain/errors';

/**
 * Runs one storage call, turning what the SDK gave up on after its own retries (throttling, network
 * faults, DynamoDB 5xx) into `ServiceUnavailable`, so the client gets 503 with `Retry-After` instead of
 * a 500. Everything else passes through unchanged.
 */
export const storageCall = async <T>(call: () => Promise<T>): Promise<T> => {
  try {
    return await call();
  } catch (error) {
    const sdkError = error as Parameters<typeof isThrottlingError>[0];
    if (isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError)) {
      throw new ServiceUnavailable('Storage is unavailable', 1, { cause: error });
    }
    throw error;
  }
};
