/**
 * The capacity model (lib/capacity/, issue #43) against what the bench counts in the same run: for
 * each operation the model prices and the scale section measures, at each size it seeds, the model's
 * read and write units given what was seeded (the person sent, the index entries' and the postings'
 * measured sizes, the postings of the gram a filter reads), beside the units counted from the calls
 * (capacity.ts). Pure but for the model it calls, so the report imports no handler.
 */
import {
  costModel,
  type FilteredList,
  type OperationCost,
  type PersonShape,
} from '../../lib/capacity/operations';
import { readUnits } from '../../lib/db/table/item-size';
import { idCounterKey } from '../../lib/db/table/keys';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import type { RecordedCall } from './capacity';

/** Issue #43: the model's units per operation within this much of the bench's counted units. */
export const MODEL_TOLERANCE_PCT = 5;

export interface Units {
  rcu: number;
  wcu: number;
}

export interface ModelRow {
  operation: string;
  persons: number;
  /** Requests measured (their units averaged). */
  runs: number;
  measured: Units;
  /**
   * What AWS charges for the calls measured, where DynamoDB Local counts otherwise (a Query that finds
   * nothing: Local 0, AWS half a unit), with why: the difference is taken against it.
   */
  charged?: Units & { why: string };
  model: Units;
  /**
   * A filtered list's units as `npm run capacity` prices a population: its rarest gram's postings
   * split over the shards as chance would (their expected rounding), not as seeded. Printed beside
   * the check (which holds the cost function to the shards as they are), not checked.
   */
  expectedSplit?: Units;
  /** The larger of the read and the write difference, % of the measured (or charged) units. */
  differencePct: number;
  /** Why the row is left out of the check, when it is (printed beside it). */
  excluded?: string;
  /**
   * A list of several fragments (issue #60): its read units had every other fragment been checked on
   * the candidates, and had each been read whole and intersected, as the model prices both. The list
   * must cost at most a little more than the cheaper.
   */
  plans?: { check: number; intersect: number };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** |model − measured| / measured, in %, the worse of reads and writes (0 when both are 0). */
export const differencePct = (measured: Units, model: Units) =>
  Math.max(
    ...(['rcu', 'wcu'] as const).map((unit) => {
      if (Math.abs(model[unit] - measured[unit]) < 1e-9) return 0;
      if (measured[unit] === 0) return 100;
      return (Math.abs(model[unit] - measured[unit]) / measured[unit]) * 100;
    }),
  );

export const modelRow = (
  operation: string,
  persons: number,
  runs: number,
  measured: Units,
  model: Units,
  {
    charged,
    expectedSplit,
    excluded,
    plans,
  }: Pick<ModelRow, 'charged' | 'expectedSplit' | 'excluded' | 'plans'> = {},
): ModelRow => {
  const rounded = (units: Units) => ({ rcu: round2(units.rcu), wcu: round2(units.wcu) });
  return {
    operation,
    persons,
    runs,
    measured: rounded(measured),
    ...(charged ? { charged: { ...rounded(charged), why: charged.why } } : {}),
    model: rounded(model),
    ...(expectedSplit ? { expectedSplit: rounded(expectedSplit) } : {}),
    differencePct: round2(differencePct(charged ?? measured, model)),
    ...(excluded ? { excluded } : {}),
    ...(plans ? { plans: { check: round2(plans.check), intersect: round2(plans.intersect) } } : {}),
  };
};

/**
 * The id block's UpdateItem (one per 50 ids a container reserves): a few writes meet it 0 or 1 times,
 * so it is left out of what they measured, and its share (`idBlockShare`) out of the model's.
 */
export const isIdBlock = ({ command, input }: RecordedCall) =>
  command === 'UpdateItem' && (input.Key as { pk?: unknown } | undefined)?.pk === idCounterKey.pk;

/** The model's units of a write less its share of the id block (the id counter's hot load, spread 1). */
export const withoutIdBlock = (cost: OperationCost): Units => ({
  rcu: cost.rcu,
  wcu: cost.wcu - (cost.hot.find((load) => load.partition.startsWith('id counter'))?.wcu ?? 0),
});

/** What the writes of one size measured, per request (the id block left out), with the person sent. */
export interface MeasuredWrite {
  operation: 'create' | 'patch' | 'get';
  shape: PersonShape;
  units: Units;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The create, PATCH (one more email, `local-2@domain`, by another person) and GET the scale section
 * sent at `persons`, each priced by the model for the very person it was about.
 */
export const writeRows = (persons: number, writes: readonly MeasuredWrite[]): ModelRow[] =>
  (['create', 'patch', 'get'] as const).flatMap((operation) => {
    const sent = writes.filter((write) => write.operation === operation);
    if (sent.length === 0) return [];
    const model = sent.map(({ shape }) => {
      const priced = costModel({ persons, person: shape });
      return operation === 'create'
        ? withoutIdBlock(priced.create())
        : operation === 'patch'
          ? withoutIdBlock(priced.patch())
          : withoutIdBlock(priced.get());
    });
    const name = {
      create: 'create (one name, one email)',
      patch: 'PATCH adding one email',
      get: 'GET /Person/{id}',
    }[operation];
    return [
      modelRow(
        name,
        persons,
        sent.length,
        { rcu: mean(sent.map((write) => write.units.rcu)), wcu: mean(sent.map((write) => write.units.wcu)) },
        { rcu: mean(model.map((units) => units.rcu)), wcu: mean(model.map((units) => units.wcu)) },
      ),
    ];
  });

/** The page an unfiltered list answers by default. */
export const DEFAULT_LIMIT = personListRequest(ListPersonsQuery.parse({})).window.limit;

/** The unfiltered first page at `persons`, its index entries of the size measured. */
export const firstPageRow = (
  persons: number,
  seededShape: PersonShape,
  listEntryBytes: number,
  measured: Units,
): ModelRow => {
  const model = costModel({ persons, person: seededShape, itemBytes: { listEntry: listEntryBytes } });
  return modelRow(`first page (limit ${DEFAULT_LIMIT})`, persons, 1, measured, model.list(DEFAULT_LIMIT));
};

/**
 * A filtered list as the model takes it: the postings of its rarest gram (as many as the bench seeded,
 * in the shards they were seeded in, of their measured average size) over the persons, its fragment's
 * length in code points, and its other fragments checked on the candidates the list found.
 */
export const filteredRow = (
  query: string,
  persons: number,
  {
    seededShape,
    fragment,
    rarestPostings,
    shardPostings,
    postingBytes,
    candidates,
    others = [],
    measured,
    emptyQueries,
    excluded,
  }: {
    seededShape: PersonShape;
    fragment: string;
    rarestPostings: number;
    postingBytes: number;
    measured: Units;
    /** Its Queries of the postings that found nothing (DynamoDB Local counts them 0). */
    emptyQueries: number;
    excluded?: string;
  } & FilteredList,
): ModelRow => {
  const model = costModel({ persons, person: seededShape, itemBytes: { posting: postingBytes } });
  const priced = (known: FilteredList) =>
    model.listFiltered(rarestPostings / persons, Array.from(fragment).length, fragment, {
      ...(candidates === undefined ? {} : { candidates }),
      others,
      ...known,
    });
  const units = priced(shardPostings ? { shardPostings } : {});
  const charged =
    emptyQueries > 0
      ? {
          rcu: measured.rcu + emptyQueries * readUnits(0),
          wcu: measured.wcu,
          why: `DynamoDB Local counts 0 for its ${emptyQueries} ${emptyQueries === 1 ? 'Query' : 'Queries'} of the postings that found nothing, AWS half a unit each`,
        }
      : undefined;
  const sized = others.length > 0 && others.every((other) => other.postings !== undefined);
  return modelRow(`filtered: ${query}`, persons, 1, measured, units, {
    ...(sized
      ? {
          plans: {
            check: priced({ shardPostings, step: 'check' }).rcu,
            intersect: priced({ shardPostings, step: 'intersect' }).rcu,
          },
        }
      : {}),
    ...(charged ? { charged } : {}),
    ...(shardPostings ? { expectedSplit: priced({}) } : {}),
    ...(excluded ? { excluded } : {}),
  });
};
