/**
 * The search postings (lib/db/person/write/postings.ts, keys.ts) on every write path: written in the person's own
 * transaction, or, when they do not fit, in a chain after it; a chain cut short is finished by the
 * person's next write; a later write takes a chain over. The invariant checker (run after the file)
 * checks that every person's postings are exactly what it implies.
 */
import { GetCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { personWrite, planPersonWrite } from '../../lib/db/person/write/person-write';
import { postingItemsOf } from '../../lib/db/person/write/postings';
import { sendChain } from '../../lib/db/person/write/send-with-postings';
import { postingsPendingKey } from '../../lib/db/table/keys';
import { vocabularyRepository } from '../../lib/db/vocabulary/vocabulary-repository';
import { sendWrite } from '../../lib/db/write/send';
import { NO_ABBREVIATIONS, type Person } from '../../lib/domain/person';
import { PatchPersonBody } from '../../lib/domain/schemas';
import { RESPONSE_RESERVE_MS } from '../../lib/timeouts';
import { type Json, personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke, lambdaContext } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { distinctEmails } from '../support/fixtures';
import { type Item, postingProblems, scanAll, snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

type Transaction = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** Records the transactions the handlers send while `run` runs. */
const transactionsOf = async <T>(run: () => Promise<T>) => {
  const sent: Transaction[] = [];
  const stop = injectFaults(suite.table.client, (name, input) => {
    if (name === 'TransactWriteItemsCommand') sent.push(input.TransactItems as Transaction);
    return undefined;
  });
  try {
    return { result: await run(), sent };
  } finally {
    stop();
  }
};

const postingsIn = (transaction: Transaction) =>
  transaction.filter(
    (action) => action.Put?.Item?.type === 'Posting' || action.Delete?.Key?.pk?.startsWith('GRAM#'),
  );

const stored = async (id: number) => {
  const { Item } = await suite.table.client.send(
    new GetCommand({
      TableName: suite.table.tableName,
      Key: { pk: `PERSON#${id}`, sk: 'PERSON' },
      ConsistentRead: true,
    }),
  );
  return Item as Person;
};

/** What the checker says about one person's postings (and its POSTINGS item). */
const problemsOf = async (id: number) => {
  const items = (await scanAll(suite.table)).filter(
    (item: Item) => item.id === id || item.pk === postingsPendingKey(id).pk,
  );
  return postingProblems(items, new Map([[id, await stored(id)]]));
};

describe('postings on every write path', () => {
  it("a create writes every posting of the person in the person's own transaction", async () => {
    const { result, sent } = await transactionsOf(() =>
      suite.api.post(personBody('Zoë', uniqueTag('Ñúñez'), uniqueEmail())),
    );
    expect(result.status).toBe(201);
    expect(sent).toHaveLength(1);
    const person = await stored(result.body.id);
    expect(postingsIn(sent[0] ?? []).map((action) => action.Put?.Item)).toEqual(postingItemsOf(person));
    expect(await problemsOf(person.id)).toEqual([]);
  });

  it('a PATCH that changes no searchable value writes no posting', async () => {
    const { body: person } = await suite.api.post(personBody('Ann', uniqueTag('Lee'), uniqueEmail()));
    const { result, sent } = await transactionsOf(() =>
      suite.api.patch(person.id, { PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0100' }] } }),
    );
    expect(result.status).toBe(200);
    expect(sent.map(postingsIn)).toEqual([[]]);
  });

  it('renames, email changes and deletes of sub-objects each leave exactly the postings the person implies', async () => {
    const { body: person } = await suite.api.post({
      Names: {
        '@set': [
          { first_name: 'Maria', last_name: uniqueTag('García') },
          { first_name: 'Mary', last_name: 'Garcia', primary: 2 },
        ],
      },
      Emails: { '@set': [{ email: uniqueEmail('maria') }, { email: uniqueEmail('mg') }] },
    });
    const [name, alias] = person.Names['@set'];
    const [first, second] = person.Emails['@set'];
    for (const patch of [
      { Names: { '@set': [{ id: name?.id, first_name: 'Marie' }] } },
      { Emails: { '@set': [{ id: first?.id, email: uniqueEmail('marie') }] } },
      { Emails: { '@set': [{ id: second?.id }] } },
      { Names: { '@set': [{ id: alias?.id }] } },
      { Names: { '@set': [{ id: name?.id, freeform_name: 'La Marie' }] } },
    ]) {
      const { status } = await suite.api.patch(person.id, patch);
      expect(status).toBe(200);
      expect(await problemsOf(person.id)).toEqual([]);
    }
  });

  it("a NamePrefix's new abbreviation reaches the postings' fullname at the person's next write", async () => {
    const vocabulary = vocabularyRepository(suite.table);
    const { body: editor } = await suite.api.post(personBody('Ed', uniqueTag('Itor'), uniqueEmail()));
    const prefix = await vocabulary.create(
      'NamePrefix',
      { prefix: uniqueTag('Doctor'), abbreviation: uniqueTag('Dr') },
      editor.id,
    );
    const { body: person } = await suite.api.post({
      Names: { '@set': [{ first_name: 'Ana', last_name: uniqueTag('Ruiz'), name_prefix_fk: prefix.id }] },
    });
    const renamed = uniqueTag('Drx');
    await vocabulary.update('NamePrefix', prefix.id, { abbreviation: renamed }, editor.id);
    expect(await problemsOf(person.id)).toEqual([]);
    const { status } = await suite.api.patch(person.id, {
      Names: { '@set': [{ id: person.Names['@set'][0]?.id, first_name: 'Anna' }] },
    });
    expect(status).toBe(200);
    expect((await stored(person.id)).fullname).toContain(renamed);
    expect(await problemsOf(person.id)).toEqual([]);
  });
});

describe('postings that do not fit the transaction', () => {
  it('follow it in transactions that check the POSTINGS token, the last one deleting it', async () => {
    const { result, sent } = await transactionsOf(() =>
      suite.api.post({
        Names: { '@set': [{ first_name: 'Many', last_name: uniqueTag('Mails') }] },
        Emails: { '@set': distinctEmails(20) },
      }),
    );
    expect(result.status).toBe(201);
    const person = await stored(result.body.id);
    expect(postingItemsOf(person).length).toBeGreaterThan(300);
    expect(sent.length).toBeGreaterThan(3);
    expect(sent.every((transaction) => transaction.length <= 100)).toBe(true);
    expect(sent[0]?.find((action) => action.Put?.Item?.type === 'PostingsPending')).toBeDefined();
    for (const transaction of sent.slice(1, -1))
      expect(transaction.at(-1)?.ConditionCheck?.Key).toEqual(postingsPendingKey(person.id));
    expect(sent.at(-1)?.at(-1)?.Delete?.Key).toEqual(postingsPendingKey(person.id));
    expect(await problemsOf(person.id)).toEqual([]);
  });

  it("a chain cut short does not fail the write, and the person's next write finishes it", async () => {
    const warn = vi.fn();
    const api = personApi(testRepository(suite.table, { logger: { warn } }));
    let chainCalls = 0;
    const stop = injectFaults(suite.table.client, (name, input) => {
      const items = (input.TransactItems ?? []) as Transaction;
      const inChain = items.some((action) => action.ConditionCheck?.Key?.sk === 'POSTINGS');
      if (name === 'TransactWriteItemsCommand' && inChain && ++chainCalls === 2)
        return sdkError('InternalServerError');
      return undefined;
    });
    const created = await api
      .post({
        Names: { '@set': [{ first_name: 'Cut', last_name: uniqueTag('Short') }] },
        Emails: { '@set': distinctEmails(20) },
      })
      .finally(stop);
    expect(created.status).toBe(201);
    expect(warn).toHaveBeenCalledWith(
      'postings left pending',
      expect.objectContaining({ personIds: [created.body.id] }),
    );
    const problems = await problemsOf(created.body.id);
    expect(problems).toContain(`PERSON#${created.body.id} has postings pending (POSTINGS)`);
    expect(problems.some((problem) => problem.includes('has no posting'))).toBe(true);

    const { status } = await suite.api.patch(created.body.id, {
      PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0101' }] },
    });
    expect(status).toBe(200);
    expect(await problemsOf(created.body.id)).toEqual([]);
  });

  it("a chain that would outlast the request stops in time: 201, and the person's next write finishes it", async () => {
    const warn = vi.fn();
    const create = buildCreate({ persons: testRepository(suite.table, { logger: { warn } }) });
    const event = httpEvent({
      method: 'POST',
      route: '/Person',
      body: {
        Names: { '@set': [{ first_name: 'Out', last_name: uniqueTag('OfTime') }] },
        Emails: { '@set': distinctEmails(20) },
      },
      requester: 0,
    });
    // An invocation with nothing left beyond what the response needs: the write lands, the chain
    // after it has no time (a slow table under a person of thousands of postings, in AWS).
    const context = { ...lambdaContext(), getRemainingTimeInMillis: () => RESPONSE_RESERVE_MS };
    const created = await invoke<Json>(create, event, context);
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(warn).toHaveBeenCalledWith(
      'postings left pending',
      expect.objectContaining({ personIds: [id], outcome: 'out of time' }),
    );
    expect(await problemsOf(id)).toContain(`PERSON#${id} has postings pending (POSTINGS)`);
    const { status } = await suite.api.patch(id, {
      PhoneNumbers: { '@set': [{ phone_number: '+1 202 555 0102' }] },
    });
    expect(status).toBe(200);
    expect(await problemsOf(id)).toEqual([]);
  });

  it('a write still running when its invocation ends is answered 503 with Retry-After, not 500', async () => {
    // Every transaction takes 400 ms; the invocation has 200 ms.
    const slow = 'slow-transactions';
    suite.table.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          await new Promise((wait) => setTimeout(wait, 400));
        return next(args);
      },
      { step: 'initialize', name: slow },
    );
    try {
      const context = { ...lambdaContext(), getRemainingTimeInMillis: () => 200 };
      const answer = await invoke<Json>(
        buildCreate({ persons: testRepository(suite.table) }),
        httpEvent({
          method: 'POST',
          route: '/Person',
          body: personBody('Late', uniqueTag('Answer')),
          requester: 0,
        }),
        context,
      );
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body).toMatchObject({ type: '/problems/unavailable', status: 503 });
      // The write itself lands once its call ends: the client's retry meets it as a write would.
      await new Promise((wait) => setTimeout(wait, 600));
    } finally {
      suite.table.client.middlewareStack.remove(slow);
    }
  });

  it('a later write takes a chain over: the chain stops, and the postings are the later write’s', async () => {
    const { body } = await suite.api.post(personBody('Old', uniqueTag('Chain'), uniqueEmail()));
    const before = await stored(body.id);
    const plan = personWrite(
      suite.table.tableName,
      planPersonWrite({
        tableName: suite.table.tableName,
        start: { kind: 'update', stored: before, pending: null },
        body: PatchPersonBody.parse({ Emails: { '@set': distinctEmails(20) } }),
        requester: body.id,
        now: new Date().toISOString(),
        nextId: (() => {
          let next = 9_000_000 + body.id * 100;
          return () => next++;
        })(),
        changeId: 8_000_000 + body.id,
        abbreviations: NO_ABBREVIATIONS,
      }),
      'the-first-write',
    );
    expect(plan.chain.length).toBeGreaterThan(1);
    expect(await sendWrite(suite.table.client, plan.write)).toBe(true);
    const later = await suite.api.patch(body.id, {
      Names: { '@set': [{ id: body.Names['@set'][0]?.id, first_name: 'New' }] },
    });
    expect(later.status).toBe(200);
    expect(
      await sendChain(suite.table.client, plan.chain, { deadline: Date.now() + 5_000, backoff: () => 0 }),
    ).toBe('taken over');
    expect(await problemsOf(body.id)).toEqual([]);
  });

  /** A person of 49 emails, and a PATCH of 100 actions without postings (48 changed, one deleted). */
  const fullWrite = async () => {
    const tag = uniqueTag('full');
    const { body: person } = await suite.api.post({
      Names: { '@set': [{ first_name: 'Full', last_name: tag }] },
      Emails: { '@set': Array.from({ length: 49 }, (_, n) => ({ email: `${tag}.${n}@example.org` })) },
    });
    const emails = person.Emails['@set'];
    // 48 changed emails (a release and a take each), one deleted, the person, its entry and counter: 100.
    const patch = {
      Emails: {
        '@set': [
          ...emails.slice(0, 48).map(({ id }, n) => ({ id, email: `${tag}.new${n}@example.org` })),
          { id: emails[48]?.id },
        ],
      },
    };
    return { person, patch, tag };
  };

  it('with no room left in the write at all, the POSTINGS item goes before it, and the write succeeds as it did before postings', async () => {
    const { person, patch } = await fullWrite();
    const { result, sent } = await transactionsOf(() => suite.api.patch(person.id, patch));
    expect(result.status).toBe(200);
    expect(sent[0]?.map((action) => action.Put?.Item?.type)).toEqual(['PostingsPending']);
    expect(sent[1]).toHaveLength(100);
    expect(postingsIn(sent[1] ?? [])).toEqual([]);
    expect(await problemsOf(person.id)).toEqual([]);
  });

  it('with no room left, a write that is refused leaves nothing behind, not even the POSTINGS item', async () => {
    const { person, patch, tag } = await fullWrite();
    // Another person already holds one of the new emails: 409, after the prelude was sent.
    await suite.api.post(personBody('Holder', uniqueTag('Of'), `${tag}.new47@example.org`));
    const before = await snapshot(suite.table);
    const { result, sent } = await transactionsOf(() => suite.api.patch(person.id, patch));
    expect(result.status).toBe(409);
    expect(sent[0]?.map((action) => action.Put?.Item?.type)).toEqual(['PostingsPending']);
    expect(await snapshot(suite.table)).toEqual(before);
  });
});
