/**
 * The backfill of the search postings (lib/db/person/write/backfill.ts, `npm run backfill`): a table that holds
 * persons without postings gets exactly the postings writing them through the API gives; a second run
 * writes nothing; a run that stops is continued by the next; unfinished writes are finished. Persons
 * stored before reference items existed (#32) get theirs in the same run, and the survivors of merges
 * made before their links (#56) theirs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { mergedSources } from '../../lib/db/person/merged-from';
import { fromPersonItem } from '../../lib/db/person/person-items';
import { personList } from '../../lib/db/person/read/person-list';
import { backfillPostings, repairPostings, type SegmentProgress } from '../../lib/db/person/write/backfill';
import { mergedReferenceItem } from '../../lib/db/person/write/local-references';
import { mergedFromKey } from '../../lib/db/table/keys';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { createTestTable, forgetMergeRecord, type TestTable, testRepository } from '../support/dynamo';
import { injectFaults, sdkError } from '../support/faults';
import { distinctEmails } from '../support/fixtures';
import { checkInvariants, type Item, scanAll } from '../support/invariants';

const run = promisify(execFile);

const isPosting = (item: Item) => item.type === 'Posting';
const isReference = (item: Item) => item.type === 'LocalReference';
const byKey = (items: Item[]) => items.map((item) => `${item.pk} ${item.sk}`).sort();
const inKeyOrder = (a: Item, b: Item) => `${a.pk} ${a.sk}`.localeCompare(`${b.pk} ${b.sk}`);

/** Persons written through the API: several names, accents, emails, renames, deletes, a long one. */
const writePersons = async (table: TestTable, count: number) => {
  const api = personApi(testRepository(table));
  for (let n = 0; n < count; n++) {
    const { body } = await api.post({
      Names: {
        '@set': [
          { first_name: ['Zoë', 'José', 'Ann', 'Straße'][n % 4], last_name: uniqueTag('Núñez') },
          { freeform_name: `Alias ${n}`, primary: 2 },
        ],
      },
      Emails: { '@set': [{ email: uniqueEmail('b') }, { email: uniqueEmail('c') }] },
    });
    if (n % 3 === 0)
      await api.patch(body.id, {
        Names: { '@set': [{ id: body.Names['@set'][0]?.id, first_name: 'Renamed' }] },
      });
    if (n % 5 === 0) await api.patch(body.id, { Emails: { '@set': [{ id: body.Emails['@set'][1]?.id }] } });
  }
};

/** A copy of `source` as a table written before postings existed: every item but the postings. */
const withoutPostings = async (source: TestTable) => {
  const copy = await createTestTable();
  const items = (await scanAll(source)).filter((item) => !isPosting(item));
  for (let start = 0; start < items.length; start += 25)
    await copy.client.send(
      new BatchWriteCommand({
        RequestItems: {
          [copy.tableName]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
  return copy;
};

describe('backfilling the postings', () => {
  it('gives a table seeded without postings the same postings as writing its persons through the API; a second run writes none', async () => {
    const written = await createTestTable();
    await writePersons(written, 24);
    const expected = (await scanAll(written)).filter(isPosting);
    const bare = await withoutPostings(written);
    expect((await scanAll(bare)).filter(isPosting)).toEqual([]);

    const first = await backfillPostings(bare, { run: 'test', segments: 3 });
    expect(first.every((segment) => segment.done)).toBe(true);
    expect(first.reduce((sum, segment) => sum + segment.persons, 0)).toBe(24);
    expect(first.reduce((sum, segment) => sum + segment.written, 0)).toBe(expected.length);
    const postings = (await scanAll(bare)).filter(isPosting);
    expect(byKey(postings)).toEqual(byKey(expected));
    expect(postings.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`))).toEqual(
      expected.sort((a, b) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`)),
    );
    expect(await checkInvariants(bare)).toEqual([]);

    const again = await backfillPostings(bare, { run: 'test', segments: 3, restart: true });
    expect(again.reduce((sum, segment) => sum + segment.persons, 0)).toBe(24);
    expect(again.reduce((sum, segment) => sum + segment.written + segment.repaired, 0)).toBe(0);
  });

  it('goes on where a stopped run left off, checking each person once', async () => {
    const written = await createTestTable();
    await writePersons(written, 12);
    const bare = await withoutPostings(written);
    let firstPage: SegmentProgress | undefined;
    const stopped = await backfillPostings(bare, {
      run: 'test',
      segments: 1,
      pageSize: 20,
      onPage: (progress) => {
        firstPage = progress;
        throw new Error('stopped after one page');
      },
    }).catch((error: Error) => error.message);
    expect(stopped).toBe('stopped after one page');
    expect(firstPage?.persons).toBeGreaterThan(0);
    expect(firstPage?.persons).toBeLessThan(12);
    const [after] = await backfillPostings(bare, { run: 'test', segments: 1, pageSize: 20 });
    // Counted on from the first run: a run that started over would count only its own postings.
    expect(after).toMatchObject({ done: true, persons: 12, repaired: 12 });
    expect(after?.written).toBe((await scanAll(bare)).filter(isPosting).length);
    expect(await checkInvariants(bare)).toEqual([]);
  });

  it("finishes a write's unfinished postings, and a person written meanwhile is read again", async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table, { logger: { warn: () => undefined } }));
    const stop = injectFaults(table.client, (name, input) =>
      name === 'TransactWriteItemsCommand' &&
      (input.TransactItems as Item[]).some((action) => (action.ConditionCheck as Item | undefined)?.Key)
        ? sdkError('InternalServerError')
        : undefined,
    );
    const cut = await api.post({
      Names: { '@set': [{ first_name: 'Cut', last_name: uniqueTag('Off') }] },
      Emails: { '@set': distinctEmails(20) },
    });
    stop();
    expect(cut.status).toBe(201);
    expect((await checkInvariants(table)).some((problem) => problem.includes('postings pending'))).toBe(true);

    const { body: moving } = await api.post(personBody('Moving', uniqueTag('Target'), uniqueEmail()));
    const stale = fromPersonItem(
      (await scanAll(table)).find((item) => item.type === 'Person' && item.id === moving.id) ?? {},
    );
    await api.patch(moving.id, {
      Names: { '@set': [{ id: moving.Names['@set'][0]?.id, first_name: 'Moved' }] },
    });
    for (const item of (await scanAll(table)).filter((each) => isPosting(each) && each.id === moving.id))
      await table.client.send(
        new DeleteCommand({ TableName: table.tableName, Key: { pk: item.pk, sk: item.sk } }),
      );
    expect(await repairPostings(table, stale)).toBeGreaterThan(0);

    await backfillPostings(table, { run: 'test', segments: 2 });
    expect(await checkInvariants(table)).toEqual([]);
  });

  it('gives the persons stored before reference items existed theirs, in the same scan, and a list by local_reference_id finds them', async () => {
    const written = await createTestTable();
    const api = personApi(testRepository(written));
    const tag = uniqueTag('ref');
    const values = [`${tag}-a`, `${tag}-a`, `${tag}-b`, null, ''];
    for (const [n, local_reference_id] of values.entries()) {
      const { status } = await api.post({
        ...personBody('Ref', `${uniqueTag('Holder')}${n}`, uniqueEmail()),
        local_reference_id,
      });
      expect(status).toBe(201);
    }
    await writePersons(written, 3);
    const expected = (await scanAll(written)).filter(isReference);
    expect(expected).toHaveLength(3);
    // A table of before #32: every item but the reference items; and one of before #25: no postings.
    const copy = async (keep: (item: Item) => boolean) => {
      const table = await createTestTable();
      const items = (await scanAll(written)).filter(keep);
      for (let start = 0; start < items.length; start += 25)
        await table.client.send(
          new BatchWriteCommand({
            RequestItems: {
              [table.tableName]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
            },
          }),
        );
      return table;
    };
    const withoutReferences = await copy((item) => !isReference(item));
    const bare = await copy((item) => !isReference(item) && !isPosting(item));

    const [done] = await backfillPostings(withoutReferences, { run: 'test', segments: 1 });
    // Only the three persons with a value were written to, one item each.
    expect(done).toMatchObject({ done: true, persons: 8, repaired: 3, written: 3 });
    expect(byKey((await scanAll(withoutReferences)).filter(isReference))).toEqual(byKey(expected));
    expect(await checkInvariants(withoutReferences)).toEqual([]);
    const { count } = await personList(withoutReferences).list(
      personListRequest(ListPersonsQuery.parse({ local_reference_id: `${tag}-a` })),
    );
    expect(count).toBe(2);

    await backfillPostings(bare, { run: 'test', segments: 2 });
    expect((await scanAll(bare)).filter(isReference).sort(inKeyOrder)).toEqual(expected.sort(inKeyOrder));
    expect(await checkInvariants(bare)).toEqual([]);
  });

  it('gives the survivor of a merge made before the links its link to the merged person; a second run writes none', async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    const create = async (label: string) =>
      (await api.post(personBody(label, uniqueTag('Merged'), uniqueEmail()))).body.id;
    const [a, b, c] = [await create('A'), await create('B'), await create('C')];
    expect((await api.merge(b, { source: a })).status).toBe(200);
    expect((await api.merge(c, { source: b })).status).toBe(200);
    const links = async () => (await scanAll(table)).filter((item) => item.type === 'MergedFrom');
    const merged = await links();
    expect(byKey(merged)).toEqual(byKey([{ ...mergedFromKey(b, a) }, { ...mergedFromKey(c, b) }]));
    // A table of before #56: the merges' links gone.
    for (const link of merged)
      await table.client.send(
        new DeleteCommand({ TableName: table.tableName, Key: { pk: link.pk, sk: link.sk } }),
      );
    expect((await checkInvariants(table)).filter((problem) => problem.includes('link'))).toHaveLength(2);

    const [done] = await backfillPostings(table, { run: 'test', segments: 1 });
    expect(done).toMatchObject({ done: true, persons: 3, repaired: 2, written: 2 });
    // The same links, `at` the merged person's last change (its merge), without the merge's record
    // (an unmerge rebuilds it from the MERGE entries: test/integration/merge-record.test.ts).
    const stored = (await scanAll(table)).filter((item) => item.sk === 'PERSON');
    const modified = (id: number) =>
      (stored.find((item) => item.id === id)?.CoreMetaData as { date_modified?: string } | undefined)
        ?.date_modified;
    expect((await links()).sort(inKeyOrder)).toEqual(
      merged
        .map(({ record: _record, ...link }) => ({ ...link, at: modified(link.sourceId as number) }))
        .sort(inKeyOrder),
    );
    expect(await mergedSources(table, c)).toEqual([b, a]);
    expect(await checkInvariants(table)).toEqual([]);

    const [again] = await backfillPostings(table, { run: 'test', segments: 1, restart: true });
    expect(again).toMatchObject({ done: true, persons: 3, repaired: 0, written: 0 });
  });

  it("gives a person merged before merges kept their keys its merged reference, its key finding the survivor; the survivor's erasure deletes it", async () => {
    const table = await createTestTable();
    const api = personApi(testRepository(table));
    const tag = uniqueTag('crm');
    const create = async (label: string, local_reference_id?: string) =>
      (
        await api.post({
          ...personBody(label, uniqueTag('Merged'), uniqueEmail()),
          ...(local_reference_id ? { local_reference_id } : {}),
        })
      ).body as { id: number; fullname: string };
    const [a, b, c] = [await create('A', `${tag}-a`), await create('B', tag), await create('C')];
    expect((await api.merge(a.id, { source: b.id })).status).toBe(200);
    expect((await api.merge(c.id, { source: a.id })).status).toBe(200);
    const references = async () =>
      (await scanAll(table)).filter(
        (item) => isReference(item) && String(item.pk).startsWith(`LOCALREF#${tag}`),
      );
    const expected: Item[] = [
      { ...mergedReferenceItem(tag, b.id) },
      { ...mergedReferenceItem(`${tag}-a`, a.id) },
    ];
    expect(byKey(await references())).toEqual(byKey(expected));
    const lookUp = async (value: string) =>
      (await personList(table).list(personListRequest(ListPersonsQuery.parse({ local_reference_id: value }))))
        .persons;
    // A table of before #58: the links keep no record and the merges left no merged reference.
    for (const link of (await scanAll(table)).filter((item) => item.type === 'MergedFrom'))
      await forgetMergeRecord(table, { pk: String(link.pk), sk: String(link.sk) });
    for (const { pk, sk } of await references())
      await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: { pk, sk } }));
    expect(await lookUp(tag)).toEqual([]);

    const [done] = await backfillPostings(table, { run: 'test', segments: 1 });
    expect(done).toMatchObject({ done: true, persons: 3, repaired: 2, written: 2 });
    expect((await references()).sort(inKeyOrder)).toEqual(expected.sort(inKeyOrder));
    expect(await lookUp(tag)).toEqual([{ id: c.id, fullname: c.fullname }]);
    expect(await lookUp(`${tag}-a`)).toEqual([{ id: c.id, fullname: c.fullname }]);
    expect(await checkInvariants(table)).toEqual([]);
    const [again] = await backfillPostings(table, { run: 'test', segments: 1, restart: true });
    expect(again).toMatchObject({ done: true, persons: 3, repaired: 0, written: 0 });

    // The survivor erased: the merged references go with the rest, found by the key the history holds.
    expect((await api.erase(c.id)).status).toBe(200);
    expect(await references()).toEqual([]);
    expect(await lookUp(tag)).toEqual([]);
    expect(await checkInvariants(table)).toEqual([]);
    const [afterErasure] = await backfillPostings(table, { run: 'test', segments: 1, restart: true });
    expect(afterErasure).toMatchObject({ done: true, written: 0 });
  });

  it('npm run backfill does it on a running DynamoDB Local, with a progress line', async () => {
    const written = await createTestTable();
    await writePersons(written, 6);
    const bare = await withoutPostings(written);
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'lib/local/backfill.ts', '--segments', '2'],
      {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
          TABLE_NAME: bare.tableName,
        },
      },
    );
    expect(stdout).toMatch(
      new RegExp(
        `^backfill ${bare.tableName}: 6 persons checked, 6 repaired, \\d+ postings, reference items and links written; 2/2 segments done; [\\d.]+ s\\n$`,
      ),
    );
    expect(await checkInvariants(bare)).toEqual([]);
  }, 60_000);
});
