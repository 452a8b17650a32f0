import { describe, expect, it } from 'vitest';
import {
  API_GATEWAY_TIMEOUT_MS,
  HTTP_FUNCTION_TIMEOUT_MS,
  RESPONSE_RESERVE_MS,
  retryDeadline,
} from '../../lib/timeouts';

describe('retryDeadline', () => {
  it('is the time the invocation has left less the response reserve', () => {
    expect(retryDeadline(10_000, 1_000_000)).toBe(1_000_000 + 10_000 - RESPONSE_RESERVE_MS);
    expect(retryDeadline(4_000, 0)).toBe(4_000 - RESPONSE_RESERVE_MS);
  });

  it("never runs past API Gateway's 30 s, whatever the function's timeout", () => {
    expect(retryDeadline(15 * 60_000, 0)).toBe(API_GATEWAY_TIMEOUT_MS - RESPONSE_RESERVE_MS);
  });

  it('leaves no retries when less than the reserve is left', () => {
    expect(retryDeadline(500, 7)).toBe(7);
  });

  it("defaults to a fresh invocation of an HTTP function (the stack's timeout)", () => {
    const now = Date.now();
    const deadline = retryDeadline();
    expect(deadline - now).toBeGreaterThanOrEqual(HTTP_FUNCTION_TIMEOUT_MS - RESPONSE_RESERVE_MS);
    expect(deadline - now).toBeLessThan(HTTP_FUNCTION_TIMEOUT_MS - RESPONSE_RESERVE_MS + 1_000);
  });
});
