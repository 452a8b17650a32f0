/**
 * The service's alarms and the topic they notify, as a nested stack of PersonServiceStack (construct id
 * `Monitoring`). A CloudFormation stack holds at most 500 resources, and the service's one stack came
 * close: an alarm per function and several per consumer are about a seventh of them. Here they count
 * against the nested stack's own 500. What the alarms read in the parent stack (function, queue and
 * table names, the API) CDK passes in as the nested stack's parameters, at most 200 of them.
 *
 * The dashboard stays in the parent stack (infra/dashboard.ts): its name is fixed, and a dashboard
 * created in the nested stack under the name the parent's still holds would fail the deploy that
 * moves it. Its alarm row reads each alarm's ARN from an output of this stack (at most 200 outputs).
 */
import { NestedStack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { acknowledge } from './nag';

/** Where each alarm's runbook entry is: its description ends with `Runbook: <this>#<entry>`. */
export const RUNBOOK_PATH = 'docs/runbook.md';

/** The entries of docs/runbook.md an alarm can point to (their headings' anchors). */
export type RunbookEntry =
  | 'api-5xx-rate'
  | 'function-throttles'
  | 'stream-function-errors'
  | 'dead-letter-queue-depth'
  | 'consumer-queue-age'
  | 'consumer-dead-letters'
  | 'undelivered-events'
  | 'consumer-errors'
  | 'enrichment-failure-rate'
  | 'table-throttles'
  | 'storage-unavailable'
  | 'webhook-subscription-paused'
  | 'webhook-lane-failures';

export interface AlarmOptions {
  threshold: number;
  description: string;
  /** What the operator does about it: every alarm has its entry. */
  runbook: RunbookEntry;
  evaluationPeriods?: number;
  datapointsToAlarm?: number;
}

export interface MonitoringProps {
  /** Subscribed to the alarm topic when set. */
  alarmEmail?: string;
}

export class Monitoring extends NestedStack {
  /** Every alarm notifies it (the parent stack's output `AlarmTopicArn`). */
  readonly topic: Topic;
  /** Every alarm of the service, in the order they were made. */
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, { alarmEmail }: MonitoringProps) {
    super(scope, id, { description: 'Authority Person Service: alarms and their topic' });
    this.topic = new Topic(this, 'AlarmTopic', { displayName: 'Person Service alarms', enforceSSL: true });
    if (alarmEmail)
      acknowledge(this.topic.addSubscription(new EmailSubscription(alarmEmail)), {
        'Serverless-SNSRedrivePolicy':
          'The alarm email: a dead-letter queue for alarm mails that could not be delivered would need an alarm of its own to be seen; the alarms stay in ALARM in CloudWatch',
      });
  }

  /** An alarm at or above `threshold`, missing data not breaching, notifying the topic. Construct id `<id>Alarm`. */
  alarm(
    id: string,
    metric: IMetric,
    { threshold, description, runbook, evaluationPeriods = 1, datapointsToAlarm }: AlarmOptions,
  ): Alarm {
    const alarm = new Alarm(this, `${id}Alarm`, {
      metric,
      threshold,
      evaluationPeriods,
      ...(datapointsToAlarm ? { datapointsToAlarm } : {}),
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: `${description}. Runbook: ${RUNBOOK_PATH}#${runbook}`,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
