/**
 * The capacity model: a population and a traffic mix in, per operation the units a second and what
 * they cost a month, storage, Lambda, the event bus and each consumer's queue (from the stream's and
 * the bus's catalogues), and each limit with the load it sees and its headroom, the first reached on
 * top. Pure: operations.ts prices each request from the code's plans, prices.ts holds every
 * price and limit.
 */
import { BUS_SUBSCRIPTIONS, type BusSubscription } from '../api/bus-subscriptions';
import { STREAM_SUBSCRIPTIONS, type StreamSubscription } from '../db/table/stream-subscriptions';
import type { EventType } from '../domain/feed';
import type { Mix } from './mix';
import {
  BENCH_PERSON,
  costModel,
  DESIGN,
  type Design,
  type OperationCost,
  STORAGE_KINDS,
} from './operations';
import {
  BILLED_CHUNK_BYTES,
  HOURS_PER_MONTH,
  LIMITS,
  PRICES,
  PROVISIONED_TARGET_UTILISATION,
  SECONDS_PER_MONTH,
  SQS_POLLING,
} from './prices';

/**
 * Milliseconds an invocation takes, assumed (the bench measures DynamoDB Local on a shared machine, not
 * AWS): about a DynamoDB round trip of 5 to 10 ms per call in a row, and the handler's own work. A
 * mix's `durationsMs` overrides them. The consumers of the stream and of the bus are named in
 * `CONSUMER_OPERATIONS`; a queue's consumer is timed per message (a batch of n takes n times it),
 * `put-events` per PutEvents call the feed's appender makes, and `bus-consumer` is the time of a
 * consumer of the bus this table does not name (the answer's notes then say so).
 */
export const ASSUMED_DURATION_MS: Record<string, number> = {
  create: 60,
  import: 70,
  patch: 60,
  get: 15,
  list: 40,
  'list-filtered': 60,
  reconcile: 120,
  merge: 150,
  history: 30,
  'feed-page': 30,
  'feed-append': 80,
  'count-postings': 400,
  'put-events': 30,
  enrich: 400,
  // One read of the tombstone: its chain is nearly always done when the event comes.
  'finish-erasure': 15,
  // A reconciliation query of the person (its candidates, read whole) and a Query of its pairs' links.
  'detect-duplicates': 150,
  // A cached list of the subscriptions, and an asynchronous Invoke per lane it starts (the deliveries
  // themselves, as many as there are subscribers of each event, are the subscribers' and not modelled).
  'wake-webhooks': 20,
  'bus-consumer': 100,
};

/**
 * The operation each consumer of the table's stream (lib/db/table/stream-subscriptions.ts) and of the
 * bus (lib/api/bus-subscriptions.ts) is, by handler: its duration is that operation's.
 */
export const CONSUMER_OPERATIONS: Record<string, string> = {
  'append-events': 'feed-append',
  'count-postings': 'count-postings',
  'enrich-person': 'enrich',
  'finish-erasure': 'finish-erasure',
  'detect-duplicates': 'detect-duplicates',
  'wake-webhooks': 'wake-webhooks',
};

/**
 * Bytes of an event as its consumer's queue holds it, at most: the CloudEvent (about 0.4 KB) in
 * EventBridge's envelope (about 0.3 KB more). One 64 KB chunk: one event billed, one request a call.
 */
export const BUS_MESSAGE_BYTES = 1024;

/** Memory of every function: infra/service-function.ts's default `memorySize` (no function sets its own). */
export const FUNCTION_MEMORY_MB = 512;

export interface OperationRow {
  operation: string;
  /** Requests a second (for background work: per change, per posting record, per page). */
  rate: number;
  /** HTTP requests (API Gateway and Lambda concurrency count them); false for stream work. */
  http: boolean;
  perRequest: OperationCost;
  rcuPerSecond: number;
  /** Table and index write units a second. */
  wcuPerSecond: number;
  onDemandMonthly: number;
  provisionedMonthly: number;
  /** Lambda invocations a second and GB-seconds a month. */
  invocationsPerSecond: number;
  gbSecondsMonthly: number;
  /** Seconds of Lambda a second: the concurrent executions it keeps busy. */
  concurrency: number;
}

/**
 * One consumer of the bus (lib/api/bus-subscriptions.ts): its rule sends each event of its types to its
 * queue, and Lambda reads the queue into its function. Priced at most: a batch a message (a quiet
 * queue hands over what has come, often one), where a backed-up queue fills batches of `batchSize`.
 */
export interface QueueRow {
  handler: string;
  eventTypes: readonly EventType[];
  batchSize: number;
  /** Events a second of its types: each one SendMessage by EventBridge into its queue. */
  messagesPerSecond: number;
  /**
   * SQS requests a second, at most: a SendMessage, a ReceiveMessage and a DeleteMessageBatch a
   * message, and the pollers' long polls of a quiet queue (`idleRequestsPerSecond`).
   */
  requestsPerSecond: number;
  idleRequestsPerSecond: number;
  /** Invocations a second, at most (one a message), and at least (full batches). */
  invocationsPerSecond: number;
  fullBatchInvocationsPerSecond: number;
  /** Concurrent batches it keeps busy: messages a second × the time of one. */
  concurrency: number;
  gbSecondsMonthly: number;
  sqsMonthly: number;
  lambdaMonthly: number;
  /** Its time per message is `bus-consumer`'s, the table naming none for it. */
  assumedDuration: boolean;
}

export interface LimitRow {
  limit: string;
  /** What carries the load (the busiest partition of a kind, the largest transaction...). */
  where: string;
  load: number;
  capacity: number;
  unit: string;
  /** capacity / load: under 1 means the limit is passed. */
  headroom: number;
  /** A limit of the design, met whatever the load (a transaction's size, the stream's readers). */
  design: boolean;
  source: string;
}

/**
 * The headline's first limit: the one with the least headroom of every limit the answer lists, a
 * limit of the design (met at any load) included; on a tie, one the load meets.
 */
export const firstLimit = (limits: readonly LimitRow[]): LimitRow | undefined =>
  [...limits].sort((a, b) => a.headroom - b.headroom || Number(a.design) - Number(b.design))[0];

export interface CapacityAnswer {
  name: string;
  persons: number;
  regions: number;
  rows: OperationRow[];
  totals: {
    rcuPerSecond: number;
    wcuPerSecond: number;
    dynamoOnDemandMonthly: number;
    dynamoProvisionedMonthly: number;
  };
  storage: { kind: string; bytes: number; monthly: number }[];
  lambda: { gbSecondsMonthly: number; requestsMonthly: number; monthly: number };
  api: { requestsMonthly: number; monthly: number };
  /** The feed's events put on the bus by its appender, by type a second, and the PutEvents calls. */
  eventBridge: {
    eventsPerSecond: Partial<Record<EventType, number>>;
    eventsMonthly: number;
    putEventsCallsMonthly: number;
    monthly: number;
  };
  /** The bus's consumers, a queue each, and what their queues' requests cost. */
  queues: { rows: QueueRow[]; requestsMonthly: number; monthly: number };
  /** On demand, and with the table provisioned. */
  monthly: { onDemand: number; provisioned: number };
  limits: LimitRow[];
  notes: string[];
  sizes: ReturnType<typeof costModel>['sizes'];
}

const onDemand = (rcu: number, wcu: number) =>
  (rcu * PRICES.readRequestUnit.usd + wcu * PRICES.writeRequestUnit.usd) * SECONDS_PER_MONTH;
const provisioned = (rcu: number, wcu: number) =>
  ((rcu * PRICES.rcuHour.usd + wcu * PRICES.wcuHour.usd) * HOURS_PER_MONTH) / PROVISIONED_TARGET_UTILISATION;

export interface ModelOptions {
  persons: number;
  /** The stage throttle when the mix names none (the stack's default, infra/config.ts). */
  defaultThrottleRate: number;
  /** The readers of the table's stream: the code's catalogue, unless a test asks what another would do. */
  streamSubscriptions?: readonly StreamSubscription[];
  /** The bus's consumers: the code's catalogue, likewise. */
  busSubscriptions?: readonly BusSubscription[];
}

/** Lambda's price for `invocations` a second and `gbSeconds` a month. */
const lambdaMonthly = (invocations: number, gbSeconds: number) =>
  gbSeconds * PRICES.lambdaGbSecond.usd + invocations * SECONDS_PER_MONTH * PRICES.lambdaRequest.usd;

const gbSecondsOf = (busySeconds: number) => busySeconds * (FUNCTION_MEMORY_MB / 1024) * SECONDS_PER_MONTH;

/**
 * What each consumer of the bus costs for the events a second of each type the mix makes: every
 * subscription whose `eventTypes` holds a type takes each such event as a message of its queue.
 */
export const queueRows = (
  eventsPerSecond: Partial<Record<EventType, number>>,
  subscriptions: readonly BusSubscription[],
  duration: (operation: string) => number,
): QueueRow[] => {
  const chunks = Math.ceil(BUS_MESSAGE_BYTES / BILLED_CHUNK_BYTES);
  const idle = SQS_POLLING.idlePollers.value / SQS_POLLING.longPollSeconds.value;
  return subscriptions.map((subscription) => {
    const operation = CONSUMER_OPERATIONS[subscription.handler];
    const messages = subscription.eventTypes.reduce((sum, type) => sum + (eventsPerSecond[type] ?? 0), 0);
    const seconds = duration(operation ?? 'bus-consumer') / 1000;
    // SendMessage (by EventBridge), then at most a ReceiveMessage and a DeleteMessageBatch each.
    const requests = messages * 3 * chunks + idle;
    const busy = messages * seconds;
    const gbSeconds = gbSecondsOf(busy);
    return {
      handler: subscription.handler,
      eventTypes: subscription.eventTypes,
      batchSize: subscription.batchSize,
      messagesPerSecond: messages,
      requestsPerSecond: requests,
      idleRequestsPerSecond: idle,
      invocationsPerSecond: messages,
      fullBatchInvocationsPerSecond: messages / subscription.batchSize,
      concurrency: busy,
      gbSecondsMonthly: gbSeconds,
      sqsMonthly: requests * SECONDS_PER_MONTH * PRICES.sqsRequest.usd,
      lambdaMonthly: lambdaMonthly(messages, gbSeconds),
      assumedDuration: operation === undefined,
    };
  });
};

/** The model's answer for a mix at a population. */
export const capacity = (
  mix: Mix,
  {
    persons,
    defaultThrottleRate,
    streamSubscriptions = STREAM_SUBSCRIPTIONS,
    busSubscriptions = BUS_SUBSCRIPTIONS,
  }: ModelOptions,
): CapacityAnswer => {
  const design = { ...DESIGN, ...mix.design };
  const model = costModel({
    persons,
    person: mix.person ?? BENCH_PERSON,
    commonPrefixShare: mix.commonPrefixShare,
    design,
  });
  const whatIf = (Object.keys(DESIGN) as (keyof Design)[]).filter((key) => design[key] !== DESIGN[key]);
  const duration = (operation: string) =>
    mix.durationsMs[operation] ?? ASSUMED_DURATION_MS[operation] ?? ASSUMED_DURATION_MS.get ?? 15;
  const rows: OperationRow[] = [];
  const add = (
    operation: string,
    rate: number,
    perRequest: OperationCost,
    { http = true, invocationsPerRequest = 1, kind = operation, extraMsPerRequest = 0 } = {},
  ) => {
    if (rate <= 0) return;
    const rcu = rate * perRequest.rcu;
    const wcu = rate * (perRequest.wcu + perRequest.indexWcu);
    const invocations = rate * invocationsPerRequest;
    const busy = (invocations * duration(kind) + rate * extraMsPerRequest) / 1000;
    rows.push({
      operation,
      rate,
      http,
      perRequest,
      rcuPerSecond: rcu,
      wcuPerSecond: wcu,
      onDemandMonthly: onDemand(rcu, wcu),
      provisionedMonthly: provisioned(rcu, wcu),
      invocationsPerSecond: invocations,
      gbSecondsMonthly: gbSecondsOf(busy),
      concurrency: busy,
    });
  };

  const { rates } = mix;
  add('create', rates.create, model.create());
  add('import', mix.import.rate, model.importLine());
  add('patch', rates.patch, model.patch());
  add('get', rates.get, model.get());
  add('list', rates.list, model.list());
  for (const filter of mix.filters)
    add(
      `list-filtered (${filter.name})`,
      filter.rate,
      model.listFiltered(filter.share, filter.length, filter.name, {
        others: filter.others.map(({ share, ...other }) =>
          share === undefined ? other : { ...other, postings: share * persons },
        ),
      }),
      {
        kind: 'list-filtered',
      },
    );
  add('reconcile', mix.reconcile.rate, model.reconcile(mix.reconcile.share));
  add('merge', rates.merge, model.merge());
  add('history', rates.history, model.history());

  // The stream's work, from what the requests above write.
  const batchingOf = (handler: string) =>
    streamSubscriptions.find((subscription) => subscription.handler === handler)?.batching;
  const creates = rates.create + mix.import.rate;
  const appendBatching = batchingOf('append-events');
  const countBatching = batchingOf('count-postings');
  const defaultBatch = { size: 1, windowSeconds: 1 };
  // Enrichment's writes, for the persons it finds something for; its function's time is its queue's.
  add('enrich', creates * mix.enrichment.share, model.enrich(), { http: false, invocationsPerRequest: 0 });
  const eventsPerSecond: Partial<Record<EventType, number>> = {};
  for (const row of rows)
    for (const [type, count] of Object.entries(row.perRequest.events) as [EventType, number][])
      eventsPerSecond[type] = (eventsPerSecond[type] ?? 0) + row.rate * count;
  // The duplicates detector's checks (lib/duplicates/detect-duplicates.ts), one an event it takes: a
  // reconciliation query of the person, read as /reconcile reads one, and the words of its name. The
  // pairs it writes follow the duplicates it finds, not the events: not priced here.
  const detector = busSubscriptions.find(({ handler }) => handler === 'detect-duplicates');
  const checks = (detector?.eventTypes ?? []).reduce((sum, type) => sum + (eventsPerSecond[type] ?? 0), 0);
  add('detect-duplicates', checks, model.duplicateCheck(mix.reconcile.share), {
    http: false,
    invocationsPerRequest: 0,
  });
  const changes = rows.reduce((sum, row) => sum + row.rate * row.perRequest.changes, 0);
  // A stream batch's events: appended to the feed (per feed shard), then put on the bus, ten a call.
  const appendBatch = appendBatching ?? defaultBatch;
  const batchEvents = Math.max(1, Math.min(appendBatch.size, changes * appendBatch.windowSeconds));
  const append = model.feedAppend(batchEvents / DESIGN.feedShards);
  const putEventsPerEvent = Math.ceil(batchEvents / LIMITS.putEventsEntries.value) / batchEvents;
  add('feed-append', changes, append, {
    http: false,
    invocationsPerRequest: 1 / batchEvents,
    extraMsPerRequest: putEventsPerEvent * duration('put-events'),
  });
  const postingRecords = rows.reduce((sum, row) => sum + row.rate * row.perRequest.postingRecords, 0);
  const countBatch = countBatching ?? defaultBatch;
  const countInvocations = Math.max(
    postingRecords > 0 ? 1 / countBatch.windowSeconds : 0,
    postingRecords / countBatch.size,
  );
  add('count-postings (at most)', postingRecords, model.countPosting(), {
    http: false,
    invocationsPerRequest: postingRecords > 0 ? countInvocations / postingRecords : 0,
    kind: 'count-postings',
  });
  const { consumers, pollSeconds, limit } = mix.feed;
  const pending = changes * pollSeconds;
  const pagesPerPoll = Math.max(1, Math.ceil(pending / limit));
  add('feed-page', (consumers / pollSeconds) * pagesPerPoll, model.feedPage(Math.min(pending, limit), limit));

  const totalRcu = rows.reduce((sum, row) => sum + row.rcuPerSecond, 0);
  const totalWcu = rows.reduce((sum, row) => sum + row.wcuPerSecond, 0);

  // Storage: the population's persons, their history and its feed events.
  const create = model.create();
  const entryBytes = (create.stored.history ?? 0) / Math.max(1, create.changes);
  const feedPerEvent = append.stored.feed ?? 0;
  const historyEntries = persons * mix.historyEntriesPerPerson;
  const bytesOf: Record<string, number> = {
    persons: persons * (create.stored.persons ?? 0),
    postings: persons * (create.stored.postings ?? 0),
    history: historyEntries * entryBytes,
    feed: historyEntries * feedPerEvent,
    claims: persons * (create.stored.claims ?? 0),
  };
  const storage = STORAGE_KINDS.filter((kind) => kind in bytesOf).map((kind) => {
    const bytes = bytesOf[kind] ?? 0;
    return { kind, bytes, monthly: (bytes / 1024 ** 3) * PRICES.storageGbMonth.usd };
  });
  const storageMonthly = storage.reduce((sum, row) => sum + row.monthly, 0);

  // The bus: each event put once (at least once: a batch delivered again puts its events again), and
  // each consumer's queue.
  const queues = queueRows(eventsPerSecond, busSubscriptions, duration);
  const queueRequests = queues.reduce((sum, row) => sum + row.requestsPerSecond, 0);

  const invocations =
    rows.reduce((sum, row) => sum + row.invocationsPerSecond, 0) +
    queues.reduce((sum, row) => sum + row.invocationsPerSecond, 0);
  const gbSeconds =
    rows.reduce((sum, row) => sum + row.gbSecondsMonthly, 0) +
    queues.reduce((sum, row) => sum + row.gbSecondsMonthly, 0);
  const lambda = {
    gbSecondsMonthly: gbSeconds,
    requestsMonthly: invocations * SECONDS_PER_MONTH,
    monthly: lambdaMonthly(invocations, gbSeconds),
  };
  const httpRate = rows.filter((row) => row.http).reduce((sum, row) => sum + row.rate, 0);
  const api = {
    requestsMonthly: httpRate * SECONDS_PER_MONTH,
    monthly: httpRate * SECONDS_PER_MONTH * PRICES.httpApiRequest.usd,
  };
  const billedEvents = changes * Math.ceil(BUS_MESSAGE_BYTES / BILLED_CHUNK_BYTES);
  const eventBridge = {
    eventsPerSecond,
    eventsMonthly: billedEvents * SECONDS_PER_MONTH,
    putEventsCallsMonthly: changes * putEventsPerEvent * SECONDS_PER_MONTH,
    monthly: billedEvents * SECONDS_PER_MONTH * PRICES.eventBridgeEvent.usd,
  };
  const queueCost = {
    rows: queues,
    requestsMonthly: queueRequests * SECONDS_PER_MONTH,
    monthly: queues.reduce((sum, row) => sum + row.sqsMonthly, 0),
  };
  const dynamoOnDemand = rows.reduce((sum, row) => sum + row.onDemandMonthly, 0);
  const dynamoProvisioned = rows.reduce((sum, row) => sum + row.provisionedMonthly, 0);
  const others = storageMonthly + lambda.monthly + api.monthly + eventBridge.monthly + queueCost.monthly;

  return {
    name: mix.name,
    persons,
    regions: mix.regions,
    rows,
    totals: {
      rcuPerSecond: totalRcu,
      wcuPerSecond: totalWcu,
      dynamoOnDemandMonthly: dynamoOnDemand,
      dynamoProvisionedMonthly: dynamoProvisioned,
    },
    storage,
    lambda,
    api,
    eventBridge,
    queues: queueCost,
    monthly: { onDemand: dynamoOnDemand + others, provisioned: dynamoProvisioned + others },
    limits: limitsOf(rows, {
      totalRcu,
      totalWcu,
      httpRate,
      throttleRate: mix.throttleRate ?? defaultThrottleRate,
      concurrency:
        rows.reduce((sum, row) => sum + row.concurrency, 0) +
        queues.reduce((sum, row) => sum + row.concurrency, 0),
      countPartitionWcu: countPartitionLoad(
        creates,
        postingRecords,
        model.sizes.busiestPrefixPostings,
        mix,
        countBatching,
      ),
      personBytes: model.sizes.person,
      streamReaders: streamSubscriptions.length,
      queues,
    }),
    notes: [
      ...(mix.regions > 1
        ? [
            `${mix.regions} regions asked: only one is modelled. Writes need a home region (a global table replicates each write to every region, paying its write units there again, and the id counter, claims and feed heads assume one writer).`,
          ]
        : []),
      ...(whatIf.length > 0
        ? [
            `A shard design other than the code's: ${whatIf.map((key) => `${key} ${design[key]} (the code's ${DESIGN[key]})`).join(', ')}. Priced as if moved to; it is a code change and a migration of every key holding such a shard.`,
          ]
        : []),
      'count-postings is priced at most: one count write per posting record; a batch sums its records per gram, so under load it writes far fewer.',
      ...queueNotes(queues, busSubscriptions),
      'Index write units (byName, byChange, byChangeId) are counted with the table writes; the bench counts table units only.',
    ],
    sizes: model.sizes,
  };
};

/**
 * The busiest posting count partition (`POSTINGCOUNT#<prefix>`, one per prefix, not sharded): one
 * UpdateItem per gram of the prefix per stream batch; batches of `count-postings` come as fast as
 * posting records fill them, or once per window when they do not.
 */
const countPartitionLoad = (
  creates: number,
  postingRecords: number,
  prefixPostings: number,
  mix: Mix,
  batching: StreamSubscription['batching'],
) => {
  if (!batching || postingRecords === 0) return 0;
  const batches = Math.max(1 / batching.windowSeconds, postingRecords / batching.size);
  return Math.min(creates * mix.commonPrefixShare, batches) * prefixPostings;
};

const limitsOf = (
  rows: readonly OperationRow[],
  load: {
    totalRcu: number;
    totalWcu: number;
    httpRate: number;
    throttleRate: number;
    concurrency: number;
    countPartitionWcu: number;
    personBytes: number;
    streamReaders: number;
    queues: readonly QueueRow[];
  },
): LimitRow[] => {
  const hot = new Map<string, { wcu: number; rcu: number }>();
  for (const row of rows)
    for (const { partition, wcu, rcu } of row.perRequest.hot) {
      const sum = hot.get(partition) ?? { wcu: 0, rcu: 0 };
      hot.set(partition, { wcu: sum.wcu + row.rate * wcu, rcu: sum.rcu + row.rate * rcu });
    }
  const limit = (
    name: string,
    where: string,
    value: number,
    { value: capacity, unit, source }: { value: number; unit: string; source: string },
    design = false,
  ): LimitRow => ({
    design,
    limit: name,
    where,
    load: value,
    capacity,
    unit,
    headroom: value > 0 ? capacity / value : Number.POSITIVE_INFINITY,
    source,
  });
  const writing = rows.filter((row) => row.perRequest.ownActions > 0);
  const largest = writing.reduce<OperationRow | undefined>(
    (top, row) => (!top || row.perRequest.ownActions > top.perRequest.ownActions ? row : top),
    undefined,
  );
  const rows_ = [
    ...[...hot]
      .filter(([, sum]) => sum.wcu > 0)
      .map(([partition, sum]) =>
        limit('partition writes', `busiest ${partition}`, sum.wcu, LIMITS.partitionWcu),
      ),
    ...[...hot]
      .filter(([, sum]) => sum.rcu > 0)
      .map(([partition, sum]) =>
        limit('partition reads', `busiest ${partition}`, sum.rcu, LIMITS.partitionRcu),
      ),
    limit(
      'partition writes',
      'busiest posting count partition (stream batches)',
      load.countPartitionWcu,
      LIMITS.partitionWcu,
    ),
    limit('table writes', 'the table, on demand', load.totalWcu, LIMITS.tableWcu),
    limit('table reads', 'the table, on demand', load.totalRcu, LIMITS.tableRcu),
    ...(largest
      ? [
          limit(
            'transaction actions',
            `${largest.operation}'s own actions, postings aside (they chain past 100)`,
            largest.perRequest.ownActions,
            LIMITS.transactionActions,
            true,
          ),
          limit(
            'transaction bytes',
            'the largest transaction of the mix',
            Math.max(...writing.map((row) => row.perRequest.transactionBytes)),
            LIMITS.transactionBytes,
            true,
          ),
        ]
      : []),
    limit('item size', 'the typical Person item', load.personBytes, LIMITS.itemBytes, true),
    limit(
      'Lambda concurrency',
      'all functions: HTTP, stream, queues (rate × duration)',
      load.concurrency,
      LIMITS.lambdaConcurrency,
    ),
    ...load.queues.map((queue) =>
      limit(
        'queue batches at once',
        `${queue.handler}'s queue (messages × duration)`,
        queue.concurrency,
        LIMITS.sqsConcurrentBatches,
      ),
    ),
    limit('HTTP API requests', 'the account, all HTTP APIs of the region', load.httpRate, LIMITS.httpApiRps),
    limit('stage throttle', "the stage's throttleRate (deploy option)", load.httpRate, {
      value: load.throttleRate,
      unit: 'requests a second, steady state',
      source: 'infra/config.ts (throttleRate)',
    }),
    limit(
      'stream readers',
      `${load.streamReaders} functions subscribed to the one stream (lib/db/table/stream-subscriptions.ts), at any load`,
      load.streamReaders,
      LIMITS.streamReaders,
      true,
    ),
  ];
  return rows_
    .filter((row) => row.load > 0)
    .sort((a, b) => Number(a.design) - Number(b.design) || a.headroom - b.headroom);
};

/**
 * What the queues' prices assume, and how long Lambda takes to reach the concurrency a consumer needs
 * (it adds up to 300 batches a minute while messages wait, from five: a steady rate is met once the
 * ramp is over, and the messages wait in the queue meanwhile).
 */
const queueNotes = (queues: readonly QueueRow[], subscriptions: readonly BusSubscription[]): string[] => {
  if (subscriptions.length === 0) return [];
  const idle = queues[0]?.idleRequestsPerSecond ?? 0;
  const start = SQS_POLLING.idlePollers.value;
  const ramping = queues.filter((queue) => queue.concurrency > start);
  const usd = (value: number) => `$${value.toFixed(2)}`;
  return [
    `The bus's queues are priced at most: a ReceiveMessage, a DeleteMessageBatch and an invocation a message; a queue that backs up fills batches (${subscriptions.map((subscription) => `${subscription.handler} ${subscription.batchSize}`).join(', ')} messages), down to that share of them. A quiet queue costs its pollers' long polls, assumed ${start} pollers × one every ${SQS_POLLING.longPollSeconds.value} s: ${Math.round(idle * 3600)} requests an hour, ${usd(idle * SECONDS_PER_MONTH * PRICES.sqsRequest.usd)} a month a queue.`,
    ...queues
      .filter((queue) => queue.assumedDuration)
      .map(
        (queue) =>
          `${queue.handler} is timed at ${ASSUMED_DURATION_MS['bus-consumer']} ms a message (bus-consumer): ASSUMED_DURATION_MS names no time for it.`,
      ),
    ...ramping.map(
      (queue) =>
        `${queue.handler} keeps ${queue.concurrency.toFixed(1)} batches busy at once: from a quiet queue Lambda reaches them in about ${Math.ceil((queue.concurrency - start) / SQS_POLLING.scalingPerMinute.value)} minute(s) (${SQS_POLLING.scalingPerMinute.value} more a minute), the messages waiting in the queue meanwhile.`,
    ),
  ];
};
