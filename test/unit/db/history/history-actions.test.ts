import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { historyActions } from '../../../../lib/db/history/history-actions';
import { decodeSnapshot, encodeSnapshot } from '../../../../lib/db/history/snapshots';
import { CREATE, planPersonWrite } from '../../../../lib/db/person/write/person-write';
import { transactionOf } from '../../../../lib/db/write/actions';
import { type ChangeEntry, NO_ORIGIN } from '../../../../lib/domain/change-history';
import type { Person } from '../../../../lib/domain/person';
import { CreatePersonBody, LIMITS } from '../../../../lib/domain/schemas';
import type { VocabularyEntry } from '../../../../lib/domain/vocabulary';
import { CHANGE_ID, doctor, SEEDED_ABBREVIATIONS } from '../../../support/fixtures';

const TABLE = 'people-test';
const AT = '2026-01-02T03:04:05.000Z';
/** DynamoDB's limit on the size of one item. */
const DYNAMODB_ITEM_LIMIT_BYTES = 400 * 1024;

const entryOf = (overrides: Partial<ChangeEntry>): ChangeEntry => ({
  id: CHANGE_ID,
  endpoint: 'NamePrefix',
  object_id: 21,
  version: 3,
  action: 'update',
  requester: 5,
  at: AT,
  changed: ['/abbreviation'],
  provider_data: NO_ORIGIN,
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

describe('the ChangeHistory entry of a person near the body limit', () => {
  it.each<[string, ReturnType<typeof namesAndEmails>]>([
    ['20 Names and 50 Emails of maximal length', namesAndEmails(7)],
    ['every set full of maximal strings', everySetFull(7)],
  ])('fits in one DynamoDB item for %s', (_, body) => {
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThanOrEqual(LIMITS.bodyBytes);
    let next = 100;
    const { patched, actions } = planPersonWrite({
      tableName: TABLE,
      start: CREATE,
      body: CreatePersonBody.parse(body),
      requester: 5,
      now: AT,
      nextId: () => next++,
      changeId: CHANGE_ID,
      abbreviations: SEEDED_ABBREVIATIONS,
    });
    const { input } = transactionOf(actions);

    const history = input.TransactItems?.find((item) => item.Put?.Item?.type === 'ChangeHistory')?.Put?.Item;
    expect(history).toBeDefined();
    expect(wireBytes(history ?? {})).toBeLessThan(DYNAMODB_ITEM_LIMIT_BYTES);
    expect(decodeSnapshot<Person>(history?.snapshot as Uint8Array)).toEqual(patched.person);
  });

  it('is built from a body that is really near the limit', () => {
    expect(Buffer.byteLength(JSON.stringify(everySetFull(7)))).toBeGreaterThan(0.9 * LIMITS.bodyBytes);
  });
});
