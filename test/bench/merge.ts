/**
 * Section 9: what a merge costs (issue #39, API.md 13). POST /Person/{id}/merge through the real
 * handler, wired as functions/merge-person.ts wires it (the person repository on the document client,
 * the idempotency store on the raw client under it; no key is sent), for two shapes of pair:
 * - small: one name and one email each, whose postings fit in the merge's one transaction;
 * - large: 25 emails each, whose postings do not: what is left goes in chain transactions after it.
 * Every merge takes a fresh pair, created beforehand through the repository as a create writes it
 * (person, claims, postings, history); only the merge itself is timed. Before it, the stored pair is
 * read and its merge planned as the repository plans it (person-merge.ts `planMerge`, person-write.ts
 * `composeWrite`): the transactions keys.ts's model predicts for that pair, and the actions of each,
 * against which the TransactWriteItems the merge sent are counted. Small and large alternate which
 * goes first in every iteration; then each again with every call recorded, for its capacity and the
 * actions of each transaction sent.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildHandler as buildMerge } from '../../functions/merge-person';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { countPersons } from '../../lib/db/person/read/person-list';
import { type MergeSide, planMerge } from '../../lib/db/person/write/person-merge';
import { composeWrite, type PersonWrite } from '../../lib/db/person/write/person-write';
import { personRepository } from '../../lib/db/person-repository';
import type { Storage } from '../../lib/db/table/client';
import { postingsPendingKey } from '../../lib/db/table/keys';
import { CreatePersonBody } from '../../lib/domain/schemas';
import type { SearchTerms } from '../../lib/domain/search';
import { lambdaContext } from '../../lib/local/lambda-context';
import type { HttpFunction } from '../../lib/local/server';
import { httpEvent } from '../support/events';
import {
  type Capacity,
  capacityOf,
  type Instrument,
  newTally,
  type RecordedCall,
  type Tally,
} from './capacity';
import type { BenchConfig } from './config';
import { type Summary, summarise } from './stats';

export const MERGE_PAIRS = ['small', 'large'] as const;
export type MergePair = (typeof MERGE_PAIRS)[number];

/** Emails each person of a pair holds. */
export const EMAILS_EACH: Record<MergePair, number> = { small: 1, large: 25 };

/** The transactions of one merge as composed: their number and the actions of each, in order sent. */
export interface MergeModel {
  transactions: number;
  /** Actions of each transaction: the prelude (when there is one), the write, then each chain's. */
  actions: number[];
  /** Of all of them, the search postings and `POSTINGS` items. */
  postings: number;
}

/** The transactions a composed write sends (write/send-with-postings.ts): prelude, write, chain. */
export const modelOf = ({ prelude, write, chain }: PersonWrite): MergeModel => {
  const sent = [...(prelude ? [prelude] : []), write, ...chain];
  return {
    transactions: sent.length,
    actions: sent.map(({ roles }) => roles.length),
    postings: sent.reduce(
      (sum, { roles }) => sum + roles.filter(({ kind }) => kind === 'posting' || kind === 'pending').length,
      0,
    ),
  };
};

/**
 * What keys.ts's model says the merge of `source` into `survivor` sends, planned as the repository
 * plans it. The requester, time, change ids and chain token change no count.
 */
export const predictMerge = (tableName: string, survivor: MergeSide, source: MergeSide): MergeModel =>
  modelOf(
    composeWrite(
      tableName,
      planMerge({
        tableName,
        survivor,
        source,
        requester: 0,
        now: new Date(0).toISOString(),
        changeIds: { survivor: 0, source: 0 },
      }).parts,
      'model',
    ),
  );

/** The actions of each TransactWriteItems of a recording, in order sent. */
export const transactionsOf = (calls: readonly RecordedCall[]): number[] =>
  calls
    .filter(({ command }) => command === 'TransactWriteItems')
    .map(({ input }) => (input.TransactItems as unknown[] | undefined)?.length ?? 0);

/** How a figure spread over the merges of a row: the least and the most (equal when it never varied). */
export interface Range {
  min: number;
  max: number;
}

export const rangeOf = (values: readonly number[]): Range => ({
  min: Math.min(...values),
  max: Math.max(...values),
});

export interface MergeRow {
  pair: MergePair;
  request: string;
  emailsEach: number;
  iterations: number;
  latency: Summary;
  /** DynamoDB calls per merge, averaged over the measured iterations. */
  calls: number;
  callsByCommand: Record<string, number>;
  /** TransactWriteItems per merge, over the measured and the recorded merges. */
  transactions: Range;
  /** What planMerge + composeWrite predict for each of those merges' pairs. */
  modelTransactions: Range;
  /** Merges that sent the TransactWriteItems their own pair's model predicts, of `merges`. */
  agreed: number;
  merges: number;
  /** The first recorded merge: its pair's model, and the actions of each transaction it sent. */
  example: { model: MergeModel; sent: number[] };
  /** Recorded merges whose every transaction held the actions their pair's model predicts. */
  actionsAgreed: number;
  /** Computed per merge over the accounting runs. */
  capacity: Capacity;
  accountingRuns: number;
}

export interface MergeSection {
  tablePersons: number;
  rows: MergeRow[];
}

interface Pair {
  survivor: number;
  source: number;
  model: MergeModel;
}

export const runMerge = async (
  storage: Storage,
  raw: DynamoDBClient,
  instrument: Instrument,
  config: BenchConfig,
  log: (message: string) => void,
): Promise<MergeSection> => {
  const { iterations, warmup, accountingRuns } = config.merge;
  const runId = Date.now().toString(36);
  let unique = 0;
  /** Labels of one length (a letter, the run, a counter), so every pair's names hold alike many grams. */
  const tag = (letter: string) => `${letter}${runId}${String(++unique).padStart(6, '0')}`;

  const persons = personRepository(storage);
  const { person: requesterPerson } = await persons.create(
    CreatePersonBody.parse({ Names: { '@set': [{ first_name: 'Bench', last_name: `Merger ${tag('r')}` }] } }),
    0,
  );
  const requester = requesterPerson.id;

  const side = async (id: number): Promise<MergeSide> => {
    const { Item } = await storage.client.send(
      new GetCommand({ TableName: storage.tableName, Key: postingsPendingKey(id), ConsistentRead: true }),
    );
    return { person: await persons.get(id), pending: (Item?.terms as SearchTerms | undefined) ?? null };
  };
  /** One person of a pair: one name, `emails` emails, every value of one length across the run. */
  const create = async (letter: string, emails: number) => {
    const label = tag(letter);
    const body = CreatePersonBody.parse({
      Names: { '@set': [{ first_name: 'Bench', last_name: `Merge ${label}` }] },
      Emails: {
        '@set': Array.from({ length: emails }, (_, n) => ({
          email:
            emails === 1
              ? `${label}@bench.example.org`
              : `${label}.${String(n).padStart(2, '0')}@bench.example.org`,
        })),
      },
    });
    return (await persons.create(body, requester)).person.id;
  };
  const seedPair = async (pair: MergePair): Promise<Pair> => {
    const survivor = await create('s', EMAILS_EACH[pair]);
    const source = await create('d', EMAILS_EACH[pair]);
    return {
      survivor,
      source,
      model: predictMerge(storage.tableName, await side(survivor), await side(source)),
    };
  };

  const total = warmup + iterations + accountingRuns;
  const pools = {} as Record<MergePair, Pair[]>;
  for (const pair of MERGE_PAIRS) {
    log(
      `merge: seeding ${total} ${pair} pairs (${EMAILS_EACH[pair]} email${EMAILS_EACH[pair] === 1 ? '' : 's'} each)`,
    );
    pools[pair] = [];
    for (let n = 0; n < total; n++) pools[pair].push(await seedPair(pair));
  }
  const next = (pair: MergePair) => {
    const found = pools[pair].shift();
    if (!found) throw new Error(`Out of ${pair} pairs`);
    return found;
  };

  // The handler's repository is its own, like a container's: its own id block, so a merge pays its
  // share of id allocation (2 ids a merge) as deployed, not the seeding's.
  const handler = buildMerge({
    persons: personRepository(storage),
    idempotency: { store: idempotencyStore({ client: raw, tableName: storage.tableName }) },
  }) as HttpFunction;

  /** One merge: the event built before the clock starts, its answer checked after it stops. */
  const merge = async (pair: MergePair, tally: Tally | undefined, recording: RecordedCall[] | undefined) => {
    const { survivor, source, model } = next(pair);
    const event = httpEvent({
      method: 'POST',
      route: '/Person/{id}/merge',
      path: `/Person/${survivor}/merge`,
      pathParameters: { id: String(survivor) },
      body: { source },
      requester,
    });
    const context = lambdaContext('merge-person');
    instrument.tally = tally;
    instrument.recording = recording;
    const started = performance.now();
    const result = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
    const ms = performance.now() - started;
    instrument.tally = undefined;
    instrument.recording = undefined;
    const emails = (JSON.parse(String(result.body)) as { Emails?: { '@set'?: unknown[] } }).Emails?.['@set'];
    if (result.statusCode !== 200 || emails?.length !== 2 * EMAILS_EACH[pair])
      throw new Error(
        `POST /Person/${survivor}/merge of ${source}: expected 200 with ${2 * EMAILS_EACH[pair]} emails, ` +
          `got ${result.statusCode}: ${String(result.body).slice(0, 500)}`,
      );
    return { ms, model };
  };

  log(`merge: ${iterations} (+${warmup} warm-up) merges of each pair`);
  const samples: Record<MergePair, number[]> = { small: [], large: [] };
  const tallies: Record<MergePair, Tally> = { small: newTally(), large: newTally() };
  const sent: Record<MergePair, number[]> = { small: [], large: [] };
  const predicted: Record<MergePair, number[]> = { small: [], large: [] };
  const agreed: Record<MergePair, number> = { small: 0, large: 0 };
  const count = (pair: MergePair, transactions: number, model: MergeModel) => {
    sent[pair].push(transactions);
    predicted[pair].push(model.transactions);
    if (transactions === model.transactions) agreed[pair] += 1;
  };
  for (let k = 0; k < warmup + iterations; k++) {
    const measured = k >= warmup;
    for (const pair of k % 2 === 0 ? MERGE_PAIRS : [...MERGE_PAIRS].reverse()) {
      // A tally of its own for each merge, for its TransactWriteItems; summed into the pair's.
      const tally = newTally();
      const { ms, model } = await merge(pair, tally, undefined);
      if (!measured) continue;
      samples[pair].push(ms);
      tallies[pair].calls += tally.calls;
      for (const [command, calls] of Object.entries(tally.byCommand))
        tallies[pair].byCommand[command] = (tallies[pair].byCommand[command] ?? 0) + calls;
      count(pair, tally.byCommand.TransactWriteItems ?? 0, model);
    }
  }

  // Accounting: each pair again, its calls recorded in full: capacity, and the actions of each
  // transaction against its pair's model.
  log(`merge: ${accountingRuns} recorded merges of each pair`);
  const totals = {} as Record<MergePair, Capacity>;
  const examples = {} as Record<MergePair, MergeRow['example']>;
  const actionsAgreed: Record<MergePair, number> = { small: 0, large: 0 };
  for (const pair of MERGE_PAIRS) {
    totals[pair] = { rcu: 0, wcu: 0, postingsWcu: 0, idempotencyWcu: 0, reported: 0, bytesRead: 0 };
    for (let n = 0; n < accountingRuns; n++) {
      const recording: RecordedCall[] = [];
      const { model } = await merge(pair, undefined, recording);
      const actions = transactionsOf(recording);
      examples[pair] ??= { model, sent: actions };
      count(pair, actions.length, model);
      if (actions.join() === model.actions.join()) actionsAgreed[pair] += 1;
      // No index is queried by a merge: the entry size is not used.
      const capacity = capacityOf(recording, 0);
      for (const measure of Object.keys(capacity) as (keyof Capacity)[])
        totals[pair][measure] += capacity[measure];
    }
  }

  const per = (sum: number, runs: number) => Number((sum / runs).toFixed(3));
  const rows = MERGE_PAIRS.map(
    (pair): MergeRow => ({
      pair,
      request:
        pair === 'small'
          ? 'POST /Person/{id}/merge, one name and one email each'
          : `POST /Person/{id}/merge, one name and ${EMAILS_EACH.large} emails each`,
      emailsEach: EMAILS_EACH[pair],
      iterations,
      latency: summarise(samples[pair]),
      calls: per(tallies[pair].calls, iterations),
      callsByCommand: Object.fromEntries(
        Object.entries(tallies[pair].byCommand).map(([command, calls]) => [command, per(calls, iterations)]),
      ),
      transactions: rangeOf(sent[pair]),
      modelTransactions: rangeOf(predicted[pair]),
      agreed: agreed[pair],
      merges: sent[pair].length,
      example: examples[pair],
      actionsAgreed: actionsAgreed[pair],
      capacity: Object.fromEntries(
        Object.entries(totals[pair]).map(([measure, sum]) => [measure, per(sum, accountingRuns)]),
      ) as unknown as Capacity,
      accountingRuns,
    }),
  );
  return { tablePersons: await countPersons(storage), rows };
};
