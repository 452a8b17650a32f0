/**
 * The whole service on this machine: the HTTP server on loopback, DynamoDB Local with the table, the
 * stream consumers, and the event bus with its consumers' queues (lib/local/bus.ts), started together
 * and stopped together.
 */

import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Context, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { BUS_SUBSCRIPTIONS } from '../api/bus-subscriptions';
import { useLocalBus } from '../bus/publisher';
import { markPostingCountsIfEmpty } from '../db/person/read/posting-counts';
import { documentClient } from '../db/table/client';
import { STREAM_SUBSCRIPTIONS } from '../db/table/stream-subscriptions';
import { corsOriginsFrom } from '../http/cors';
import { FEED_CURSOR_KEY_ENV } from '../secrets';
import { WEBHOOK_SECRET_KEY_ENV } from '../webhooks/secret-box';
import { startLocalBus } from './bus';
import { startDevIssuer } from './dev-issuer';
import {
  type DynamoLocal,
  ensureTable,
  localClientConfig,
  startDynamoLocal,
  useLocalTable,
} from './dynamo-local';
import { FIXTURE_EMAILS, startFixtureProvider } from './fixture-provider';
import {
  type DevIssuerSettings,
  type JwtSettings,
  jwtAuthorizer,
  jwtSettingsFromEnv,
  type TokenCheck,
} from './jwt-authorizer';
import { lambdaContext } from './lambda-context';
import { FEED_CURSOR_KEY_FILE, localKey, WEBHOOK_SECRET_KEY_FILE } from './local-keys';
import { createLocalServer, functionLoader } from './server';
import { type StreamConsumer, startStreamPoller } from './streams';
import { startWebhooks } from './webhook-lanes';

/** A stream function's handler as its module exports it. */
type LambdaStreamFunction = (event: DynamoDBStreamEvent, context: Context) => Promise<unknown>;
/** A queue consumer's handler as its module exports it. */
type LambdaQueueFunction = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

export interface LocalServiceOptions {
  port?: number;
  host?: string;
  /** Persist the data in this folder; in memory when absent. */
  dataDir?: string;
  tableName?: string;
  /** Stream consumers besides the subscribed functions (tests use this to watch the stream). */
  extraConsumers?: StreamConsumer[];
  /** Run enrichment (default); without `ENRICHMENT_URL` against the local fixture provider. */
  enrichment?: boolean;
  log?: (message: string, details?: unknown) => void;
  /** Origins that may call the API from a browser; by default those `CORS_ORIGINS` lists (API.md 2.1). */
  corsOrigins?: readonly string[];
  /**
   * Requester binding's token checks (API.md 9.1), against an issuer or the local development issuer;
   * by default from `REQUESTER_BINDING` and `JWT_*`.
   */
  jwt?: JwtSettings | DevIssuerSettings;
}

export interface LocalService {
  url: string;
  dynamoEndpoint: string;
  tableName: string;
  /** Where enrichment looks people up, or `off`. */
  enrichment: string;
  /** Requester binding: `off`, or whose tokens are checked (and, with the local issuer, how to get one). */
  binding: string;
  stop(): Promise<void>;
}

export class PortInUse extends Error {
  constructor(readonly port: number) {
    super(`Port ${port} is already in use: stop what uses it, or set PORT to another port`);
    this.name = 'PortInUse';
  }
}

export const startLocalService = async ({
  port = 3000,
  host = '127.0.0.1',
  dataDir,
  tableName = 'persons',
  extraConsumers = [],
  enrichment = process.env.ENRICHMENT !== 'off',
  log = (message, details) => console.error(message, details ?? ''),
  corsOrigins = corsOriginsFrom(process.env.CORS_ORIGINS, 'CORS_ORIGINS'),
  jwt = jwtSettingsFromEnv(),
}: LocalServiceOptions = {}): Promise<LocalService> => {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse().splice(0)) await step();
  };
  let storageReady: (dynamo: DynamoLocal) => void = () => undefined;
  const ready = new Promise<DynamoLocal>((resolve) => {
    storageReady = resolve;
  });
  try {
    // The port first: a taken port fails at once, before Java starts.
    const load = functionLoader();
    // The local development issuer's URL is known once the server listens: token checks wait for it.
    type CheckTokens = (authorization: string | undefined) => Promise<TokenCheck>;
    let tokenChecksReady: (check: CheckTokens) => void = () => undefined;
    const tokenChecks = new Promise<CheckTokens>((resolve) => {
      tokenChecksReady = resolve;
    });
    let issuerSays: string | undefined;
    let issuerDocument: (path: string) => object | undefined = () => undefined;
    const server = createLocalServer({
      ready,
      load,
      corsOrigins,
      ...(jwt ? { authorize: async (authorization) => (await tokenChecks)(authorization) } : {}),
      // One line naming why (never the token): expired, signature, issuer, audience...
      onTokenRefused: ({ reason, method, path }) => log(`token refused: ${reason} (${method} ${path})`),
      documents: (path) => issuerDocument(path),
      onError: (error) => log('handler failed', error),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'EADDRINUSE' ? new PortInUse(port) : error),
      );
      server.listen(port, host, resolve);
    });
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const { port: actualPort } = server.address() as AddressInfo;
    if (jwt && 'devIssuer' in jwt) {
      const issuer = await startDevIssuer({
        serverUrl: `http://${host}:${actualPort}`,
        port: actualPort,
        audience: jwt.audience,
        ...(dataDir ? { dataDir } : {}),
      });
      stops.push(() => issuer.stop());
      issuerDocument = issuer.document;
      tokenChecksReady(jwtAuthorizer(issuer.settings));
      issuerSays =
        `on, tokens of the local development issuer ${issuer.issuer} (for this machine only; audience ` +
        `${issuer.audience}; its key in ${issuer.keptIn})\n  A token: ${issuer.tokenCommand}   ` +
        '(--delegate for a delegate; valid 1 h)';
    } else if (jwt) {
      tokenChecksReady(jwtAuthorizer(jwt));
      issuerSays = `on, tokens of ${jwt.issuer} (audience ${jwt.audience})`;
    }

    const dynamo = await startDynamoLocal(dataDir ? { dataDir } : {});
    stops.push(() => dynamo.stop());
    useLocalTable(dynamo.endpoint, tableName);
    // The feed's cursors signed, and webhook secrets sealed, with the data folder's keys (new ones in
    // memory): lib/secrets.ts and lib/webhooks/secret-box.ts read them.
    process.env[FEED_CURSOR_KEY_ENV] = await localKey(FEED_CURSOR_KEY_FILE, dataDir);
    process.env[WEBHOOK_SECRET_KEY_ENV] = await localKey(WEBHOOK_SECRET_KEY_FILE, dataDir);
    const client = documentClient(localClientConfig(dynamo.endpoint));
    await ensureTable(client, tableName);
    // The stream poller below counts every posting from now on (with enrichment, as deployed): on a
    // table that holds no person yet, the counts are then complete (posting-counts.ts).
    if (enrichment) await markPostingCountsIfEmpty({ client, tableName }, new Date().toISOString());
    client.destroy();
    storageReady(dynamo);

    let enrichmentSays = enrichment ? `provider at ${process.env.ENRICHMENT_URL}` : 'off';
    if (enrichment && !process.env.ENRICHMENT_URL) {
      const provider = await startFixtureProvider();
      stops.push(() => provider.stop());
      Object.assign(process.env, { ENRICHMENT_URL: provider.url, ENRICHMENT_API_KEY: provider.apiKey });
      enrichmentSays = `local fixture provider at ${provider.url}, which knows ${FIXTURE_EMAILS.join(', ')}`;
    }
    const runs = ({ locally }: { locally?: 'always' | 'apart' }) => locally === 'always' || enrichment;
    // The bus first, so that it is stopped after the stream that feeds it: the feed's appender puts
    // every event it appends on it, and each consumer's queue takes the types its rule would.
    const baseUrl = process.env.PUBLIC_BASE_URL ?? `http://${host}:${actualPort}`;
    // Webhook lanes, stopped after the bus that wakes them (stops run last first).
    const webhooks = startWebhooks({ baseUrl, log });
    stops.push(() => webhooks.stop());
    const bus = startLocalBus({
      baseUrl,
      consumers: [
        ...BUS_SUBSCRIPTIONS.filter(
          (subscription) => subscription.locally !== 'apart' && runs(subscription),
        ).map(({ handler, eventTypes, batchSize, maxReceiveCount }) => ({
          name: handler,
          eventTypes,
          batchSize,
          maxReceiveCount,
          handler: async (event: SQSEvent) =>
            (await load<LambdaQueueFunction>(handler))(event, lambdaContext(handler)),
        })),
        webhooks.consumer,
      ],
      log,
    });
    useLocalBus(bus.publish);
    stops.push(async () => {
      useLocalBus(undefined);
      await bus.stop();
    });
    const subscriptions = STREAM_SUBSCRIPTIONS.filter(runs);
    const consumers: StreamConsumer[] = [
      ...subscriptions.map(({ handler, accepts }) => ({
        name: handler,
        accepts,
        // With a Lambda context, as deployed (the function's middy stack gives none of its own).
        handler: async (event: DynamoDBStreamEvent) =>
          (await load<LambdaStreamFunction>(handler))(event, lambdaContext(handler)),
      })),
      ...extraConsumers,
    ];
    if (consumers.length > 0) {
      const poller = await startStreamPoller({
        endpoint: dynamo.endpoint,
        tableName,
        consumers,
        log,
        // With a data folder, a restart goes on where the last run's delivery stopped: the change
        // feed misses no change written just before a stop.
        ...(dataDir ? { positionsFile: join(dataDir, 'stream-positions.json') } : {}),
      });
      stops.push(() => poller.stop());
    }

    return {
      url: `http://${host}:${actualPort}`,
      dynamoEndpoint: dynamo.endpoint,
      tableName,
      enrichment: enrichmentSays,
      binding: issuerSays ?? 'off',
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
