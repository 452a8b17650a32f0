/**
 * The posting counts (issue #36) kept from DynamoDB Local's own stream, fed to the count handler by
 * the local stream poller as Lambda's event source mapping would: after creates, renames (which put
 * every posting again: MODIFY records) and email changes (postings deleted), every gram's count is
 * the number of its postings in the table.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personList } from '../../lib/db/person/read/person-list';
import { countPostings, markPostingCountsIfEmpty } from '../../lib/db/person/read/posting-counts';
import { gramOfPostingKey, type Key, postingCountsCompleteKey } from '../../lib/db/table/keys';
import { isPostingInsertOrRemove } from '../../lib/db/table/stream-subscriptions';
import { ListPersonsQuery, personListRequest } from '../../lib/domain/listing';
import { planQuery } from '../../lib/domain/search';
import { personApi, personBody, uniqueTag } from '../support/api';
import { createStreamFedTable, createTestTable, type TestTable, testRepository } from '../support/dynamo';

/** How long the poller may take to hand the last records over. */
const SETTLED_WITHIN_MS = 20_000;

let table: TestTable;
let poller: Awaited<ReturnType<typeof createStreamFedTable>>['poller'];
beforeAll(async () => {
  ({ table, poller } = await createStreamFedTable(
    (fed) => ({ name: 'count-postings', accepts: isPostingInsertOrRemove, handler: countPostings(fed) }),
    100,
  ));
});
afterAll(() => poller?.stop());

/** Postings per gram in the table, and the counts the stream kept (a test table: a scan is fine). */
const tally = async () => {
  const { Items = [] } = await table.client.send(new ScanCommand({ TableName: table.tableName }));
  const postings = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const item of Items) {
    if (item.type === 'Posting') {
      const gram = gramOfPostingKey(item as Key) as string;
      postings.set(gram, (postings.get(gram) ?? 0) + 1);
    }
    if (item.type === 'PostingCount' && item.postings !== 0)
      counts.set(`${String(item.pk).slice('POSTINGCOUNT#'.length)}${item.sk}`, Number(item.postings));
  }
  return { postings: Object.fromEntries(postings), counts: Object.fromEntries(counts) };
};

const settled = async () => {
  const deadline = Date.now() + SETTLED_WITHIN_MS;
  for (;;) {
    const { postings, counts } = await tally();
    if (JSON.stringify(Object.entries(postings).sort()) === JSON.stringify(Object.entries(counts).sort()))
      return postings;
    if (Date.now() > deadline) expect(counts).toEqual(postings);
    await new Promise((wait) => setTimeout(wait, 200));
  }
};

describe('the posting counts, from the stream', () => {
  it('are marked complete on a table that holds no person yet, and only then', async () => {
    expect(await markPostingCountsIfEmpty(table, '2026-11-26T00:00:00Z')).toBe(true);
    // Again: the mark stays as it was.
    expect(await markPostingCountsIfEmpty(table, '2026-11-27T00:00:00Z')).toBe(true);
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: postingCountsCompleteKey }),
    );
    expect(Item).toMatchObject({ at: '2026-11-26T00:00:00Z' });

    const other = await createTestTable();
    expect((await personApi(testRepository(other)).post(personBody('Ada', 'Lovelace'))).status).toBe(201);
    expect(await markPostingCountsIfEmpty(other, '2026-11-26T00:00:00Z')).toBe(false);
    const unmarked = await other.client.send(
      new GetCommand({ TableName: other.tableName, Key: postingCountsCompleteKey }),
    );
    expect(unmarked.Item).toBeUndefined();
  });

  it('equal the postings of every gram after creates, renames and email changes', async () => {
    const api = personApi(testRepository(table));
    const family = uniqueTag('owski');
    const created = [];
    for (const [first, last] of [
      ['Jan', `Nowak${family}`],
      ['Anna', `Kowal${family}`],
      ['Maria', `Lewand${family}`],
      ['Maria', `Nowak${family}`],
    ]) {
      const { status, body } = await api.post(
        personBody(first as string, last as string, `${first}.${last}@example.org`.toLowerCase()),
      );
      expect(status).toBe(201);
      created.push(body);
    }
    const before = await settled();
    // Nowak and Kowal share `owa`; the family tag's grams are held by all four.
    expect(Object.values(before).some((count) => count === 4)).toBe(true);

    const [jan, anna] = created as [(typeof created)[number], (typeof created)[number]];
    // A rename puts every posting of the person again (MODIFY) and some new ones; an email change
    // deletes the old email's postings.
    const [name] = jan.Names['@set'];
    const [email] = anna.Emails['@set'];
    const renamed = await api.patch(jan.id, { Names: { '@set': [{ id: name?.id, first_name: 'Janusz' }] } });
    expect(renamed.status).toBe(200);
    const moved = await api.patch(anna.id, {
      Emails: { '@set': [{ id: email?.id, email: `${uniqueTag('ak')}@example.net` }] },
    });
    expect(moved.status).toBe(200);
    const after = await settled();
    expect(after).not.toEqual(before);

    // A filtered list reads the counts and then exactly the rarest gram of its fragment.
    const fragment = `nowak${family}`.toLowerCase();
    const answer = await personList(table).list(
      personListRequest(ListPersonsQuery.parse({ last_name: fragment })),
    );
    expect(answer.count).toBe(2);
    const rarest = Math.min(
      ...planQuery({ last_name: fragment }).probes.map((probe) =>
        probe.kind === 'gram' ? (after[probe.gram] ?? 0) : Number.POSITIVE_INFINITY,
      ),
    );
    expect(answer.detail).toMatchObject({ sizedBy: 'counts', samplePostings: 0, postingsRead: rarest });
  }, 60_000);
});
