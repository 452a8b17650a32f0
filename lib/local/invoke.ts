/**
 * `npm run invoke -- <function> <event.json>`: runs one handler once with an event file against the
 * local table and prints its result, as `sam local invoke` does. It uses the DynamoDB Local of a
 * running `npm start` when `DYNAMODB_ENDPOINT` is set, else one of its own on the folder `--data`
 * (default `.data`), so successive invocations see each other's writes.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { documentClient } from '../db/table/client';
import { ensureTable, localClientConfig, startDynamoLocal, useLocalTable } from './dynamo-local';
import { lambdaContext } from './lambda-context';
import { functionLoader } from './server';

// Node 20 is supported here; the SDK's notice about its 2027 releases would only be noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values, positionals } = parseArgs({
  options: { data: { type: 'string', default: process.env.DATA_DIR ?? '.data' } },
  allowPositionals: true,
});
const [name, eventFile] = positionals;
if (!name || !eventFile) {
  console.error(
    'Usage: npm run invoke -- <function> <event.json> [--data DIR]   e.g. npm run invoke -- get-person events/get-person.json',
  );
  process.exit(2);
}

const tableName = process.env.TABLE_NAME ?? 'persons';
const dynamo = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoLocal({ dataDir: values.data });
const endpoint = process.env.DYNAMODB_ENDPOINT ?? (dynamo?.endpoint as string);
try {
  useLocalTable(endpoint, tableName);
  const client = documentClient(localClientConfig(endpoint));
  await ensureTable(client, tableName);
  client.destroy();
  const event = JSON.parse(await readFile(eventFile, 'utf8'));
  const handler = await functionLoader()<(event: unknown, context: unknown) => Promise<unknown>>(name);
  console.log(JSON.stringify(await handler(event, lambdaContext(name)), null, 2));
} finally {
  await dynamo?.stop();
}
