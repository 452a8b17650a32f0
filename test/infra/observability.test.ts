import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAME } from '../../infra/bundling';
import { DASHBOARD_ROWS } from '../../infra/dashboard';
import {
  ENRICHMENT_FAILURE_RATE_PERCENT,
  ENRICHMENT_FAILURES_MIN,
  RUNBOOK_PATH,
} from '../../infra/person-service-stack';
import { METRICS, type MetricDefinition, metricsNamespaceOf } from '../../lib/api/metrics';
import {
  type Json,
  only,
  type Resource,
  readable,
  resourcesOf,
  serviceFunctions,
  synthesize,
} from './support';

const RUNBOOK = readFileSync(new URL(`../../${RUNBOOK_PATH}`, import.meta.url), 'utf8');

let template: Template;
/** The alarms and their topic: the monitoring nested stack's template, read as the parent passes its parameters. */
let monitoring: Template;
let stackName: string;

beforeAll(() => {
  const synthesized = synthesize();
  ({ template, monitoring } = synthesized);
  stackName = synthesized.stack.stackName;
});

const namespace = () => metricsNamespaceOf(stackName);

/** A series as `<metric> <dimension>=<value>,...`, its dimensions in name order. */
const series = (name: string, dimensions: string[]) => `${name} ${dimensions.sort().join(',')}`;

/** Every series the functions emit, from the catalogue. */
const CATALOGUE_SERIES = Object.entries(METRICS as Record<string, MetricDefinition>).flatMap(
  ([name, { dimension }]) =>
    (dimension ? dimension.values.map((value) => [`${dimension.name}=${value}`]) : [[]]).map((own) =>
      series(name, [`service=${SERVICE_NAME}`, ...own]),
    ),
);

/** A dashboard metric array (`[namespace, name, dimension, value, ..., options?]`) as a series. */
const seriesOf = ([, name, ...rest]: Json[]) => {
  const dimensions = rest.filter((part) => typeof part === 'string');
  const pairs = [];
  for (let i = 0; i < dimensions.length; i += 2) pairs.push(`${dimensions[i]}=${dimensions[i + 1]}`);
  return series(name, pairs);
};

/** The dashboard's body, references in it made readable (`{"Ref": "Api"}` → `Api.Ref`). */
const dashboardBody = () => {
  const [, dashboard] = only(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
  const body = dashboard.Properties.DashboardBody;
  const text =
    typeof body === 'string'
      ? body
      : body['Fn::Join'][1]
          .map((part: Json) =>
            typeof part === 'string' ? part : JSON.stringify(readable(part)).slice(1, -1),
          )
          .join('');
  return JSON.parse(text) as { widgets: { type: string; properties: Json }[] };
};

/** The anchor GitHub gives a heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/** A `## ` section of the runbook, up to the next one. */
const section = (title: string) => {
  const start = RUNBOOK.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`${RUNBOOK_PATH} has no section ${title}`);
  const end = RUNBOOK.indexOf('\n## ', start + 1);
  return RUNBOOK.slice(start, end < 0 ? undefined : end);
};

const alarms = () => Object.values(resourcesOf(monitoring, 'AWS::CloudWatch::Alarm'));
const metricStats = (alarm: Resource): Record<string, Json> =>
  Object.fromEntries(
    (alarm.Properties.Metrics ?? []).flatMap((query: Json) =>
      query.MetricStat ? [[query.Id, query.MetricStat]] : [],
    ),
  );
const alarmReading = (metricName: string) => {
  const found = alarms().filter((alarm) =>
    [
      alarm.Properties.MetricName,
      ...Object.values(metricStats(alarm)).map((stat) => stat.Metric.MetricName),
    ].includes(metricName),
  );
  expect(found).toHaveLength(1);
  return found[0] as Resource;
};
const serviceDimensions = (own: Record<string, string> = {}) => [
  { Name: 'service', Value: SERVICE_NAME },
  ...Object.entries(own).map(([Name, Value]) => ({ Name, Value })),
];

describe('functions', () => {
  it('all emit into the stack’s metrics namespace (POWERTOOLS_METRICS_NAMESPACE)', () => {
    const functions = serviceFunctions(template);
    expect(functions.size).toBeGreaterThan(0);
    for (const [handler, { resource }] of functions)
      expect([handler, resource.Properties.Environment.Variables.POWERTOOLS_METRICS_NAMESPACE]).toEqual([
        handler,
        namespace(),
      ]);
  });
});

describe('the dashboard', () => {
  it('graphs every series of the service’s metrics, in the stack’s namespace with the emitted dimensions, and no other', () => {
    const graphed = dashboardBody()
      .widgets.flatMap((widget) => widget.properties.metrics ?? [])
      .filter((metric: Json[]) => metric[0] === namespace())
      .map(seriesOf);
    expect([...new Set(graphed)].sort()).toEqual([...CATALOGUE_SERIES].sort());
  });

  it('has a row per part, each named in the runbook’s Dashboard section, and every alarm’s status', () => {
    const { widgets } = dashboardBody();
    const headings = widgets
      .filter((widget) => widget.type === 'text')
      .map((widget) => widget.properties.markdown);
    expect(headings).toEqual(DASHBOARD_ROWS.map((row) => `## ${row}`));
    for (const row of DASHBOARD_ROWS) expect(section('Dashboard')).toContain(`**${row}**`);
    const [status] = widgets.filter((widget) => widget.type === 'alarm');
    expect(status?.properties.alarms).toHaveLength(alarms().length);
  });

  it('graphs every queue: the age of the oldest message of each bus consumer’s queue, the depth of every queue', () => {
    const sqs = dashboardBody()
      .widgets.flatMap((widget) => widget.properties.metrics ?? [])
      .filter((metric: Json[]) => metric[0] === 'AWS/SQS')
      .map(([, name, dimension, queue]: Json[]) => {
        expect(dimension).toBe('QueueName');
        return `${name} ${(queue as string).replace(/\.QueueName$/, '')}`;
      });
    const queues = Object.entries(resourcesOf(template, 'AWS::SQS::Queue'));
    // The queues a function reads have a redrive policy; the dead-letter queues have none.
    const read = queues.filter(([, queue]) => queue.Properties.RedrivePolicy).map(([id]) => id);
    expect(read.length).toBeGreaterThan(0);
    expect([...new Set(sqs)].sort()).toEqual(
      [
        ...read.map((id) => `ApproximateAgeOfOldestMessage ${id}`),
        ...queues.map(([id]) => `ApproximateNumberOfMessagesVisible ${id}`),
      ].sort(),
    );
  });

  it('is named after the stack, and its address is an output', () => {
    const [, dashboard] = only(resourcesOf(template, 'AWS::CloudWatch::Dashboard'));
    expect(readable(dashboard.Properties.DashboardName)).toBe(`${stackName}-AWS::Region.Ref`);
    expect(template.toJSON().Outputs.DashboardUrl).toBeDefined();
  });
});

describe('alarms', () => {
  it('each name its runbook entry, and the runbook has an entry for each kind of alarm and no other', () => {
    const entries = alarms().map((alarm) => {
      const match = /Runbook: (\S+)#([\w-]+)$/.exec(alarm.Properties.AlarmDescription);
      expect(match?.[1], alarm.Properties.AlarmDescription).toBe(RUNBOOK_PATH);
      return match?.[2];
    });
    const headings = [...section('Alarms').matchAll(/^### (.+)$/gm)].map(([, heading]) =>
      anchorOf(heading ?? ''),
    );
    expect([...new Set(entries)].sort()).toEqual([...headings].sort());
  });

  it('watch the enrichment failure rate: provider errors over all enrichments, from a few failures up', () => {
    const alarm = alarmReading('EnrichmentProviderErrors');
    expect(alarm.Properties.Metrics.find((query: Json) => query.Expression).Expression).toBe(
      `IF(errors >= ${ENRICHMENT_FAILURES_MIN}, 100 * errors / (errors + FILL(filled, 0) + FILL(unknown, 0)), 0)`,
    );
    const stats = metricStats(alarm);
    for (const [id, name] of Object.entries({
      errors: 'EnrichmentProviderErrors',
      filled: 'EnrichmentFilled',
      unknown: 'EnrichmentUnknown',
    }))
      expect(stats[id]).toMatchObject({
        Metric: { Namespace: namespace(), MetricName: name, Dimensions: serviceDimensions() },
        Stat: 'Sum',
        Period: 900,
      });
    expect(alarm.Properties).toMatchObject({
      Threshold: ENRICHMENT_FAILURE_RATE_PERCENT,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });

  it('watch throttle events of the table and of each of its indexes, reads and writes, missing ones as 0', () => {
    const alarm = alarmReading('WriteThrottleEvents');
    const [, table] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
    const targets = [
      '',
      ...table.Properties.GlobalSecondaryIndexes.map((index: Json) => `/${index.IndexName}`),
    ];
    const stats = Object.values(metricStats(alarm)).map(
      ({ Metric }) =>
        `${Metric.MetricName}${Metric.Dimensions.filter((d: Json) => d.Name === 'GlobalSecondaryIndexName')
          .map((d: Json) => `/${d.Value}`)
          .join('')}`,
    );
    expect(stats.sort()).toEqual(
      targets.flatMap((target) => [`ReadThrottleEvents${target}`, `WriteThrottleEvents${target}`]).sort(),
    );
    const ids = Object.keys(metricStats(alarm));
    expect(alarm.Properties.Metrics.find((query: Json) => query.Expression).Expression).toBe(
      ids.map((id) => `FILL(${id}, 0)`).join(' + '),
    );
    expect(alarm.Properties).toMatchObject({ Threshold: 1, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
  });

  it('watch requests answered 503 for storage: any one', () => {
    const alarm = alarmReading('StorageUnavailable');
    expect(alarm.Properties).toMatchObject({
      Namespace: namespace(),
      Dimensions: serviceDimensions(),
      Statistic: 'Sum',
      Threshold: 1,
    });
  });
});

describe('the runbook', () => {
  it('lists exactly the service’s metrics with their units and what they count, as the catalogue says', () => {
    const rows = [...section('Service metrics').matchAll(/^\| `\w+` \|.*$/gm)].map(([row]) => row);
    expect(rows.sort()).toEqual(
      Object.entries(METRICS as Record<string, MetricDefinition>)
        .map(([name, { unit, description, dimension }]) => {
          const values = dimension?.values.map((value) => `\`${value}\``).join(', ');
          const dimensionText = dimension ? `; dimension \`${dimension.name}\`: ${values}` : '';
          return `| \`${name}\` | ${unit} | ${description}${dimensionText} |`;
        })
        .sort(),
    );
  });
});
