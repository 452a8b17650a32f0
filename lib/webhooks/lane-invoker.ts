/**
 * Deployed, a lane is started as an asynchronous invocation of the delivering function
 * (functions/deliver-webhooks.ts), one invocation per lane: each lane runs in its own invocation, with
 * its own time and its own failures, so a slow receiver holds up its own lane and no other. Lambda
 * queues the invocation and answers at once; a lane started twice runs once (its lease).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { traceClient } from '../tracer';
import type { LaneStarter } from './wake-lanes';

/** The delivering function's handler module: functions/deliver-webhooks.ts. */
export const DELIVER_HANDLER = 'deliver-webhooks';

/** The delivering function's name or ARN, in the waking function's configuration. */
export const DELIVER_FUNCTION_ENV = 'WEBHOOK_DELIVER_FUNCTION';

/** What the delivering function is invoked with: the lane to run. */
export interface LaneInvocation {
  subscriptionId: string;
}

/** Starts lanes by invoking `functionName` asynchronously (`InvocationType: Event`). */
export const invokedLanes = (functionName: string, client?: LambdaClient): LaneStarter => {
  let lambda = client;
  return async (subscriptionId) => {
    lambda ??= traceClient(new LambdaClient({}));
    const payload: LaneInvocation = { subscriptionId };
    await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(payload)),
      }),
    );
  };
};

/**
 * The starter of the waking function: the delivering function its configuration names, read when the
 * first lane starts (a module loads without it).
 */
export const invokedLanesFromEnv = (env: NodeJS.ProcessEnv = process.env): LaneStarter => {
  let start: LaneStarter | undefined;
  return (subscriptionId) => {
    const functionName = env[DELIVER_FUNCTION_ENV];
    if (!functionName) throw new Error(`${DELIVER_FUNCTION_ENV} is not set: no function to deliver webhooks`);
    start ??= invokedLanes(functionName);
    return start(subscriptionId);
  };
};
