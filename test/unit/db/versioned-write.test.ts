import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { buildPersonWrite } from '../../../lib/db/person-items';
import { NOTHING_BEFORE } from '../../../lib/db/postings';
import { decodeSnapshot, encodeSnapshot } from '../../../lib/db/snapshots';
import { retrying, sendWrite } from '../../../lib/db/versioned-write';
import {
  type ActionRole,
  claimActions,
  existsCheck,
  historyActions,
  MAX_ITEM_BYTES,
  MAX_TRANSACTION_ACTIONS,
  objectPut,
  transactionOf,
  type WriteTransaction,
  withinItemLimit,
} from '../../../lib/db/write-actions';
import { type ChangeEntry, NO_PROVIDER_DATA, personChangeEntry } from '../../../lib/domain/change-history';
import { ServiceUnavailable, UniquenessConflict, ValidationFailed } from '../../../lib/domain/errors';
import { type ClaimToTake, mergePerson } from '../../../lib/domain/merge';
import type { Claim, Person } from '../../../lib/domain/person';
import { CreatePersonBody, LIMITS } from '../../../lib/domain/schemas';
import type { VocabularyEntry, VocabularyKind } from '../../../lib/domain/vocabulary';
import { CHANGE_ID, SEEDED_ABBREVIATIONS } from '../../support/fixtures';

const TABLE = 'people-test';
const AT = '2026-01-02T03:04:05.000Z';
/** DynamoDB's limit on the size of one item. */
const DYNAMODB_ITEM_LIMIT_BYTES = 400 * 1024;

/** The NamePrefix entry Doctor/"Dr." (21) at its third version. */
const doctor: VocabularyEntry = {
  id: 21,
  term: 'Doctor',
  abbreviation: 'Dr.',
  local_reference_id: null,
  CoreMetaData: {
    date_created: AT,
    date_modified: AT,
    created_by: null,
    modified_by: 5,
    version: 3,
    created_audit_id: 1_001,
    modified_audit_id: CHANGE_ID,
  },
};

const entryOf = (overrides: Partial<ChangeEntry>): ChangeEntry => ({
  id: CHANGE_ID,
  endpoint: 'NamePrefix',
  object_id: 21,
  version: 3,
  action: 'update',
  requester: 5,
  at: AT,
  changed: ['/abbreviation'],
  provider_data: NO_PROVIDER_DATA,
  ...overrides,
});

/**
 * An item's size as DynamoDB's JSON wire format carries it: marshalled, with binary values in base64
 * (which over-counts their stored size by a third, so the bound is safe).
 */
const wireBytes = (item: Record<string, unknown>) =>
  Buffer.byteLength(
    JSON.stringify(
      marshall(item, { removeUndefinedValues: true }),
      function (this: Record<string, unknown>, key, value) {
        const original = this[key];
        return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
      },
    ),
  );

/** Deterministic, hard to compress text (mulberry32), so gzip cannot hide the size of a large person. */
const textSource = (seed: number) => {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const ascii = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const wide = `${ascii}éñüöçàèìòùáíóúâêîôûäëïÿ`;
  const of = (alphabet: string) => (length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  const asciiText = of(ascii);
  return {
    /** Up to two bytes a character: longer in bytes than plain ASCII, as GRC's data often is. */
    text: of(wide),
    /** An address of the longest valid length, 254 characters. */
    email: () => `${asciiText(64)}@${asciiText(61)}.${asciiText(61)}.${asciiText(61)}.com`,
  };
};

const many = <T>(count: number, make: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => make(index));

/** 20 Names and 50 Emails, every string of its maximal length. */
const namesAndEmails = (seed: number) => {
  const { text, email } = textSource(seed);
  return {
    Names: {
      '@set': many(LIMITS.sets.Names, (index) => ({
        first_name: text(LIMITS.text),
        last_name: text(LIMITS.text),
        middle_initial: text(LIMITS.text),
        freeform_name: text(LIMITS.text),
        name_prefix_fk: 21,
        name_suffix_fk: 1,
        primary: index === 0,
        local_reference_id: text(LIMITS.localReferenceId),
      })),
    },
    Emails: {
      '@set': many(LIMITS.sets.Emails, () => ({
        email: email(),
        local_reference_id: text(LIMITS.localReferenceId),
      })),
    },
  };
};

/** Every set at its limit, every string at its maximal length: a body just under the 256 KiB limit. */
const everySetFull = (seed: number) => {
  const { text } = textSource(seed + 1);
  const named = (count: number) =>
    many(count, () => ({ name: text(LIMITS.text), local_reference_id: text(LIMITS.localReferenceId) }));
  return {
    ...namesAndEmails(seed),
    PhoneNumbers: {
      '@set': many(LIMITS.sets.PhoneNumbers, () => ({
        phone_number: text(LIMITS.text),
        local_reference_id: text(LIMITS.localReferenceId),
      })),
    },
    PersonRoles: { '@set': named(LIMITS.sets.PersonRoles) },
    PostalAddresses: {
      '@set': many(LIMITS.sets.PostalAddresses, () => ({
        address1: text(LIMITS.text),
        address2: text(LIMITS.text),
        city: text(LIMITS.text),
        state_territory_province: text(LIMITS.text),
        postal_code: text(LIMITS.text),
        country: text(LIMITS.text),
        country_code: text(LIMITS.text),
        local_reference_id: text(LIMITS.localReferenceId),
      })),
    },
    PersonMemberships: {
      PersonOrganizations: { '@set': named(LIMITS.sets.PersonOrganizations) },
      PersonGroups: { '@set': named(LIMITS.sets.PersonGroups) },
      PersonInitiatives: { '@set': named(LIMITS.sets.PersonInitiatives) },
      PersonTeams: { '@set': named(LIMITS.sets.PersonTeams) },
    },
    local_reference_id: text(LIMITS.localReferenceId),
  };
};

describe('objectPut', () => {
  const item = { pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000021', type: 'NamePrefix', ...doctor };

  it('creates only where nothing is', () => {
    expect(objectPut(TABLE, item, null)).toEqual([
      { Put: { TableName: TABLE, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      { kind: 'object' },
    ]);
  });

  it('updates only an existing object still at the version the change was merged onto', () => {
    expect(objectPut(TABLE, item, 2)).toEqual([
      {
        Put: {
          TableName: TABLE,
          Item: item,
          ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
          ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
          ExpressionAttributeValues: { ':previous': 2 },
        },
      },
      { kind: 'object' },
    ]);
  });
});

describe('historyActions', () => {
  it.each<[ChangeEntry['endpoint'], number, number, string, string]>([
    ['Person', 100, 9_005, 'PERSON#100', 'Person#5'],
    ['NamePrefix', 21, 9_005, 'NAMEPREFIX#21', 'NamePrefix#0'],
    ['NameSuffix', 19, 9_005, 'NAMESUFFIX#19', 'NameSuffix#0'],
  ])(
    "puts a %s entry once per version in the object's history, listed and counted in its shard",
    (endpoint, objectId, id, pk, shard) => {
      const entry = entryOf({ endpoint, object_id: objectId, id });

      expect(historyActions(TABLE, entry, doctor)).toEqual([
        [
          {
            Put: {
              TableName: TABLE,
              Item: {
                pk,
                sk: 'AUDIT#0000000003',
                changePk: `CHANGES#${shard}`,
                changeSk: `${AT}#0000000000009005`,
                changeId: 9_005,
                type: 'ChangeHistory',
                ...entry,
                snapshot: expect.any(Uint8Array),
              },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { kind: 'history' },
        ],
        [
          {
            Update: {
              TableName: TABLE,
              Key: { pk: `COUNTER#changes#${shard}`, sk: 'COUNTER' },
              UpdateExpression: 'ADD #value :count',
              ExpressionAttributeNames: { '#value': 'value' },
              ExpressionAttributeValues: { ':count': 1 },
            },
          },
          { kind: 'counter' },
        ],
      ]);
    },
  );

  it('stores a snapshot that reads back as the object after the change', () => {
    const [history] = historyActions(TABLE, entryOf({}), doctor).map(([item]) => item);

    expect(decodeSnapshot<VocabularyEntry>(history?.Put?.Item?.snapshot as Uint8Array)).toEqual(doctor);
  });
});

describe('encodeSnapshot and decodeSnapshot', () => {
  it('round-trip an object, nulls and non-ASCII text included', () => {
    const object = { id: 1, fullname: 'Zoë Ångström 名前 😀', local_reference_id: null, Names: [{ id: 2 }] };

    expect(decodeSnapshot(encodeSnapshot(object))).toEqual(object);
  });

  it('read no snapshot as null (the object before a create)', () => {
    expect(decodeSnapshot(undefined)).toBeNull();
  });
});

describe('claimActions', () => {
  it.each<[VocabularyKind, string]>([
    ['NamePrefix', 'dr.'],
    ['NameSuffix', 'phd'],
  ])('takes and releases the abbreviation claim of a %s entry under entryId', (kind, value) => {
    const claim: ClaimToTake = { field: kind, value, path: '/abbreviation' };
    const released: Claim = { field: kind, value: 'doc' };

    expect(claimActions(TABLE, { endpoint: kind, id: 21 }, [claim], [released])).toEqual([
      [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: `ABBREVIATION#${kind}#${value}`,
              sk: 'CLAIM',
              type: 'Claim',
              field: kind,
              value,
              entryId: 21,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        { kind: 'take', claim },
      ],
      [
        {
          Delete: {
            TableName: TABLE,
            Key: { pk: `ABBREVIATION#${kind}#doc`, sk: 'CLAIM' },
            ConditionExpression: '#owner = :me',
            ExpressionAttributeNames: { '#owner': 'entryId' },
            ExpressionAttributeValues: { ':me': 21 },
          },
        },
        { kind: 'release', claim: released },
      ],
    ]);
  });

  it.each<[ChangeEntry['endpoint'], string]>([
    ['Person', 'personId'],
    ['NamePrefix', 'entryId'],
    ['NameSuffix', 'entryId'],
  ])(
    'names a %s owner in the %s attribute, in the claim and in the release condition',
    (endpoint, attribute) => {
      const [take, release] = claimActions(
        TABLE,
        { endpoint, id: 30 },
        [{ field: 'email', value: 'a@example.org', path: '/Emails/@set/0/email' }],
        [{ field: 'email', value: 'b@example.org' }],
      ).map(([item]) => item);

      expect(take?.Put?.Item?.[attribute]).toBe(30);
      expect(release?.Delete?.ExpressionAttributeNames).toEqual({ '#owner': attribute });
    },
  );
});

describe('existsCheck and transactionOf', () => {
  it('checks that an item exists without writing it', () => {
    const role: ActionRole = { kind: 'requester', requester: 5 };

    expect(existsCheck(TABLE, { pk: 'PERSON#5', sk: 'PERSON' }, role)).toEqual([
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'PERSON#5', sk: 'PERSON' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      role,
    ]);
  });

  it('sends the actions in order and keeps their roles in the same order', () => {
    const put = objectPut(TABLE, { pk: 'PERSON#1', sk: 'PERSON' }, null);
    const check = existsCheck(TABLE, { pk: 'PERSON#5', sk: 'PERSON' }, { kind: 'requester', requester: 5 });

    expect(transactionOf([put, check])).toEqual({
      input: { TransactItems: [put[0], check[0]] },
      roles: [put[1], check[1]],
    });
  });
});

describe('withinItemLimit', () => {
  it('passes an item within the limit through unchanged', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: 'x'.repeat(1_000) };

    expect(withinItemLimit(item, 'person')).toBe(item);
  });

  it('refuses an item over the limit with a validation error, not a storage failure', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: 'x'.repeat(MAX_ITEM_BYTES) };

    expect(() => withinItemLimit(item, 'person')).toThrow(ValidationFailed);
  });

  it('measures bytes, not characters', () => {
    const item = { pk: 'PERSON#1', sk: 'PERSON', text: '名'.repeat(MAX_ITEM_BYTES / 3) };

    expect(item.text.length).toBeLessThan(MAX_ITEM_BYTES);
    expect(() => withinItemLimit(item, 'person')).toThrow(ValidationFailed);
  });
});

describe('the ChangeHistory entry of a person near the body limit', () => {
  it.each<[string, ReturnType<typeof namesAndEmails>]>([
    ['20 Names and 50 Emails of maximal length', namesAndEmails(7)],
    ['every set full of maximal strings', everySetFull(7)],
  ])('fits in one DynamoDB item for %s', (_, body) => {
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(LIMITS.bodyBytes);
    let next = 100;
    const merge = mergePerson(null, CreatePersonBody.parse(body), {
      requester: 5,
      now: AT,
      nextId: () => next++,
      changeId: CHANGE_ID,
      abbreviations: SEEDED_ABBREVIATIONS,
    });

    const { input } = buildPersonWrite({
      tableName: TABLE,
      merge,
      previousVersion: null,
      entry: personChangeEntry(merge, CHANGE_ID, 5, AT),
      requesterToCheck: 5,
      postings: NOTHING_BEFORE,
      token: 'test',
    }).write;

    const history = input.TransactItems?.find((item) => item.Put?.Item?.type === 'ChangeHistory')?.Put?.Item;
    expect(history).toBeDefined();
    expect(wireBytes(history ?? {})).toBeLessThan(DYNAMODB_ITEM_LIMIT_BYTES);
    expect(decodeSnapshot<Person>(history?.snapshot as Uint8Array)).toEqual(merge.person);
  });

  it('is built from a body that is really near the limit', () => {
    expect(Buffer.byteLength(JSON.stringify(everySetFull(7)))).toBeGreaterThan(0.9 * LIMITS.bodyBytes);
  });
});

/** A client whose every send answers with `outcome` (or throws it), recording what it was sent. */
const fakeClient = (outcome: () => Promise<unknown>) => {
  const sent: TransactWriteCommand[] = [];
  const client = {
    send: (command: TransactWriteCommand) => {
      sent.push(command);
      return outcome();
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, sent };
};

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: { httpStatusCode: 400 },
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

describe('sendWrite', () => {
  const abbreviation: ClaimToTake = { field: 'NamePrefix', value: 'dr.', path: '/abbreviation' };
  /** A NamePrefix create: the entry's Put, then its abbreviation claim. */
  const write: WriteTransaction = transactionOf([
    objectPut(TABLE, { pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000021' }, null),
    ...claimActions(TABLE, { endpoint: 'NamePrefix', id: 21 }, [abbreviation], []),
  ]);

  it('sends the transaction as built and reports that it landed', async () => {
    const { client, sent } = fakeClient(() => Promise.resolve({}));

    await expect(sendWrite(client, write)).resolves.toBe(true);
    expect(sent.map((command) => command.input)).toEqual([write.input]);
  });

  it('reports a write that met a concurrent one, to be retried', async () => {
    const { client } = fakeClient(() => Promise.reject(cancelled('TransactionConflict', 'None')));

    await expect(sendWrite(client, write)).resolves.toBe(false);
  });

  it('throws the verdict a cancellation carries', async () => {
    const { client } = fakeClient(() => Promise.reject(cancelled('None', 'ConditionalCheckFailed')));

    await expect(sendWrite(client, write)).rejects.toBeInstanceOf(UniquenessConflict);
  });

  it('rethrows a cancellation it cannot read', async () => {
    const error = cancelled('ValidationError', 'None');
    const { client } = fakeClient(() => Promise.reject(error));

    await expect(sendWrite(client, write)).rejects.toBe(error);
  });

  it('refuses a transaction of more actions than DynamoDB takes without sending it', async () => {
    const { client, sent } = fakeClient(() => Promise.resolve({}));
    const tooMany = transactionOf(
      many(MAX_TRANSACTION_ACTIONS + 1, (index) =>
        existsCheck(TABLE, { pk: `PERSON#${index}`, sk: 'PERSON' }, { kind: 'requester', requester: index }),
      ),
    );

    await expect(sendWrite(client, tooMany)).rejects.toBeInstanceOf(ValidationFailed);
    expect(sent).toEqual([]);
  });
});

describe('retrying', () => {
  it('runs the attempt again after each concurrent write and returns the first result', async () => {
    const results = [undefined, undefined, 'written'];
    const waits: number[] = [];

    const result = await retrying(
      {
        deadline: Date.now() + 60_000,
        backoff: (attempt) => {
          waits.push(attempt);
          return 0;
        },
      },
      async () => results.shift(),
    );

    expect(result).toBe('written');
    expect(waits).toEqual([1, 2]);
  });

  it('keeps retrying while the budget lasts, however many attempts that is', async () => {
    let attempts = 0;

    const result = await retrying({ deadline: Date.now() + 60_000, backoff: () => 0 }, async () =>
      ++attempts === 500 ? 'written' : undefined,
    );

    expect(result).toBe('written');
    expect(attempts).toBe(500);
  });

  it('gives up with 503 when another attempt and its wait would end past the deadline', async () => {
    // Fake timers and clock: the rule is about time, and a loaded machine's real timers fire late.
    vi.useFakeTimers();
    try {
      let attempts = 0;
      const started = Date.now();

      const outcome = retrying({ deadline: started + 300, backoff: () => 20 }, async () => {
        attempts++;
        await new Promise((resolve) => setTimeout(resolve, 30));
        return undefined;
      });
      const refused = expect(outcome).rejects.toBeInstanceOf(ServiceUnavailable);
      await vi.runAllTimersAsync();
      await refused;

      // Each round is 30 ms of attempt and 20 ms of wait: the budget holds six, never past it.
      expect(attempts).toBe(6);
      expect(Date.now() - started).toBeLessThan(300);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shortens a backoff longer than the budget left instead of giving up before the deadline', async () => {
    let attempts = 0;
    const started = Date.now();

    const result = await retrying({ deadline: started + 200, backoff: () => 10_000 }, async () =>
      ++attempts === 2 ? 'written' : undefined,
    );

    expect(result).toBe('written');
    expect(Date.now() - started).toBeLessThan(250);
  });

  it('makes one attempt even when the budget is already spent', async () => {
    let attempts = 0;

    await expect(
      retrying({ deadline: Date.now() - 1, backoff: () => 0 }, async () => {
        attempts++;
        return undefined;
      }),
    ).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(attempts).toBe(1);
  });
});
