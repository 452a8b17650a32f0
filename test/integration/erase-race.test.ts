/**
 * An erasure racing 20 writers of the same person (API.md 15 "Concurrency", issue #56 step 4),
 * property-based: PATCHes of the person, merges of other persons into it and merges of it into
 * others, each from a container of its own (as Lambda runs them), sent at random moments around the
 * DELETE. Whatever the order, the requests serialize: either the erasure answers 200, every write
 * answers 200 before it or 410 `erased`, and nothing a write landed (nor the person's own values, nor
 * a person merged into it) is left anywhere in the table, ChangeHistory included; or a merge of the
 * person into another landed first, the DELETE is 409 `merged` naming the survivor, and no write is
 * refused 410. The invariant checker holds after every run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Json, personApi, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { fuzzRuns } from '../support/fuzz-runs';
import { checkInvariants, scanAll, textOf } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const BASE = 'https://api.example.test';
const WRITERS = 20;
const RUNS = fuzzRuns(5);

/** A container of its own: its own repository, no queue shared with any other request. */
const container = () => personApi(testRepository(suite.table));

type Kind = 'phone' | 'email' | 'social' | 'reference' | 'merge-in' | 'merge-out';
interface Writer {
  kind: Kind;
  /** Sent this long after the race starts. */
  delayMs: number;
}

const writerArb = fc.record({
  kind: fc.constantFrom<Kind>('phone', 'phone', 'email', 'social', 'reference', 'merge-in', 'merge-out'),
  delayMs: fc.integer({ min: 0, max: 60 }),
});

/** Writers of every kind but a merge of the person into another, spread over the race. */
const NO_MERGE_OUT: Writer[] = Array.from({ length: WRITERS }, (_, n) => ({
  kind: (['phone', 'email', 'social', 'reference', 'merge-in'] as const)[n % 5] as Kind,
  delayMs: (n * 3) % 61,
}));

type Created = Json & { id: number; CoreMetaData: { version: number } };

const create = async (first: string, tag: string): Promise<Created> => {
  const { status, body } = await container().post({
    Names: { '@set': [{ first_name: first, last_name: tag }] },
    Emails: { '@set': [{ email: uniqueEmail(tag) }] },
    PhoneNumbers: { '@set': [{ phone_number: `+1 555 ${tag}` }] },
  });
  expect(status).toBe(201);
  return body as Created;
};

/** What PATCH writer `mark` sends: one value carrying its mark. */
const patchOf = (kind: Kind, mark: string) => {
  switch (kind) {
    case 'phone':
      return { PhoneNumbers: { '@set': [{ phone_number: `+1 555 ${mark}`, local_reference_id: mark }] } };
    case 'email':
      return { Emails: { '@set': [{ email: `${mark}@example.org` }] } };
    case 'social':
      return { SocialAddresses: { twitter: `@${mark}` } };
    default:
      return { local_reference_id: mark };
  }
};

const later = (ms: number) => new Promise((settle) => setTimeout(settle, ms));

interface Outcome {
  writer: Writer;
  mark: string;
  /** The other person of a merge: the source merged in, or the survivor merged into. */
  other?: Created;
  status: number;
  body: Json;
}

/** How the runs went: which way each serialized, and how many writes landed before the erasure. */
const tally = { erased: 0, mergedFirst: 0, landed: 0, refused: 0 };

const race = async (writers: Writer[], eraseDelayMs: number) => {
  // Closed by a letter, so that no run's tag is the start of a later one's.
  const tag = `${uniqueTag('race')}r`;
  const person = await create('Erased', tag);
  // Each merge's other person, made before the race, carrying its own mark.
  const others = await Promise.all(
    writers.map((writer, n) =>
      writer.kind.startsWith('merge') ? create('Other', `${tag}w${n}q`) : Promise.resolve(undefined),
    ),
  );
  const send = async (writer: Writer, n: number): Promise<Outcome> => {
    const mark = `${tag}w${n}q`;
    const other = others[n];
    await later(writer.delayMs);
    const api = container();
    const { status, body } =
      writer.kind === 'merge-in' && other
        ? await api.merge(person.id, { source: other.id })
        : writer.kind === 'merge-out' && other
          ? await api.merge(other.id, { source: person.id })
          : await api.patch(person.id, patchOf(writer.kind, mark));
    return { writer, mark, ...(other ? { other } : {}), status, body: body as Json };
  };
  const [erased, ...outcomes] = await Promise.all([
    later(eraseDelayMs).then(() => container().erase(person.id)),
    ...writers.map(send),
  ]);
  const label = (outcome: Outcome) =>
    `${outcome.writer.kind} at ${outcome.writer.delayMs} ms (erasure at ${eraseDelayMs} ms): ${outcome.status} ${JSON.stringify(outcome.body)}`;
  for (const outcome of outcomes) expect(outcome.status, label(outcome)).toBeLessThan(500);
  const landed = outcomes.filter(({ status }) => status === 200);
  const items = await scanAll(suite.table);

  if (erased.status === 200) {
    // No merge took the person away first; every write landed before the erasure or was refused 410.
    for (const outcome of outcomes) {
      if (outcome.status === 200) expect(outcome.writer.kind, label(outcome)).not.toBe('merge-out');
      else expect(outcome.body, label(outcome)).toMatchObject({ type: '/problems/erased' });
    }
    expect((erased.body.CoreMetaData as Json).version).toBe(person.CoreMetaData.version + landed.length + 1);
    expect((await container().get(person.id)).status).toBe(410);
    // Nothing of the person, of a write that landed, or of a person merged into it is left anywhere:
    // what still carries the race's tag belongs to a person a refused merge left alone.
    const untouched = outcomes.filter(({ other, status }) => other && status !== 200).map(({ mark }) => mark);
    const left = items.filter((item) => {
      const text = textOf(item);
      return text.includes(tag) && !untouched.some((mark) => text.includes(mark));
    });
    expect(left.map((item) => `${item.pk} ${item.sk}`)).toEqual([]);
    tally.erased += 1;
    tally.landed += landed.length;
    tally.refused += outcomes.length - landed.length;
  } else {
    // A merge of the person into another came first: the DELETE names its live end, and no write was
    // refused as if the person were erased.
    expect(erased.status, JSON.stringify(erased.body)).toBe(409);
    const mergedOut = landed.filter(({ writer }) => writer.kind === 'merge-out');
    expect(mergedOut).toHaveLength(1);
    expect(erased.body).toMatchObject({
      type: '/problems/merged',
      errors: [{ existing: `${BASE}/Person/${mergedOut[0]?.other?.id}` }],
    });
    for (const outcome of outcomes) expect(outcome.status, label(outcome)).not.toBe(410);
    tally.mergedFirst += 1;
  }
  expect(await checkInvariants(suite.table)).toEqual([]);
};

describe('an erasure racing 20 writers of the same person (API.md 15)', () => {
  it(`serializes with PATCHes and merges from ${WRITERS} containers: nothing landed before its 200 survives it`, {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(writerArb, { minLength: WRITERS, maxLength: WRITERS }),
        fc.integer({ min: 0, max: 60 }),
        race,
      ),
      // A run takes seconds and its timing is not replayed exactly: report the first failing race as is.
      // The first race merges the person into no other, so that its erasure lands whatever the timing:
      // most random races hold a merge-out (each writer is one with odds 1/7), and which of it and the
      // erasure lands first is the timing's (5 runs of merge first happened on an idle machine).
      { numRuns: RUNS, endOnFailure: true, examples: [[NO_MERGE_OUT, 10]] },
    );
    console.log(`erasure races: ${JSON.stringify(tally)}`);
    expect(tally.erased).toBeGreaterThan(0);
  });
});
