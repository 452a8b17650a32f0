/**
 * `npm start`: the whole API on http://127.0.0.1:${PORT:-3000}, backed by DynamoDB Local, in memory
 * or persisted with `--data DIR` (or `DATA_DIR`). Ctrl-C, SIGINT, SIGTERM or SIGHUP, to this process
 * or to the npm that runs it (the script `exec`s node, so npm's signal reaches it), stops everything
 * it started.
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
  console.log(`  Requester binding: ${service.binding}`);
  console.log('  Ctrl-C stops it.');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await service.stop();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => void shutdown(signal));
  // A parent that dies without passing its signal on (a shell between npm and node that a SIGTERM
  // ends, an npm killed with SIGKILL) leaves this process to init: stop then as well.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown('parent exited');
  }, 500).unref();
} catch (error) {
  const known = error instanceof JavaMissing || error instanceof PortInUse;
  console.error(known ? `Cannot start: ${(error as Error).message}` : error);
  process.exit(1);
}
