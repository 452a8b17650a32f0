/**
 * `npm start`: the whole API on http://127.0.0.1:${PORT:-3000}, backed by DynamoDB Local, in memory
 * or persisted with `--data DIR` (or `DATA_DIR`). Ctrl-C or SIGTERM stops everything it started.
 */
import { parseArgs } from 'node:util';
import { JavaMissing } from './dynamo-local';
import { PortInUse, startLocalService } from './service';

// Node 20 is supported here; the SDK's notice about its 2027 releases would only be noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({ options: { data: { type: 'string' } }, strict: true });
const dataDir = values.data ?? process.env.DATA_DIR;
const port = Number(process.env.PORT ?? 3000);

try {
  const service = await startLocalService({ port, ...(dataDir ? { dataDir } : {}) });
  console.log(`Authority Person Service listening on ${service.url}`);
  console.log(`  API reference: ${service.url}/docs   OpenAPI: ${service.url}/openapi.json`);
  console.log(
    `  DynamoDB Local: ${service.dynamoEndpoint}, table ${service.tableName}, ${dataDir ? `data in ${dataDir}` : 'in memory'}`,
  );
  console.log(`  Enrichment: ${service.enrichment}`);
  console.log('  Ctrl-C stops it.');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
} catch (error) {
  const known = error instanceof JavaMissing || error instanceof PortInUse;
  console.error(known ? `Cannot start: ${(error as Error).message}` : error);
  process.exit(1);
}
