/**
 * `npm run backfill`: builds the search postings and reference items of a table that already holds
 * persons (lib/db/person/write/backfill.ts), with a progress line on stderr. Like `npm run invoke`, it works on the
 * DynamoDB Local of a running `npm start` when `DYNAMODB_ENDPOINT` is set, else on one of its own on
 * the folder `--data` (default `.data`); with `--aws` on the table `TABLE_NAME` in the AWS account and
 * region of the environment. Run it again to go on after a stop; `--restart` starts over.
 */
import { parseArgs } from 'node:util';
import { backfillPostings, backfillTotals, type SegmentProgress } from '../db/person/write/backfill';
import { commandStorage } from './dynamo-local';

// Node 20 is supported here; the SDK's notice about its 2027 releases would only be noise.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: process.env.DATA_DIR ?? '.data' },
    segments: { type: 'string', default: '4' },
    restart: { type: 'boolean', default: false },
    aws: { type: 'boolean', default: false },
  },
});
const segments = Number(values.segments);
if (!Number.isInteger(segments) || segments < 1 || segments > 1000) {
  console.error('--segments must be a whole number from 1 to 1000');
  process.exit(2);
}

const { storage, close } = await commandStorage({ data: values.data, aws: values.aws });
const { tableName } = storage;

const started = Date.now();
const bySegment = new Map<number, SegmentProgress>();
const summary = () => {
  const { persons, repaired, written, segmentsDone } = backfillTotals([...bySegment.values()]);
  const seconds = (Date.now() - started) / 1000;
  return `backfill ${tableName}: ${persons} persons checked, ${repaired} repaired, ${written} postings, reference items and links written; ${segmentsDone}/${segments} segments done; ${seconds.toFixed(1)} s`;
};
let shown = 0;

try {
  const results = await backfillPostings(storage, {
    run: 'manual',
    segments,
    restart: values.restart,
    onPage: (progress) => {
      bySegment.set(progress.segment, progress);
      if (Date.now() - shown < 1_000) return;
      shown = Date.now();
      process.stderr.write(`${summary()}\n`);
    },
  });
  for (const progress of results) bySegment.set(progress.segment, progress);
  console.log(summary());
} finally {
  await close();
}
