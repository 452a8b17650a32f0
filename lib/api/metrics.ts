/**
 * The service's own metrics (what an operator reads beside Lambda's, API Gateway's and DynamoDB's):
 * their names, units and dimensions, in one place. The functions emit them through Powertools Metrics
 * (CloudWatch's embedded metric format, one JSON log line per invocation); the stack's dashboard and
 * alarms read them; locally they are `npm start`'s metric lines.
 *
 * Every metric carries the dimension `service` (POWERTOOLS_SERVICE_NAME, `person-service`); a metric
 * with `dimension` carries that one too, one series per value. The namespace is the stack's
 * (`PersonService/<stack name>`, so a dev stack's numbers never mix with production's in one account),
 * `PersonService/local` under `npm start`.
 */

/** The units used here, as CloudWatch (and Powertools' `MetricUnit`) spell them. */
export type MetricUnitName = 'Count' | 'Milliseconds';

export interface MetricDefinition {
  unit: MetricUnitName;
  /** What one data point counts, for the dashboard's widgets and the docs. */
  description: string;
  /** A dimension of its own, beside `service`, and the values it takes. */
  dimension?: { name: string; values: readonly string[] };
}

export const METRICS = {
  PersonsCreated: {
    unit: 'Count',
    description: 'Persons created (POST /Person; an import creates through it)',
  },
  PersonsPatched: { unit: 'Count', description: 'PATCH /Person/{id} requests that stored a change' },
  PersonsMerged: { unit: 'Count', description: 'Merges that superseded a person' },
  PersonsUnmerged: { unit: 'Count', description: 'Merges undone: a merged person live again' },
  PersonsErased: {
    unit: 'Count',
    description: 'Persons erased (DELETE /Person/{id}; a repeat is not counted)',
  },
  ErasuresFinished: {
    unit: 'Count',
    description: 'Erasures cut short that the finisher completed (history and stored answers erased)',
  },
  DuplicatePairsDetected: {
    unit: 'Count',
    description: 'Duplicate pairs the detector found for the first time (each a `duplicate.detected` event)',
  },
  UniquenessConflicts: {
    unit: 'Count',
    description: 'Creates and PATCHes refused 409 because another person holds the email or the name',
    dimension: { name: 'field', values: ['email', 'name'] },
  },
  PreconditionFailures: { unit: 'Count', description: 'Writes refused 412: If-Match named an older version' },
  StorageRetries: {
    unit: 'Count',
    description: 'Writes sent again after meeting a concurrent write (a throttle is answered 503)',
  },
  StorageUnavailable: {
    unit: 'Count',
    description: 'Requests answered 503: storage stayed busy past the retry budget',
  },
  EnrichmentFilled: { unit: 'Count', description: 'Enrichments that stored social addresses' },
  EnrichmentUnknown: { unit: 'Count', description: 'Enrichments the provider knew nothing for' },
  EnrichmentProviderErrors: {
    unit: 'Count',
    description: 'Enrichment deliveries the provider failed (error, timeout, rate limit, refusal)',
  },
  ItemsReadPerList: {
    unit: 'Count',
    description: 'Items one GET /Person request read (index entries, postings or references, counters)',
  },
  WebhookSubscriptionsPaused: {
    unit: 'Count',
    description:
      'Webhook subscriptions the service paused: a 410, an address refused at delivery, or 24 h of retries spent',
  },
  FeedLag: {
    unit: 'Milliseconds',
    description: "From a change's ChangeHistory entry to its event appended to the feed",
  },
} as const satisfies Record<string, MetricDefinition>;

export type MetricName = keyof typeof METRICS;

/** The namespace under `npm start`; a stack sets its own in POWERTOOLS_METRICS_NAMESPACE. */
export const LOCAL_METRICS_NAMESPACE = 'PersonService/local';

/** The stack's namespace for its functions' metrics. */
export const metricsNamespaceOf = (stackName: string) => `PersonService/${stackName}`;
