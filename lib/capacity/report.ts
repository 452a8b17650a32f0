/**
 * The capacity model's answer as text: one table per section, the first limit reached on top, and
 * the headline's first limit the one with the least headroom of all it lists (`firstLimit`).
 */
import { type CapacityAnswer, firstLimit, type LimitRow } from './model';
import { AS_OF, REGION } from './prices';

const number = (value: number, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '∞';
const usd = (value: number) => `$${number(value, value < 100 ? 2 : 0)}`;
const units = (value: number) => number(value, value < 10 ? 2 : value < 1000 ? 1 : 0);
const bytes = (value: number) => {
  const steps = ['B', 'KB', 'MB', 'GB', 'TB'];
  let size = value;
  let step = 0;
  while (size >= 1024 && step < steps.length - 1) {
    size /= 1024;
    step++;
  }
  return `${number(size, 1)} ${steps[step]}`;
};

const table = (header: string[], rows: string[][]) => {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
};

export const renderAnswer = (answer: CapacityAnswer): string => {
  const first = firstLimit(answer.limits);
  const firstByLoad = answer.limits.find((row) => !row.design);
  const said = (row: LimitRow) => `${row.limit} (${row.where}), headroom ${number(row.headroom, 2)}×`;
  const limitRows = (design: boolean) =>
    answer.limits
      .filter((row) => row.design === design)
      .map((row) => [
        row.limit,
        row.where,
        units(row.load),
        number(row.capacity),
        `${number(row.headroom, row.headroom < 10 ? 2 : 0)}×`,
      ]);
  return [
    `# Capacity: ${answer.name}, ${number(answer.persons)} persons, ${answer.regions} region(s)`,
    `Prices and limits as of ${AS_OF}, ${REGION}: lib/capacity/prices.ts names each source.`,
    '',
    '## Operations (per request and a second; write units include the index writes)',
    table(
      ['operation', 'rate/s', 'RCU/req', 'WCU/req', 'RCU/s', 'WCU/s', 'on-demand $/mo', 'provisioned $/mo'],
      answer.rows.map((row) => [
        row.operation,
        units(row.rate),
        units(row.perRequest.rcu),
        units(row.perRequest.wcu + row.perRequest.indexWcu),
        units(row.rcuPerSecond),
        units(row.wcuPerSecond),
        usd(row.onDemandMonthly),
        usd(row.provisionedMonthly),
      ]),
    ),
    '',
    '## Totals',
    `DynamoDB: ${units(answer.totals.rcuPerSecond)} RCU/s, ${units(answer.totals.wcuPerSecond)} WCU/s; ` +
      `${usd(answer.totals.dynamoOnDemandMonthly)}/month on demand, ${usd(answer.totals.dynamoProvisionedMonthly)}/month provisioned`,
    '',
    '## Storage',
    table(
      ['kind', 'bytes', '$/month'],
      [
        ...answer.storage.map((row) => [row.kind, bytes(row.bytes), usd(row.monthly)]),
        [
          'total',
          bytes(answer.storage.reduce((sum, row) => sum + row.bytes, 0)),
          usd(answer.storage.reduce((sum, row) => sum + row.monthly, 0)),
        ],
      ],
    ),
    '',
    '## Lambda, API Gateway, EventBridge, SQS',
    `Lambda: ${number(answer.lambda.gbSecondsMonthly)} GB-seconds and ${number(answer.lambda.requestsMonthly)} invocations a month, ${usd(answer.lambda.monthly)}`,
    `HTTP API: ${number(answer.api.requestsMonthly)} requests a month, ${usd(answer.api.monthly)}`,
    `EventBridge: ${number(answer.eventBridge.eventsMonthly)} events a month, put by append-events in ${number(answer.eventBridge.putEventsCallsMonthly)} PutEvents calls, ${usd(answer.eventBridge.monthly)}`,
    `SQS: ${number(answer.queues.requestsMonthly)} requests a month to ${answer.queues.rows.length} queue(s), at most, ${usd(answer.queues.monthly)}`,
    '',
    "## The bus's consumers (a rule, a queue and a function each; at most a batch a message)",
    table(
      [
        'consumer',
        'event types',
        'messages/s',
        'SQS requests/s',
        'invocations/s',
        'concurrency',
        'SQS $/mo',
        'Lambda $/mo',
      ],
      answer.queues.rows.map((row) => [
        row.handler,
        row.eventTypes.join(' '),
        units(row.messagesPerSecond),
        units(row.requestsPerSecond),
        units(row.invocationsPerSecond),
        units(row.concurrency),
        usd(row.sqsMonthly),
        usd(row.lambdaMonthly),
      ]),
    ),
    '',
    '## Monthly',
    `${usd(answer.monthly.onDemand)} on demand, ${usd(answer.monthly.provisioned)} with the table provisioned`,
    '',
    '## Limits the load meets (first reached on top; headroom = limit / load)',
    table(['limit', 'where', 'load', 'limit', 'headroom'], limitRows(false)),
    '',
    '## Limits of the design (met whatever the load)',
    table(['limit', 'where', 'size', 'limit', 'headroom'], limitRows(true)),
    '',
    ...(first
      ? [
          `First limit: ${said(first)}${first.design ? ' (a limit of the design)' : ''}.`,
          ...(first.design && firstByLoad ? [`First limit the load meets: ${said(firstByLoad)}.`] : []),
          '',
        ]
      : []),
    '## Notes',
    ...answer.notes.map((note) => `- ${note}`),
    '',
  ].join('\n');
};
