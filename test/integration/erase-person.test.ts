/**
 * Erasure (API.md 15, issue #56 step 1) against DynamoDB Local, through the handlers: the tombstone
 * answered and kept, every derived item gone (postings, reference item, claims, count, binding), one
 * ERASE entry with nothing personal, 410 for reads and writes of the id, a second DELETE writing
 * nothing, If-Match, persons merged into it, requester binding, and refusals that change nothing. The race
 * with 20 concurrent writers is erase-race.test.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { buildHandler as buildCreatePerson } from '../../functions/create-person';
import { buildHandler as buildExport } from '../../functions/export-persons';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { buildHandler as buildUpdatePerson } from '../../functions/update-person';
import { idempotencyStore } from '../../lib/db/idempotency/idempotency-store';
import { personExport } from '../../lib/db/person/read/person-export';
import { personList } from '../../lib/db/person/read/person-list';
import { reconcileReader } from '../../lib/db/person/read/reconcile-candidates';
import { socialAddressWriter } from '../../lib/db/person/write/social-address-writer';
import { MAX_TRANSACTION_ACTIONS } from '../../lib/db/write/actions';
import { ALL_VISIBLE } from '../../lib/domain/reconcile';
import { finishErasures } from '../../lib/erasure/finish-erasures';
import type { HttpConfig } from '../../lib/http/config';
import { reconcileHandler } from '../../lib/http/reconcile-handlers';
import { localClientConfig } from '../../lib/local/dynamo-local';
import {
  type Json,
  personApi,
  personBody,
  personHistoryOf,
  taggedPersonBody,
  uniqueEmail,
  uniqueTag,
} from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke, personEventRecord } from '../support/events';
import { injectFaults, sdkError } from '../support/faults';
import { scanAll, snapshot, textOf } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const BASE = 'https://api.example.test';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

const meta = (person: Json) => person.CoreMetaData as Json & { version: number };

const create = async (body: unknown, requester = 0) => {
  const { status, body: created } = await suite.api.post(body, { requester });
  expect(status).toBe(201);
  return created;
};

/** A person whose every value carries `tag`: names, emails, phones, addresses, roles, references. */
const tagged = (tag: string) => create(taggedPersonBody(tag));

const listPersons = (query: Record<string, string>) =>
  invoke<{ '@set': Json[]; Pagination: { count: number } }>(
    buildListPersons({ personList: personList(suite.table) }),
    httpEvent({ method: 'GET', route: '/Person', query: { limit: '100', ...query } }),
  );

const historyOf = (id: number) => personHistoryOf(suite.table, id);

const reconcile = async (query: Json) => {
  const handler = reconcileHandler({ reader: reconcileReader(suite.table), visibility: ALL_VISIBLE });
  const { body } = await invoke<Record<string, { result: { id: string }[] }>>(
    handler,
    httpEvent({ method: 'GET', route: '/reconcile', query: { queries: JSON.stringify({ q0: query }) } }),
  );
  return body.q0?.result ?? [];
};

/** Every id GET /Person/export gives, following `next` to the end. */
const exportedIds = async () => {
  const handler = buildExport({ personExport: personExport(suite.table) });
  const ids: number[] = [];
  let query: Record<string, string> | undefined = { limit: '500' };
  while (query) {
    const { status, body }: { status: number; body: { '@set': { id: number }[]; next: string | null } } =
      await invoke(handler, httpEvent({ method: 'GET', route: '/Person/export', query }));
    expect(status).toBe(200);
    ids.push(...body['@set'].map(({ id }) => id));
    query = body.next ? Object.fromEntries(new URL(body.next).searchParams) : undefined;
  }
  return ids;
};

const TOMBSTONE_KEYS = ['@context', '@type', '@id', 'id', 'CoreMetaData'];

describe('DELETE /Person/{id} (API.md 15)', () => {
  it('answers 200 with the tombstone, which GET then answers 410, and nothing personal is left outside history', async () => {
    const tag = uniqueTag('erase').toLowerCase();
    const person = await tagged(tag);
    const requester = await create(personBody('Data', uniqueTag('steward'), uniqueEmail('steward')));
    const erased = await suite.api.erase(person.id, { requester: requester.id });
    expect(erased.status).toBe(200);
    expect(Object.keys(erased.body).sort()).toEqual([...TOMBSTONE_KEYS].sort());
    const version = meta(person).version + 1;
    expect(erased.body).toMatchObject({
      '@type': 'Person',
      '@id': `${BASE}/Person/${person.id}`,
      id: person.id,
      CoreMetaData: {
        date_created: meta(person).date_created,
        version,
        live_status: 0,
      },
    });
    const tombstoneMeta = meta(erased.body);
    expect(Object.keys(tombstoneMeta).sort()).toEqual(
      ['date_created', 'date_modified', 'erased', 'live_status', 'version'].sort(),
    );
    expect(tombstoneMeta.erased).toBe(tombstoneMeta.date_modified);
    expect(erased.headers.etag).toBe(`"${version}"`);

    const read = await suite.api.get(person.id);
    expect(read.status).toBe(410);
    expect(read.body).toEqual(erased.body);
    expect(read.headers.etag).toBe(`"${version}"`);

    // The whole table, snapshots opened: the tag is nowhere, the history entries' objects included.
    expect((await scanAll(suite.table)).filter((item) => textOf(item).includes(tag))).toEqual([]);
  });

  it('releases the claims (the same email makes a new person) and leaves lists, counts, matching and export', async () => {
    const tag = uniqueTag('claims').toLowerCase();
    const person = await tagged(tag);
    const before = (await listPersons({})).body.Pagination.count;
    expect((await listPersons({ last_name: `lovelace${tag}` })).body['@set']).toHaveLength(1);
    expect(await reconcile({ query: `Ada${tag} Lovelace${tag}` })).not.toEqual([]);
    expect(await exportedIds()).toContain(person.id);

    expect((await suite.api.erase(person.id)).status).toBe(200);
    expect((await listPersons({})).body.Pagination.count).toBe(before - 1);
    expect((await listPersons({ last_name: `lovelace${tag}` })).body['@set']).toEqual([]);
    expect((await listPersons({ local_reference_id: `crm-${tag}` })).body['@set']).toEqual([]);
    expect(await reconcile({ query: `Ada${tag} Lovelace${tag}` })).toEqual([]);
    expect(await exportedIds()).not.toContain(person.id);

    const again = await tagged(tag);
    expect(again.id).not.toBe(person.id);
    expect((await suite.api.get(person.id)).status).toBe(410);
  });

  it('writes one ERASE entry naming the requester and the caller, whose object is the tombstone', async () => {
    const tag = uniqueTag('entry').toLowerCase();
    const person = await tagged(tag);
    const erased = await suite.api.erase(person.id);
    const entries = await historyOf(person.id);
    const last = entries.find((entry) => entry.type === 'ERASE');
    expect(entries.filter((entry) => entry.type === 'ERASE')).toHaveLength(1);
    expect(last).toMatchObject({
      endpoint: 'Person',
      object_id: person.id,
      person_fk: person.id,
      changed: [
        '/local_reference_id',
        '/Names',
        '/Emails',
        '/PhoneNumbers',
        '/PersonRoles',
        '/PostalAddresses',
        '/SocialAddresses',
      ],
      current_object: erased.body,
    });
    expect(Object.keys(last?.provider_data as Json)).toContain('caller');
    expect(JSON.stringify({ ...last, previous_object: null }).toLowerCase()).not.toContain(tag);
  });

  it('answers a second DELETE 200 with the same tombstone and writes nothing, whatever If-Match says', async () => {
    const person = await create(personBody('Twice', uniqueTag('twice'), uniqueEmail()));
    const first = await suite.api.erase(person.id, { headers: { 'if-match': `"${meta(person).version}"` } });
    expect(first.status).toBe(200);
    const second = await suite.unchangedBy(() =>
      suite.api.erase(person.id, { headers: { 'if-match': `"${meta(person).version}"` } }),
    );
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it('honours If-Match: another version is 412 and changes nothing', async () => {
    const person = await create(personBody('Match', uniqueTag('match'), uniqueEmail()));
    const stale = await suite.unchangedBy(() =>
      suite.api.erase(person.id, { headers: { 'if-match': `"${meta(person).version + 5}"` } }),
    );
    expect(stale.status).toBe(412);
    expect(stale.body.type).toContain('/problems/precondition-failed');
    expect((await suite.api.get(person.id)).status).toBe(200);
  });

  it('answers every write of an erased person 410 `erased`, and an erased requester is no one (403)', async () => {
    const person = await create(personBody('Gone', uniqueTag('gone'), uniqueEmail()));
    const other = await create(personBody('Other', uniqueTag('other'), uniqueEmail()));
    await suite.api.erase(person.id);
    const patched = await suite.unchangedBy(() => suite.api.patch(person.id, { local_reference_id: 'x' }));
    expect(patched.status).toBe(410);
    expect(patched.headers['content-type']).toContain('application/problem+json');
    expect(patched.body.type).toContain('/problems/erased');
    const intoErased = await suite.unchangedBy(() => suite.api.merge(person.id, { source: other.id }));
    expect(intoErased.status).toBe(410);
    const erasedSource = await suite.unchangedBy(() => suite.api.merge(other.id, { source: person.id }));
    expect(erasedSource.status).toBe(410);
    const byErased = await suite.unchangedBy(() =>
      suite.api.patch(other.id, { local_reference_id: 'y' }, { requester: person.id }),
    );
    expect(byErased.status).toBe(403);
    expect(byErased.body.type).toContain('/problems/unknown-requester');
  });

  it('refuses an unknown person 404 and an unknown requester 403, changing nothing', async () => {
    const person = await create(personBody('Kept', uniqueTag('kept'), uniqueEmail()));
    expect(
      (await suite.unchangedBy(() => suite.api.erase(99_999_999, { requester: person.id }))).status,
    ).toBe(404);
    const unknown = await suite.unchangedBy(() => suite.api.erase(person.id, { requester: 99_999_999 }));
    expect(unknown.status).toBe(403);
    expect((await suite.unchangedBy(() => suite.api.erase(person.id, { requester: null }))).status).toBe(400);
    expect((await suite.api.get(person.id)).status).toBe(200);
  });

  it("answers DELETE of a merged person 409 `merged`; erasing the survivor erases the source's history, and its 301 ends in a 410", async () => {
    const survivor = await create(personBody('Survivor', uniqueTag('surv'), uniqueEmail()));
    const tag = uniqueTag('src').toLowerCase();
    const source = await tagged(tag);
    // A chain: a person merged into the source before the source was merged into the survivor.
    const earlierTag = uniqueTag('early').toLowerCase();
    const earlier = await tagged(earlierTag);
    expect((await suite.api.merge(source.id, { source: earlier.id })).status).toBe(200);
    expect((await suite.api.merge(survivor.id, { source: source.id })).status).toBe(200);
    const refused = await suite.unchangedBy(() => suite.api.erase(source.id, { requester: survivor.id }));
    expect(refused.status).toBe(409);
    expect(refused.body.type).toContain('/problems/merged');
    expect(JSON.stringify(refused.body.errors)).toContain(`/Person/${survivor.id}`);

    expect((await suite.api.erase(survivor.id)).status).toBe(200);
    const everywhere = (await scanAll(suite.table)).map(textOf);
    expect(everywhere.filter((text) => text.includes(tag) || text.includes(earlierTag))).toEqual([]);
    // The sources' entries keep their kind and count, and hold the merged person as its GET shows it.
    const sourceHistory = await historyOf(source.id);
    expect(sourceHistory.map((entry) => entry.type).sort()).toEqual(['MERGE', 'MERGE', 'POST']);
    for (const entry of sourceHistory)
      expect(entry.current_object).toMatchObject({ id: source.id, superceded_by: survivor.id });
    const moved = await suite.api.get(source.id);
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe(`${BASE}/Person/${survivor.id}`);
    expect((await suite.api.get(survivor.id)).status).toBe(410);
  });
});

describe('the erased history (API.md 15)', () => {
  const entriesHolding = async (tag: string) =>
    (await scanAll(suite.table)).filter(
      (item) => item.type === 'ChangeHistory' && textOf(item).includes(tag),
    );

  it('keeps every entry with its type, time, requester and changed paths; its objects become the tombstone', async () => {
    const tag = uniqueTag('history').toLowerCase();
    const person = await tagged(tag);
    expect((await suite.api.patch(person.id, { local_reference_id: `crm2-${tag}` })).status).toBe(200);
    const before = await historyOf(person.id);
    const erased = await suite.api.erase(person.id);
    const after = await historyOf(person.id);
    expect(after).toHaveLength(before.length + 1);
    const kept = ({ id, type, timestamp, person_fk, changed }: Json) => ({
      id,
      type,
      timestamp,
      person_fk,
      changed,
    });
    expect(after.filter((entry) => entry.type !== 'ERASE').map(kept)).toEqual(before.map(kept));
    for (const [index, entry] of after.entries()) {
      expect(entry.current_object, `entry ${index}`).toEqual(erased.body);
      expect(entry.previous_object, `entry ${index}`).toEqual(entry.type === 'POST' ? null : erased.body);
    }
    expect(await entriesHolding(tag)).toEqual([]);
  });

  /**
   * A person with more versions than one transaction rewrites (a chain of two), whose erasure is cut
   * short at its second transaction: storage gone for good there, the SDK gave up, the DELETE 503.
   */
  const cutShort = async (label: string) => {
    const tag = uniqueTag(label).toLowerCase();
    const person = await tagged(tag);
    for (let n = 0; n < MAX_TRANSACTION_ACTIONS + 5; n++)
      expect((await suite.api.patch(person.id, { local_reference_id: `crm-${tag}-${n}` })).status).toBe(200);
    const rewrites = { transactions: 0 };
    const stop = injectFaults(suite.table.client, (name, input) => {
      if (name !== 'TransactWriteItemsCommand' || !JSON.stringify(input).includes('#snapshot'))
        return undefined;
      rewrites.transactions += 1;
      return rewrites.transactions >= 2 ? sdkError('ThrottlingException') : undefined;
    });
    try {
      expect((await suite.api.erase(person.id)).status).toBe(503);
    } finally {
      stop();
    }
    // The tombstone stands (410), its first 100 entries are erased, the rest wait for the chain.
    expect((await suite.api.get(person.id)).status).toBe(410);
    const waiting = await entriesHolding(tag);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.length).toBeLessThan(MAX_TRANSACTION_ACTIONS);
    return { person, tag };
  };

  it('finishes a chain cut short when the DELETE is sent again: never half an erasure once it answers 200', async () => {
    const { person, tag } = await cutShort('chain');
    const retried = await suite.api.erase(person.id);
    expect(retried.status).toBe(200);
    expect(await entriesHolding(tag)).toEqual([]);
    // Finished: a third DELETE writes nothing at all.
    expect((await suite.unchangedBy(() => suite.api.erase(person.id))).status).toBe(200);
  });

  it('finishes a chain cut short when its person.erased comes from the bus, with no DELETE again', async () => {
    const { person, tag } = await cutShort('finisher');
    const version = meta((await suite.api.get(person.id)).body).version;
    const finisher = finishErasures({ persons: testRepository(suite.table), logger: quiet });
    const erased = await personEventRecord(suite.table, person.id, { version });
    expect(await finisher({ Records: [erased] })).toEqual({ batchItemFailures: [] });
    expect((await scanAll(suite.table)).filter((item) => textOf(item).includes(tag))).toEqual([]);
    // Done: the same event again, or the DELETE a client sends late, writes nothing.
    await suite.unchangedBy(() => finisher({ Records: [erased] }));
    expect((await suite.unchangedBy(() => suite.api.erase(person.id))).status).toBe(200);
  });
});

describe('the stored answers of keyed writes (API.md 5.6, 15)', () => {
  const raw = () => new DynamoDBClient(localClientConfig(inject('dynamoEndpoint')));
  /** The person's keyed PATCH of its root reference, under the key `u-<tag>`. */
  const keyedPatch = (update: ReturnType<typeof buildUpdatePerson>, id: number, tag: string) =>
    invoke<Json>(
      update,
      httpEvent({
        method: 'PATCH',
        route: '/Person/{id}',
        path: `/Person/${id}`,
        pathParameters: { id: String(id) },
        body: { local_reference_id: `ref-${tag}` },
        requester: id,
        headers: { 'idempotency-key': `u-${tag}` },
      }),
    );

  it('answers a replay of an earlier keyed write 410 `erased`, never the stored answer, which no longer holds the person', async () => {
    const client = raw();
    try {
      const idempotency = { store: idempotencyStore({ client, tableName: suite.table.tableName }) };
      const persons = testRepository(suite.table);
      const createKeyed = buildCreatePerson({ persons, idempotency });
      const updateKeyed = buildUpdatePerson({ persons, idempotency });
      const tag = uniqueTag('keyed').toLowerCase();
      const body = personBody(`Ada${tag}`, `Keyed${tag}`, `${tag}@example.org`);
      const post = () =>
        invoke<Json>(
          createKeyed,
          httpEvent({
            method: 'POST',
            route: '/Person',
            body,
            requester: 0,
            headers: { 'idempotency-key': `c-${tag}` },
          }),
        );
      const created = await post();
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const patch = () => keyedPatch(updateKeyed, id, tag);
      expect((await patch()).status).toBe(200);
      // Before the erasure a replay is the stored answer.
      expect((await post()).headers['idempotent-replayed']).toBe('true');

      expect((await suite.api.erase(id)).status).toBe(200);
      expect((await scanAll(suite.table)).filter((item) => textOf(item).includes(tag))).toEqual([]);
      for (const replay of [await post(), await patch()]) {
        expect(replay.status).toBe(410);
        expect(replay.body.type).toContain('/problems/erased');
      }
      // The replay made no new person: the email is still free, and no one holds it.
      expect((await listPersons({ email: `${tag}@example.org` })).body['@set']).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('answers a replay 410 `erased` while the erasure is cut short before its stored answers are rewritten', async () => {
    // The chain rewrites the stored answers after the erasure's transaction: until it has, a replay
    // reads the person as it is now (lib/http/idempotency.ts `erasedSince`).
    const client = raw();
    try {
      const idempotency = { store: idempotencyStore({ client, tableName: suite.table.tableName }) };
      const updateKeyed = buildUpdatePerson({ persons: testRepository(suite.table), idempotency });
      const tag = uniqueTag('pending').toLowerCase();
      const created = await suite.api.post(personBody(`Ada${tag}`, `Pending${tag}`, `${tag}@example.org`));
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      const patch = () => keyedPatch(updateKeyed, id, tag);
      expect((await patch()).status).toBe(200);

      // Storage gone when the chain rewrites the stored answers: the erasure is cut there (as a
      // SIGKILL of DynamoDB Local cuts it), its transaction done.
      const stop = injectFaults(suite.table.client, (name, input) =>
        name === 'UpdateItemCommand' && JSON.stringify(input).includes('IDEMPOTENCY#')
          ? sdkError('ThrottlingException')
          : undefined,
      );
      try {
        expect((await suite.api.erase(id)).status).toBe(503);
      } finally {
        stop();
      }
      expect((await suite.api.get(id)).status).toBe(410);

      const replay = await patch();
      expect({ status: replay.status, holdsValues: JSON.stringify(replay.body).includes(tag) }).toEqual({
        status: 410,
        holdsValues: false,
      });
      expect(replay.body.type).toContain('/problems/erased');
      expect(replay.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      client.destroy();
    }
  });
});

describe('an erasure meeting other writes', () => {
  it('erases a person too large for one transaction: its postings follow in a chain, and none is left', async () => {
    const tag = uniqueTag('large').toLowerCase();
    const names = Array.from({ length: 20 }, (_, n) => ({
      first_name: `Given${n}x${tag}`,
      last_name: `Family${n}x${tag}`,
    }));
    const emails = Array.from({ length: 20 }, (_, n) => ({ email: `m${n}.${tag}@example.org` }));
    const person = await create({ Names: { '@set': names }, Emails: { '@set': emails } });
    const postings = (await scanAll(suite.table)).filter(
      (item) => item.type === 'Posting' && textOf(item).includes(tag),
    );
    expect(postings.length).toBeGreaterThan(MAX_TRANSACTION_ACTIONS);
    expect((await suite.api.erase(person.id)).status).toBe(200);
    const live = (await scanAll(suite.table)).filter(
      (item) => item.type !== 'ChangeHistory' && textOf(item).includes(tag),
    );
    expect(live).toEqual([]);
  });

  it('gives enrichment nothing to fill once the person is erased, even when its lookup began before', async () => {
    const person = await create(personBody('Enriched', uniqueTag('enr'), uniqueEmail()));
    const writer = socialAddressWriter(suite.table);
    expect((await writer.state(person.id)).person).toBeDefined();
    await suite.api.erase(person.id);
    const before = await snapshot(suite.table);
    expect(await writer.fill(person.id, { twitter: '@late' })).toBe('no-such-person');
    expect(await snapshot(suite.table)).toEqual(before);
  });
});

describe('DELETE /Person/{id} with requester binding on (API.md 9.1, 15)', () => {
  const ISSUER = 'https://issuer.example.test';
  const IMPORTER = 'arn:aws:iam::123456789012:role/importer';
  const BOUND: HttpConfig = { requesterBinding: true, delegates: [IMPORTER] };
  const jwt = (subject: string) => ({ jwt: { claims: { iss: ISSUER, sub: subject } } });
  const bound = () => personApi(testRepository(suite.table), BOUND);

  it('lets a person erase itself, releasing its binding, and a delegate erase anyone; no one else', async () => {
    const subject = uniqueTag('self');
    const own = await bound().post(personBody('Self', uniqueTag('self'), uniqueEmail()), {
      authorizer: jwt(subject),
    });
    expect(own.status).toBe(201);
    const other = await create(personBody('Other', uniqueTag('oth'), uniqueEmail()));

    const notOwn = await suite.unchangedBy(() =>
      bound().erase(other.id, { requester: own.body.id, authorizer: jwt(subject) }),
    );
    expect(notOwn.status).toBe(403);
    expect(notOwn.body.type).toContain('/problems/delegate-required');
    const posing = await suite.unchangedBy(() =>
      bound().erase(other.id, { requester: other.id, authorizer: jwt(subject) }),
    );
    expect(posing.status).toBe(403);
    expect(posing.body.type).toContain('/problems/requester-mismatch');

    const self = await bound().erase(own.body.id, { authorizer: jwt(subject) });
    expect(self.status).toBe(200);
    // Its binding went with it: the subject may register a new person.
    const again = await bound().post(personBody('Self', uniqueTag('again'), uniqueEmail()), {
      authorizer: jwt(subject),
    });
    expect(again.status).toBe(201);

    const byDelegate = await bound().erase(other.id, {
      requester: again.body.id,
      authorizer: { iam: { userArn: IMPORTER } },
    });
    expect(byDelegate.status).toBe(200);
  });
});
