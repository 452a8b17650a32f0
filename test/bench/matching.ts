/**
 * Section 8: matching quality (issue #38). The labelled set of match-set.ts seeded into a table of its
 * own (BatchWriteItem of what a create writes: the person, its postings and counts, and its email or
 * name claims, which reconciliation finds a person by), its queries sent through the reconciliation
 * handler as OpenRefine sends them (batches of 10 keyed q0..q9, `type: Person`, no limit), and each
 * answer scored against its label: the rank of the person meant, and who got `match: true`.
 */

import { markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import type { Storage } from '../../lib/db/table/client';
import { ALL_VISIBLE } from '../../lib/domain/reconcile';
import { reconcileHandler } from '../../lib/http/reconcile-handlers';
import { lambdaContext } from '../../lib/local/lambda-context';
import { httpEvent } from '../support/events';
import {
  type CategorySpec,
  type Criterion,
  fullnameOf,
  MATCH_CATEGORIES,
  MATCH_SET,
  type MatchPerson,
  type MatchQuery,
  type MatchSet,
  personBodyOf,
} from './match-set';
import { seedPersons } from './seed';

/** What one query was answered: its candidates best first, by id, and the person meant (null: none). */
export interface MatchOutcome {
  category: string;
  expected: number | null;
  candidates: { id: number; match: boolean }[];
}

export interface MatchRow {
  /** A category, or `overall`. */
  category: string;
  criterion: Criterion | 'each its own';
  queries: number;
  /** Queries whose person is in the store (recall and ranks are over these). */
  inStore: number;
  /** Queries that met their category's criterion, and their share. */
  met: number;
  criterionShare: number;
  /** `match: true` answers, and those on the person meant. */
  matches: number;
  rightMatches: number;
  /** rightMatches / matches (null: no match:true was given). */
  precision: number | null;
  /** rightMatches / queries whose person is in the store (null: none is). */
  recall: number | null;
  /** Queries whose person is in the store with that person first, and in the first three. */
  rankOne: number | null;
  topThree: number | null;
}

/** A query as the report shows it (a miss, or a worked example): what was asked and answered. */
export interface MatchMiss {
  category: string;
  query: string;
  email?: string;
  expected: string | null;
  /** The first candidates: name, score, match, features. */
  answered: string;
}

export interface MatchingSection {
  /** The set's kinds of query (its criteria and what each plants). */
  categories: readonly CategorySpec[];
  persons: number;
  namesakeGroups: number;
  seedSeconds: number;
  querySeconds: number;
  rows: MatchRow[];
  overall: MatchRow;
  /** A few misses of each category. */
  misses: MatchMiss[];
  /** The first query of each of EXAMPLE_CATEGORIES, worked through. */
  examples: MatchMiss[];
}

/** Shares in the JSON and the report: three decimals. */
const share = (part: number, whole: number): number | null =>
  whole === 0 ? null : Number((part / whole).toFixed(3));

const rankOf = ({ expected, candidates }: MatchOutcome) =>
  expected === null ? -1 : candidates.findIndex(({ id }) => id === expected);

const criterionOf = (categories: readonly CategorySpec[], category: string): Criterion =>
  (categories.find((entry) => entry.category === category) as { criterion: Criterion }).criterion;

/** Whether an answer meets its category's criterion (of the set's `categories`). */
export const meetsCriterion = (
  outcome: MatchOutcome,
  categories: readonly CategorySpec[] = MATCH_CATEGORIES,
): boolean => {
  const matched = outcome.candidates.filter(({ match }) => match);
  switch (criterionOf(categories, outcome.category)) {
    case 'match':
      return matched.length === 1 && matched[0]?.id === outcome.expected;
    case 'rank1':
      return rankOf(outcome) === 0;
    case 'no-match':
      return matched.length === 0;
  }
};

const rowOf = (
  category: string,
  criterion: MatchRow['criterion'],
  outcomes: readonly MatchOutcome[],
  categories: readonly CategorySpec[],
) => {
  const present = outcomes.filter(({ expected }) => expected !== null);
  const matches = outcomes.flatMap(({ candidates }) => candidates.filter(({ match }) => match)).length;
  const rightMatches = outcomes.filter(({ expected, candidates }) =>
    candidates.some(({ id, match }) => match && id === expected),
  ).length;
  const met = outcomes.filter((outcome) => meetsCriterion(outcome, categories)).length;
  return {
    category,
    criterion,
    queries: outcomes.length,
    inStore: present.length,
    met,
    criterionShare: share(met, outcomes.length) ?? 0,
    matches,
    rightMatches,
    precision: share(rightMatches, matches),
    recall: share(rightMatches, present.length),
    rankOne: share(present.filter((outcome) => rankOf(outcome) === 0).length, present.length),
    topThree: share(
      present.filter((outcome) => rankOf(outcome) >= 0 && rankOf(outcome) < 3).length,
      present.length,
    ),
  };
};

/** The figures of a set of answers: a row per category (in the set's order of them) and overall. */
export const matchMetrics = (
  outcomes: readonly MatchOutcome[],
  categories: readonly CategorySpec[] = MATCH_CATEGORIES,
): { rows: MatchRow[]; overall: MatchRow } => ({
  rows: categories.flatMap(({ category, criterion }) => {
    const of = outcomes.filter((outcome) => outcome.category === category);
    return of.length === 0 ? [] : [rowOf(category, criterion, of, categories)];
  }),
  overall: rowOf('overall', 'each its own', outcomes, categories),
});

/**
 * The population (its create bodies) written as creates would write it: the person ids, in population order. `counted`
 * (the bench) marks the table's posting counts complete before the first person and counts the
 * postings as seeded, as a deployed table's stream would; without it (the regression test, which saves
 * the 4 000 count updates) the reader sizes its grams by sampling, and finds the same candidates.
 */
export const seedMatchStore = async (
  storage: Storage,
  bodies: readonly object[],
  { counted }: { counted: boolean },
) => {
  if (counted) await markPostingCountsIfEmpty(storage, new Date().toISOString());
  return seedPersons(storage, {
    from: 0,
    count: bodies.length,
    bodyOf: (n) => bodies[n] as object,
    countPostings: counted,
    // Every person's email and name claims, as its create takes them.
    claimed: () => true,
    // Its 50 000 postings: DynamoDB Local takes more writes at once than the default 8.
    concurrency: 16,
  });
};

/** OpenRefine's batch: 10 queries. */
const BATCH = 10;

type Answer = {
  result: {
    id: string;
    name: string;
    score: number;
    match: boolean;
    features: { id: string; value: number | boolean }[];
  }[];
};

/** Every query answered by the reconciliation handler, in batches as OpenRefine sends them. */
export const answerQueries = async (
  storage: Storage,
  queries: readonly MatchQuery[],
  ids: readonly number[],
): Promise<{ outcomes: MatchOutcome[]; answers: Answer[] }> => {
  const handler = reconcileHandler({ reader: reconcileReader(storage), visibility: ALL_VISIBLE });
  const answers: Answer[] = [];
  for (let at = 0; at < queries.length; at += BATCH) {
    const batch = queries.slice(at, at + BATCH);
    const sent = Object.fromEntries(
      batch.map(({ query, properties }, n) => [
        `q${n}`,
        { query, type: 'Person', ...(properties.length > 0 ? { properties } : {}) },
      ]),
    );
    const result = await handler(
      httpEvent({
        method: 'POST',
        route: '/reconcile',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ queries: JSON.stringify(sent) }).toString(),
      }),
      lambdaContext('reconcile'),
    );
    if (result.statusCode !== 200) throw new Error(`POST /reconcile: ${result.statusCode} ${result.body}`);
    const body = JSON.parse(result.body ?? '{}') as Record<string, Answer>;
    for (let n = 0; n < batch.length; n++) answers.push(body[`q${n}`] ?? { result: [] });
  }
  const outcomes = queries.map(({ category, expected }, n) => ({
    category,
    expected: expected === null ? null : (ids[expected] as number),
    candidates: (answers[n] as Answer).result.map(({ id, match }) => ({ id: Number(id), match })),
  }));
  return { outcomes, answers };
};

/** Misses kept per category for the report. */
const MISSES_EACH = 3;

/** The categories whose first query the report shows worked through (docs/matching.md quotes them). */
export const EXAMPLE_CATEGORIES: readonly string[] = ['email-domain', 'initials'];

/** A query as the report shows it: what was asked, whom it meant, the first candidates with their features. */
const shownOf = (query: MatchQuery, answer: Answer, population: readonly MatchPerson[]): MatchMiss => {
  const email = query.properties.find(({ pid }) => pid === 'email')?.v;
  return {
    category: query.category,
    query: query.query,
    ...(email ? { email } : {}),
    expected: query.expected === null ? null : fullnameOf(population[query.expected] as MatchPerson),
    answered:
      answer.result
        .slice(0, 3)
        .map(
          ({ name, score, match, features }) =>
            `${name} ${score}${match ? ' match' : ''} (${features.map(({ id, value }) => `${id} ${value}`).join(', ')})`,
        )
        .join('; ') || 'nothing',
  };
};

const missesOf = (
  queries: readonly MatchQuery[],
  outcomes: readonly MatchOutcome[],
  answers: readonly Answer[],
  { population, categories }: MatchSet,
): MatchMiss[] => {
  const kept = new Map<string, number>();
  return queries.flatMap((query, n) => {
    if (
      meetsCriterion(outcomes[n] as MatchOutcome, categories) ||
      (kept.get(query.category) ?? 0) >= MISSES_EACH
    )
      return [];
    kept.set(query.category, (kept.get(query.category) ?? 0) + 1);
    return [shownOf(query, answers[n] as Answer, population)];
  });
};

const examplesOf = (
  queries: readonly MatchQuery[],
  answers: readonly Answer[],
  population: readonly MatchPerson[],
): MatchMiss[] =>
  EXAMPLE_CATEGORIES.flatMap((category) => {
    const n = queries.findIndex((query) => query.category === category);
    return n < 0 ? [] : [shownOf(queries[n] as MatchQuery, answers[n] as Answer, population)];
  });

/**
 * One labelled set seeded into its own table and its queries (all, or a slice) answered and scored.
 * `set` is the tuning set (MATCH_SET) or the held-out one (match-set-holdout.ts), which nothing is
 * tuned on: the bench only reports it.
 */
export const runMatching = async (
  storage: Storage,
  log: (message: string) => void,
  queries: readonly MatchQuery[] = MATCH_SET.queries,
  set: MatchSet = MATCH_SET,
  name = 'matching',
): Promise<MatchingSection> => {
  const { population, categories } = set;
  const seeding = performance.now();
  const ids = await seedMatchStore(storage, population.map(personBodyOf), { counted: true });
  const seedSeconds = Number(((performance.now() - seeding) / 1000).toFixed(1));
  log(`${name}: seeded ${population.length} persons in ${seedSeconds} s; ${queries.length} queries`);
  const asking = performance.now();
  const { outcomes, answers } = await answerQueries(storage, queries, ids);
  const querySeconds = Number(((performance.now() - asking) / 1000).toFixed(1));
  const { rows, overall } = matchMetrics(outcomes, categories);
  log(
    `${name}: ${queries.length} queries in ${querySeconds} s; match:true precision ${overall.precision}, recall ${overall.recall}, rank 1 ${overall.rankOne}`,
  );
  return {
    categories,
    persons: population.length,
    namesakeGroups: new Set(
      population.flatMap(({ namesakes }) => (namesakes === undefined ? [] : [namesakes])),
    ).size,
    seedSeconds,
    querySeconds,
    rows,
    overall,
    misses: missesOf(queries, outcomes, answers, set),
    examples: examplesOf(queries, answers, population),
  };
};
