/**
 * The README's "Try every operation" block, pasted in order into a shell against a fresh `npm start`.
 * The block is read from README.md itself, so the README cannot drift from what the service answers:
 * bash runs it against the real local server (only the `API=` line is pointed at the test's port),
 * every `# → status` mark is checked against the status lines the step printed, and a few facts the
 * walk-through promises are checked in its answers (enrichment's version 2, the tombstone of the
 * deleted phone, the list finding the new person, the history of all four changes, the erased person's
 * tombstone and history).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from '../support/server';

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
type Json = Record<string, any>;

const HEADING = '### Try every operation';
const DEFAULT_API = 'API=http://127.0.0.1:3000';
/** The whole block: enrichment's wait is at most 10 s, the duplicate pair's 20 s, every other step well under one. */
const RUN_TIMEOUT_MS = 60_000;
const MARK = /#\s*→\s*(\d{3})\b/g;

/** The first ```sh block after the walk-through's heading. */
const walkthroughBlock = (readme: string): string => {
  const section = readme.indexOf(`\n${HEADING}\n`);
  if (section < 0) throw new Error(`README.md has no "${HEADING}" section`);
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(section));
  if (!block?.[1]) throw new Error(`The "${HEADING}" section has no sh block`);
  return block[1];
};

interface Step {
  source: string;
  /** The statuses its `# → NNN` marks promise, in the order its answers print. */
  expected: number[];
}

/** Blank lines separate the steps, as they separate them for a reader. */
const stepsOf = (block: string): Step[] =>
  block
    .split(/\n[ \t]*\n/)
    .filter((source) => source.trim() !== '')
    .map((source) => ({ source, expected: [...source.matchAll(MARK)].map((mark) => Number(mark[1])) }));

const stepEnd = (index: number) => `@@@ step ${index} exit`;
const VARS = '@@@ vars';

/**
 * The block as one bash script, as if pasted in order: a marker after each step (with the step's exit
 * status) cuts the output back into steps, and the variables the block set are printed at the end.
 */
const scriptOf = (steps: Step[], api: string) =>
  [
    ...steps.flatMap((step, index) => [
      step.source.replace(DEFAULT_API, `API=${api}`),
      `printf '\\n${stepEnd(index)} %s @@@\\n' "$?"`,
    ]),
    `printf '${VARS} %s %s %s %s %s @@@\\n' "$ID" "$PHONE" "$AUDIT" "$DUP" "$ERASE"`,
  ].join('\n');

const runBash = (script: string) =>
  new Promise<{ stdout: string; stderr: string; error: Error | null }>((resolve) => {
    execFile(
      'bash',
      ['--noprofile', '--norc', '-c', script],
      { timeout: RUN_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ stdout, stderr, error }),
    );
  });

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
  json(): Json;
}

/** The HTTP answers curl printed with `-i` in one step's output, in order. */
const answersIn = (output: string): Answer[] => {
  const starts = [...output.matchAll(/HTTP\/[\d.]+ (\d{3})[^\r\n]*\r\n/g)];
  return starts.map((start, index) => {
    const end = starts[index + 1]?.index ?? output.length;
    const text = output.slice(start.index, end);
    const split = text.indexOf('\r\n\r\n');
    const headers = new Map(
      text
        .slice(0, split)
        .split('\r\n')
        .slice(1)
        .map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
        }),
    );
    const body = text.slice(split + 4);
    // The service answers compact JSON on one line; anything after it is the step's own echo.
    return { status: Number(start[1]), headers, body, json: () => JSON.parse(body.split('\n')[0] ?? '') };
  });
};

interface StepRun extends Step {
  output: string;
  exit: number | null;
  answers: Answer[];
}

/** A command of the walk-through (its text up to its `# → NNN` mark) and the answer it printed. */
interface Command {
  text: string;
  answer: Answer | undefined;
}

/** Cuts a step at its marks: the n-th command's text ends at the n-th mark, and printed the n-th answer. */
const commandsOf = (run: StepRun): Command[] => {
  let from = 0;
  return [...run.source.matchAll(MARK)].map((mark, index) => {
    const text = run.source.slice(from, mark.index);
    from = mark.index + mark[0].length;
    return { text, answer: run.answers[index] };
  });
};

let server: ServerProcess;
let steps: StepRun[];
let stderr: string;
let vars: { id: number; phone: number; audit: number; duplicate: number; erased: number };

/** The answer of the one command whose text contains `text` (the checks find commands by what they run). */
const answerOf = (text: string): Answer => {
  const found = steps.flatMap(commandsOf).filter((command) => command.text.includes(text));
  if (found.length !== 1) throw new Error(`${found.length} commands of the walk-through run "${text}"`);
  const { answer } = found[0] as Command;
  if (!answer) throw new Error(`The command running "${text}" printed no answer`);
  return answer;
};

describe('README: "Try every operation" pasted in order on a fresh npm start', () => {
  beforeAll(async () => {
    const block = walkthroughBlock(readFileSync(new URL('../../README.md', import.meta.url), 'utf8'));
    const parsed = stepsOf(block);
    expect(block.split('\n')[0], 'the block starts by naming npm start’s default address').toBe(DEFAULT_API);
    // Without ENRICHMENT_URL the local fixture provider answers, as it does for a newcomer.
    server = await startServer({ env: { ENRICHMENT_URL: '', ENRICHMENT: '' } });
    const run = await runBash(scriptOf(parsed, server.url));
    if (run.error && !run.stdout.includes(VARS))
      throw new Error(`bash failed: ${run.error.message}\n${run.stderr}\n${run.stdout.slice(-4_000)}`);
    // What a step said on stderr, for failure messages, without curl's progress meter.
    stderr = run.stderr
      .split(/[\r\n]+/)
      .filter((line) => !/^\s*(% Total|Dload|\d+\s+\d+\s)/.test(line))
      .join('\n');
    let rest = run.stdout;
    steps = parsed.map((parsedStep, index) => {
      const end = new RegExp(`\\n${stepEnd(index)} (\\d+) @@@\\n`).exec(rest);
      const output = end ? rest.slice(0, end.index) : rest;
      rest = end ? rest.slice(end.index + end[0].length) : '';
      return { ...parsedStep, output, exit: end ? Number(end[1]) : null, answers: answersIn(output) };
    });
    const [id, phone, audit, duplicate, erased] = (
      new RegExp(`${VARS} (.*) @@@`).exec(run.stdout)?.[1] ?? ''
    ).split(' ');
    vars = {
      id: Number(id),
      phone: Number(phone),
      audit: Number(audit),
      duplicate: Number(duplicate),
      erased: Number(erased),
    };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('marks every answer the block prints with its status', () => {
    const marks = steps.flatMap((run) => run.expected);
    expect(marks.length).toBeGreaterThanOrEqual(20);
    for (const run of steps)
      expect(run.answers.length, `answers printed by:\n${run.source}\n${run.output}`).toBe(
        run.expected.length,
      );
  });

  it('runs every step to the end, each one succeeding', () => {
    for (const [index, run] of steps.entries())
      expect(run.exit, `step ${index} (stderr: ${stderr}):\n${run.source}\n${run.output}`).toBe(0);
  });

  it('gets the status each step documents', () => {
    for (const run of steps)
      expect(
        run.answers.map((answer) => answer.status),
        `step:\n${run.source}\n${run.output.slice(0, 2_000)}`,
      ).toEqual(run.expected);
  });

  it('creates the person at version 1 and takes its id from Location', () => {
    const created = answerOf('x-requester-person: 0');
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(created.headers.get('location')).toBe(`${server.url}/Person/${vars.id}`);
    expect(created.json().id).toBe(vars.id);
    // A fresh store's first person, as the comment in the block says.
    expect(vars.id).toBe(1051);
  });

  it('waits for enrichment’s version 2 before the conditional PATCH, which then succeeds', () => {
    const enriched = answerOf('seq 20');
    expect(enriched.headers.get('etag')).toBe('"2"');
    expect(enriched.json().SocialAddresses).toMatchObject({ twitter: 'https://x.com/adalovelace' });
    const patched = answerOf('"local_reference_id":"my-ref-2"');
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).toBe('"3"');
    expect(patched.json()).toMatchObject({
      local_reference_id: 'my-ref-2',
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0000' }] },
    });
  });

  it('shows a stale If-Match refused with 412, changing nothing', () => {
    const refused = answerOf('my-ref-3');
    expect(refused.status).toBe(412);
    expect(refused.json()).toMatchObject({ type: '/problems/precondition-failed' });
  });

  it('deletes the phone it added and gets its tombstone back', () => {
    const deleted = answerOf('phone-gone');
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get('etag')).toBe('"4"');
    expect(Number.isInteger(vars.phone)).toBe(true);
    expect(deleted.json().PhoneNumbers['@set']).toEqual([
      expect.objectContaining({ id: null, phone_number: null }),
      { '@type': 'PhoneNumber', id: vars.phone, local_reference_id: 'phone-gone' },
    ]);
  });

  it('finds the person in both list styles, and by its local_reference_id', () => {
    const stubs = answerOf('search=lovelace').json();
    expect(stubs['@set']).toEqual([expect.objectContaining({ id: vars.id, property_value: 'Ada Lovelace' })]);
    const paged = answerOf('last_name=love').json();
    expect(paged).toMatchObject({ '@type': 'PaginatedList', page: 1, perPage: 10, total: 1 });
    expect(paged.items).toEqual([expect.objectContaining({ id: vars.id })]);
    const byReference = answerOf('local_reference_id=my-ref-2').json();
    expect(byReference.Pagination.count).toBe(1);
    expect(byReference['@set']).toEqual([expect.objectContaining({ id: vars.id })]);
  });

  it('lists the four changes newest first: both PATCHes, the enrichment, the create', () => {
    const audit = answerOf('/audit?').json();
    expect(audit.items.map((entry: Json) => entry.action)).toEqual(['update', 'update', 'enrich', 'create']);
    const history = answerOf('object_id=$ID').json();
    expect(history['@set'].map((entry: Json) => entry.type)).toEqual(['PATCH', 'PATCH', 'ENRICH', 'POST']);
    expect(answerOf('ChangeHistory?limit=5').json()['@set']).toHaveLength(5);
    const created = answerOf('ChangeHistory/$AUDIT').json();
    expect(created).toMatchObject({
      id: vars.audit,
      type: 'POST',
      object_id: vars.id,
      previous_object: null,
    });
  });

  it('reads the vocabularies and adds a prefix of its own', () => {
    expect(answerOf('search=doc').json()['@set']).toEqual([
      expect.objectContaining({ id: 21, abbreviation: 'Dr.' }),
    ]);
    expect(answerOf('NamePrefix/21').json()).toMatchObject({ prefix: 'Doctor' });
    expect(answerOf('NameSuffix?limit=5').json()['@set']).toHaveLength(5);
    const added = answerOf('capt-1');
    expect(added.json()).toMatchObject({ abbreviation: 'Capt.', CoreMetaData: { created_by: vars.id } });
    expect(added.headers.get('location')).toBe(`${server.url}/NamePrefix/${added.json().id}`);
    expect(answerOf('Prefix?page=1').json()).toMatchObject({ '@type': 'PaginatedList', itemType: 'Prefix' });
    expect(answerOf('Suffix/19').json()).toMatchObject({ suffix: 'Esquire' });
  });

  it('changes the prefix while its ETag is current, and refuses the stale ETag with 412', () => {
    const changed = answerOf('Captain (naval)');
    expect(changed.headers.get('etag')).toBe('"2"');
    expect(changed.json()).toMatchObject({ prefix: 'Captain (naval)', abbreviation: 'Capt.' });
    const refused = answerOf('Captain (army)');
    expect(refused.headers.get('etag')).toBe('"2"');
    expect(refused.json()).toMatchObject({ type: '/problems/precondition-failed' });
    expect(refused.json().detail).toMatch(/version 2/);
  });

  it('merges the duplicate into Ada: a preview, the merge, the duplicate’s 301, and its PATCH refused', () => {
    const preview = answerOf('\\"preview\\":true');
    const merged = answerOf('\\"source\\":$DUP}');
    const person = merged.json();
    // The preview is the merge's answer but for the metadata of a write it did not make.
    const { CoreMetaData: _preview, ...previewed } = preview.json();
    const { CoreMetaData: _merged, ...made } = person;
    expect(previewed).toEqual(made);
    expect(person.CoreMetaData.version).toBe(preview.json().CoreMetaData.version);
    expect(person.Emails['@set'].map((email: Json) => [email.email, email.primary])).toEqual([
      ['ada@example.org', true],
      ['countess@example.org', false],
    ]);
    expect(person.Names['@set'].map((name: Json) => name.last_name)).toEqual(['Lovelace', 'King']);
    const gone = answerOf('Person/$DUP   ');
    expect(gone.headers.get('location')).toBe(`${server.url}/Person/${vars.id}`);
    expect(gone.json()).toMatchObject({ id: vars.duplicate, superceded_by: vars.id });
    expect(answerOf('too-late').json()).toMatchObject({
      type: '/problems/merged',
      errors: [{ existing: `${server.url}/Person/${vars.id}` }],
    });
  });

  it('undoes the merge: both persons answered, the duplicate live again, a second unmerge refused', () => {
    const undone = answerOf('\\"source\\": $DUP}').json();
    expect(undone['@type']).toBe('Unmerge');
    expect(undone.survivor.Emails['@set'].map((email: Json) => email.email)).toEqual(['ada@example.org']);
    expect(undone.survivor.Names['@set'].map((name: Json) => name.last_name)).toEqual(['Lovelace']);
    expect(undone.source).toMatchObject({ id: vars.duplicate, fullname: 'Augusta Ada King' });
    expect(undone.source.Emails['@set'].map((email: Json) => [email.email, email.primary])).toEqual([
      ['countess@example.org', true],
    ]);
    expect(answerOf('"$API/Person/$DUP"').json()).toEqual(undone.source);
    expect(answerOf('\\"preview\\": true').json()).toMatchObject({ type: '/problems/not-merged' });
  });

  it('answers HEAD with the headers of GET and no body', () => {
    const head = answerOf('curl -I');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe('"2"');
    expect(head.headers.get('content-type')).toMatch(/^application\/json/);
    expect(head.body).toBe('');
  });

  it('serves the self-description documents and the problem pages', () => {
    expect(answerOf('problems/precondition-failed').json()).toMatchObject({
      type: '/problems/precondition-failed',
      status: 412,
    });
    expect(answerOf('openapi.json').json().openapi).toMatch(/^3\.1/);
    expect(answerOf('schema/Person').json().$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(answerOf('context.jsonld').json()['@context']).toBeDefined();
  });

  it('erases a person: the tombstone answered, then 410 with it, and a history of who and when with nothing personal', () => {
    const tombstone = answerOf('DELETE $API/Person/$ERASE').json();
    expect(tombstone).toMatchObject({
      '@type': 'Person',
      id: vars.erased,
      CoreMetaData: { version: 2, live_status: 0, erased: expect.any(String) },
    });
    expect(Object.keys(tombstone).sort()).toEqual(['@context', '@id', '@type', 'CoreMetaData', 'id']);
    expect(answerOf('curl -i $API/Person/$ERASE ').json()).toEqual(tombstone);
    const history = answerOf('object_id=$ERASE').json()['@set'];
    expect(history.map((entry: Json) => [entry.type, entry.person_fk])).toEqual([
      ['ERASE', vars.erased],
      ['POST', vars.id],
    ]);
    expect(JSON.stringify(history)).not.toMatch(/rosalind|franklin/i);
  });
});
