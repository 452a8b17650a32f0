import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { HTTP_FUNCTION_TIMEOUT_MS } from '../timeouts';

/**
 * The Lambda context a handler gets, as far as anything outside AWS can fill it in; its remaining time
 * counts down from the stack's timeout of the HTTP functions.
 */
export const lambdaContext = (functionName: string, timeoutMs = HTTP_FUNCTION_TIMEOUT_MS): Context => {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};
