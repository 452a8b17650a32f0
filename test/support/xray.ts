/**
 * Handlers run as Lambda runs them with active tracing, and the segments the X-Ray SDK sends read
 * back: a UDP socket on loopback stands in for the X-Ray daemon, and each handler runs in a fresh
 * node with the environment Lambda sets (`AWS_EXECUTION_ENV`, `LAMBDA_TASK_ROOT`, `_HANDLER`, a
 * sampled `_X_AMZN_TRACE_ID` per invocation), so the tracer is on as it is deployed, not mocked.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Context } from 'aws-lambda';
import { lambdaContext } from '../../lib/local/lambda-context';

const ROOT = resolve(import.meta.dirname, '../..');

/** A segment or subsegment as the SDK sends it (the fields the tests read). */
export interface XraySegment {
  id: string;
  name: string;
  trace_id: string;
  parent_id?: string;
  type?: string;
  namespace?: string;
  annotations?: Record<string, string | number | boolean>;
  metadata?: Record<string, unknown>;
  error?: boolean;
  fault?: boolean;
  throttle?: boolean;
  cause?: { exceptions?: { type?: string; message?: string }[] };
  aws?: Record<string, unknown>;
  subsegments?: XraySegment[];
}

/** One invocation: a handler module of functions/, the event, and its trace id. */
export interface Invocation {
  handler: string;
  event: unknown;
  traceId: string;
}

export interface Traced {
  /** Each invocation's result, in order. */
  results: unknown[];
  /** Every segment and subsegment sent, nested ones flattened, with the raw datagrams. */
  segments: XraySegment[];
  datagrams: string[];
}

/** A new X-Ray trace id: `1-<epoch seconds, hex>-<96 random bits>`. */
export const newTraceId = () =>
  `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

const flatten = (segment: XraySegment): XraySegment[] => [
  segment,
  ...(segment.subsegments ?? []).flatMap((sub) => flatten({ ...sub, trace_id: segment.trace_id })),
];

/** Runs the invocations in one fresh node (one container: the first is its cold start). */
const DRIVER = `
const steps = JSON.parse(process.env.TRACE_STEPS);
const context = JSON.parse(process.env.TRACE_CONTEXT);
context.getRemainingTimeInMillis = () => 10000;
const results = [];
for (const { handler, event, traceId } of steps) {
  process.env._X_AMZN_TRACE_ID = 'Root=' + traceId + ';Parent=' + '0'.repeat(15) + '1;Sampled=1';
  const module = await import(handler);
  results.push(await module.handler(event, context));
}
// UDP sends are queued: give them a moment before the process ends.
await new Promise((done) => setTimeout(done, 200));
process.stdout.write('\\n@results ' + JSON.stringify(results) + '\\n');
`;

/**
 * Runs `invocations` in one Lambda-like node with `env` (the table, the provider) and returns what
 * the X-Ray SDK sent over UDP.
 */
export const runTraced = async (
  invocations: Invocation[],
  env: Record<string, string>,
  functionName = 'traced',
): Promise<Traced> => {
  const socket = createSocket('udp4');
  const datagrams: string[] = [];
  socket.on('message', (message) => datagrams.push(message.toString('utf8')));
  await new Promise<void>((bound) => socket.bind(0, '127.0.0.1', bound));
  try {
    const context: Partial<Context> = lambdaContext(functionName);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', DRIVER],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          AWS_REGION: 'local',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          POWERTOOLS_SERVICE_NAME: 'person-service',
          // What Lambda sets in an actively traced function's environment.
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          AWS_LAMBDA_FUNCTION_NAME: functionName,
          AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
          LAMBDA_TASK_ROOT: ROOT,
          _HANDLER: 'index.handler',
          AWS_XRAY_DAEMON_ADDRESS: `127.0.0.1:${(socket.address() as { port: number }).port}`,
          TRACE_CONTEXT: JSON.stringify(context),
          TRACE_STEPS: JSON.stringify(
            invocations.map(({ handler, ...rest }) => ({
              ...rest,
              handler: new URL(`file://${resolve(ROOT, 'functions', `${handler}.ts`)}`).href,
            })),
          ),
          ...env,
        },
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const line = stdout.split('\n').find((text) => text.startsWith('@results '));
    if (!line) throw new Error(`The traced run printed no results: ${stdout.slice(0, 2000)}`);
    // The last datagrams may still be on their way through loopback.
    await new Promise((done) => setTimeout(done, 100));
    const segments = datagrams.flatMap((datagram) => {
      const [, body] = datagram.split('\n');
      return flatten(JSON.parse(body ?? '{}') as XraySegment);
    });
    return { results: JSON.parse(line.slice('@results '.length)) as unknown[], segments, datagrams };
  } finally {
    socket.close();
  }
};
