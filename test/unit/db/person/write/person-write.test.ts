import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../../../../lib/db/history/snapshots';
import { toPersonItem } from '../../../../../lib/db/person/person-items';
import {
  CREATE,
  type PersonWritePlan,
  planPersonWrite,
  type WriteStart,
} from '../../../../../lib/db/person/write/person-write';
import { type ActionRole, transactionOf, type WriteTransaction } from '../../../../../lib/db/write/actions';
import { NO_ORIGIN, type RequestOrigin } from '../../../../../lib/domain/change-history';
import { RequesterUnknown } from '../../../../../lib/domain/errors';
import type { Person } from '../../../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody } from '../../../../../lib/domain/schemas';
import { NO_TERMS } from '../../../../../lib/domain/search';
import { CHANGE_ID, idsFrom, johnSmithListing, SEEDED_ABBREVIATIONS } from '../../../../support/fixtures';
import { johnSmithWith } from '../../../../support/persons';

const TABLE = 'people-test';
const CREATED_AT = '2026-01-02T03:04:05.000Z';
const UPDATED_AT = '2026-01-03T03:04:05.000Z';
/** Ids of the ChangeHistory entries of the create and of the patch (shards 0 and 1 of 8). */
const CREATE_CHANGE = CHANGE_ID;
const PATCH_CHANGE = CHANGE_ID + 1;
const ORIGIN: RequestOrigin = {
  request_id: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
  user_agent: 'grc-client/1.0',
  caller: 'arn:aws:iam::123456789012:user/alice',
};

type TransactItem = NonNullable<WriteTransaction['input']['TransactItems']>[number];

interface Asking {
  requester?: number;
  origin?: RequestOrigin;
}

/**
 * The plan of a write by requester 5 unless told: a create makes person 100 (Names from 101, then
 * Emails), a PATCH gives new sub-objects ids from 200.
 */
const planned = (start: WriteStart, body: unknown, { requester = 5, origin = NO_ORIGIN }: Asking = {}) => {
  const creating = start.kind === 'create';
  return planPersonWrite({
    tableName: TABLE,
    start,
    body: (creating ? CreatePersonBody : PatchPersonBody).parse(body),
    requester,
    now: creating ? CREATED_AT : UPDATED_AT,
    nextId: idsFrom(creating ? 100 : 200),
    changeId: creating ? CREATE_CHANGE : PATCH_CHANGE,
    abbreviations: SEEDED_ABBREVIATIONS,
    origin,
  });
};

const createdWith = (body: unknown, asking?: Asking) => planned(CREATE, body, asking);

/** Creates John Smith, person 100 (Name 101, Emails from 102), as requester 5. */
const created = (...emails: string[]) => createdWith(johnSmithWith(...emails));

const patched = (stored: Person, body: unknown, asking?: Asking) =>
  planned({ kind: 'update', stored, pending: null }, body, asking);

/** The plan's own transaction, postings aside (write/postings.test.ts has those). */
const writeOf = (plan: PersonWritePlan) => transactionOf(plan.actions);

/** What an action is, read from the action itself, in the terms of `ActionRole`. */
const roleOfAction = (item: TransactItem) => {
  if (item.Put?.Item?.type === 'Person') return { kind: 'object', pk: item.Put.Item.pk };
  if (item.Put?.Item?.type === 'ChangeHistory') return { kind: 'history', pk: item.Put.Item.pk };
  if (item.Put?.Item?.type === 'Claim') return { kind: 'take', value: item.Put.Item.value };
  if (item.Delete) return { kind: 'release', pk: item.Delete.Key?.pk };
  if (item.ConditionCheck?.Key?.pk.startsWith('PERSON#'))
    return { kind: 'requester', pk: item.ConditionCheck.Key.pk };
  if (item.ConditionCheck) return { kind: 'vocabulary', key: item.ConditionCheck.Key };
  if (item.Update) return { kind: 'counter' };
  return { kind: 'unknown' };
};

const describeRole = (role: ActionRole, personId: number) => {
  switch (role.kind) {
    case 'object':
    case 'history':
      return { kind: role.kind, pk: `PERSON#${personId}` };
    case 'take':
      return { kind: 'take', value: role.claim.value };
    case 'release':
      return {
        kind: 'release',
        pk: `${role.claim.field === 'email' ? 'EMAIL' : 'NAME'}#${role.claim.value}`,
      };
    case 'requester':
      return { kind: 'requester', pk: `PERSON#${role.requester}` };
    case 'vocabulary':
      return {
        kind: 'vocabulary',
        key: {
          pk: `VOCABULARY#${role.reference.kind}`,
          sk: `ENTRY#${String(role.reference.id).padStart(10, '0')}`,
        },
      };
    default:
      return { kind: role.kind };
  }
};

const keyOf = (item: TransactItem) => {
  const key =
    item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key ?? ({} as never);
  return `${key.pk}\n${key.sk}`;
};

const counterIncrement = (pk: string) => ({
  Update: {
    TableName: TABLE,
    Key: { pk, sk: 'COUNTER' },
    UpdateExpression: 'ADD #value :count',
    ExpressionAttributeNames: { '#value': 'value' },
    ExpressionAttributeValues: { ':count': 1 },
  },
});

const historyItemOf = (transaction: WriteTransaction) =>
  transaction.input.TransactItems?.find((item) => item.Put?.Item?.type === 'ChangeHistory')?.Put?.Item ?? {};

describe('planPersonWrite for a create', () => {
  const result = createdWith(
    {
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
      Emails: { '@set': [{ email: 'jsmith@no-reply.org' }, { email: 'John.Smith@Example.org' }] },
    },
    { origin: ORIGIN },
  );
  const transaction = writeOf(result);

  it('never overwrites: person, history entry and claims are put only where nothing is, the counters step and the requester must exist', () => {
    expect(transaction.input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'PERSON',
              type: 'Person',
              ...result.patched.person,
              ...johnSmithListing('jsmith@no-reply.org', 'john.smith@example.org'),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'AUDIT#0000000001',
              changePk: 'CHANGES#Person#0',
              changeSk: `${CREATED_AT}#0000000000009000`,
              changeId: 9_000,
              type: 'ChangeHistory',
              id: 9_000,
              endpoint: 'Person',
              object_id: 100,
              version: 1,
              action: 'create',
              requester: 5,
              at: CREATED_AT,
              changed: ['/Names', '/Emails'],
              provider_data: ORIGIN,
              snapshot: expect.any(Uint8Array),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        counterIncrement('COUNTER#changes#Person#0'),
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'EMAIL#jsmith@no-reply.org',
              sk: 'CLAIM',
              type: 'Claim',
              field: 'email',
              value: 'jsmith@no-reply.org',
              personId: 100,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'EMAIL#john.smith@example.org',
              sk: 'CLAIM',
              type: 'Claim',
              field: 'email',
              value: 'john.smith@example.org',
              personId: 100,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        counterIncrement('COUNTER#persons#10'),
        {
          ConditionCheck: {
            TableName: TABLE,
            Key: { pk: 'PERSON#5', sk: 'PERSON' },
            // A live person (neither merged nor erased): a merged one answers its item, to act as its
            // survivor (API.md 13).
            ConditionExpression: '#type = :person',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':person': 'Person' },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
      ],
    });
  });

  it('gives each action its role, in the order of TransactItems', () => {
    expect(transaction.roles).toEqual([
      { kind: 'object' },
      { kind: 'history' },
      { kind: 'counter' },
      {
        kind: 'take',
        claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' },
      },
      {
        kind: 'take',
        claim: { field: 'email', value: 'john.smith@example.org', path: '/Emails/@set/1/email' },
      },
      { kind: 'counter' },
      { kind: 'requester', requester: 5 },
    ]);
  });

  it('stores in the history entry a snapshot that reads back as the created person', () => {
    expect(decodeSnapshot<Person>(historyItemOf(transaction).snapshot as Uint8Array)).toEqual(
      result.patched.person,
    );
  });

  it('keeps the snapshot readable through DynamoDB marshalling', () => {
    const stored = unmarshall(marshall(historyItemOf(transaction)));

    expect(decodeSnapshot<Person>(stored.snapshot as Uint8Array)).toEqual(result.patched.person);
  });

  it('takes a name claim for an email-less person', () => {
    const nameOnly = created();
    const { input, roles } = writeOf(nameOnly);

    expect(input.TransactItems?.[3]).toEqual({
      Put: {
        TableName: TABLE,
        Item: {
          pk: 'NAME#john smith',
          sk: 'CLAIM',
          type: 'Claim',
          field: 'name',
          value: 'john smith',
          personId: 100,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    expect(roles[3]).toEqual({
      kind: 'take',
      claim: { field: 'name', value: 'john smith', path: '/Names/@set/0' },
    });
  });

  it('checks no requester on a self-registration', () => {
    const { input, roles } = writeOf(
      createdWith({ Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] } }, { requester: 0 }),
    );

    expect(input.TransactItems?.some((item) => item.ConditionCheck !== undefined)).toBe(false);
    expect(roles.some((role) => role.kind === 'requester')).toBe(false);
    expect(input.TransactItems).toHaveLength(roles.length);
  });
});

describe('planPersonWrite for an update', () => {
  const stored = created().patched.person;
  const result = patched(stored, { Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] } });
  const transaction = writeOf(result);

  it('never creates: the person is put only over the version it was merged onto, and released claims are deleted only while still ours', () => {
    expect(result.patched.person.CoreMetaData.version).toBe(2);
    expect(transaction.input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'PERSON',
              type: 'Person',
              ...result.patched.person,
              ...johnSmithListing('jsmith@no-reply.org'),
            },
            ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
            ExpressionAttributeNames: { '#meta': 'CoreMetaData', '#version': 'version' },
            ExpressionAttributeValues: { ':previous': 1 },
          },
        },
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'AUDIT#0000000002',
              changePk: 'CHANGES#Person#1',
              changeSk: `${UPDATED_AT}#0000000000009001`,
              changeId: 9_001,
              type: 'ChangeHistory',
              id: 9_001,
              endpoint: 'Person',
              object_id: 100,
              version: 2,
              action: 'update',
              requester: 5,
              at: UPDATED_AT,
              changed: ['/Emails'],
              provider_data: NO_ORIGIN,
              snapshot: expect.any(Uint8Array),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        counterIncrement('COUNTER#changes#Person#1'),
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'EMAIL#jsmith@no-reply.org',
              sk: 'CLAIM',
              type: 'Claim',
              field: 'email',
              value: 'jsmith@no-reply.org',
              personId: 100,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        },
        {
          Delete: {
            TableName: TABLE,
            Key: { pk: 'NAME#john smith', sk: 'CLAIM' },
            ConditionExpression: '#owner = :me',
            ExpressionAttributeNames: { '#owner': 'personId' },
            ExpressionAttributeValues: { ':me': 100 },
          },
        },
      ],
    });
  });

  it('gives each action its role, in the order of TransactItems, with no requester check when none is asked', () => {
    expect(transaction.roles).toEqual([
      { kind: 'object' },
      { kind: 'history' },
      { kind: 'counter' },
      {
        kind: 'take',
        claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' },
      },
      { kind: 'release', claim: { field: 'name', value: 'john smith' } },
    ]);
  });

  it('stores in the history entry a snapshot that reads back as the patched person, not the stored one', () => {
    const snapshot = decodeSnapshot<Person>(historyItemOf(transaction).snapshot as Uint8Array);

    expect(snapshot).toEqual(result.patched.person);
    expect(snapshot?.CoreMetaData.version).toBe(2);
    expect(snapshot?.CoreMetaData.modified_audit_id).toBe(PATCH_CHANGE);
  });

  it('does not step the person counter', () => {
    const counters = transaction.input.TransactItems?.flatMap((item) =>
      item.Update ? [item.Update.Key] : [],
    );

    expect(counters).toEqual([{ pk: 'COUNTER#changes#Person#1', sk: 'COUNTER' }]);
  });

  it('lines every role up with its action when claims are taken and released, entries are checked and the requester is checked', () => {
    const withEmails = created('a@example.org', 'b@example.org', 'c@example.org').patched.person;
    const swap = patched(withEmails, {
      Emails: { '@set': [{ id: 102 }, { id: 103 }, { email: 'd@example.org' }, { email: 'e@example.org' }] },
      Names: {
        '@set': [{ first_name: 'Johnny', last_name: 'Smith', name_prefix_fk: 21, name_suffix_fk: 1 }],
      },
    });

    const { input, roles } = writeOf(swap);

    expect(roles.map((role) => role.kind)).toEqual([
      'object',
      'history',
      'counter',
      'take',
      'take',
      'release',
      'release',
      'vocabulary',
      'vocabulary',
    ]);
    expect(input.TransactItems?.map(roleOfAction)).toEqual(roles.map((role) => describeRole(role, 100)));
  });
});

describe('planPersonWrite: vocabulary entries a Name points at', () => {
  const vocabularyChecks = ({ input }: WriteTransaction) =>
    input.TransactItems?.filter((item) => item.ConditionCheck?.Key?.pk.startsWith('VOCABULARY#'));
  const vocabularyRoles = ({ roles }: WriteTransaction) => roles.filter((role) => role.kind === 'vocabulary');

  it('checks each distinct entry once, in the same transaction: two Names with the same prefix give one check', () => {
    const result = createdWith({
      Names: {
        '@set': [
          { first_name: 'John', last_name: 'Smith', name_prefix_fk: 21, name_suffix_fk: 1, primary: true },
          { freeform_name: 'J. Smith', name_prefix_fk: 21 },
        ],
      },
    });

    const transaction = writeOf(result);

    expect(vocabularyChecks(transaction)).toEqual([
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'VOCABULARY#NamePrefix', sk: 'ENTRY#0000000021' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: { pk: 'VOCABULARY#NameSuffix', sk: 'ENTRY#0000000001' },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ]);
    expect(vocabularyRoles(transaction)).toEqual([
      {
        kind: 'vocabulary',
        reference: {
          kind: 'NamePrefix',
          id: 21,
          path: expect.stringMatching(/^\/Names\/@set\/[01]\/name_prefix_fk$/),
        },
      },
      {
        kind: 'vocabulary',
        reference: { kind: 'NameSuffix', id: 1, path: '/Names/@set/0/name_suffix_fk' },
      },
    ]);
  });

  it('stores the fullname with the abbreviations of the entries the primary Name points at', () => {
    const result = createdWith({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith', name_prefix_fk: 21, name_suffix_fk: 1 }] },
    });

    expect(toPersonItem(result.patched.person)).toMatchObject({
      fullname: 'Dr. John Smith II',
      listSk: 'dr. john smith ii\u00010000000000000100',
    });
  });

  it.each<[string, unknown, { kind: string; id: number; path: string }[]]>([
    [
      'adds a Name pointing at a prefix',
      { Names: { '@set': [{ first_name: 'Jon', last_name: 'Smith', name_prefix_fk: 501 }] } },
      [{ kind: 'NamePrefix', id: 501, path: '/Names/@set/0/name_prefix_fk' }],
    ],
    [
      "changes a stored Name's foreign key (ignored on a change)",
      { Names: { '@set': [{ id: 101, first_name: 'Jon', name_suffix_fk: 501 }] } },
      [],
    ],
    ['does not touch Names', { Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] } }, []],
  ])('checks on a PATCH that %s only the entries it newly points at', (_, body, references) => {
    const result = patched(created().patched.person, body);

    const transaction = writeOf(result);

    expect(vocabularyRoles(transaction)).toEqual(
      references.map((reference) => ({ kind: 'vocabulary', reference })),
    );
    expect(vocabularyChecks(transaction)).toHaveLength(references.length);
  });
});

describe('planPersonWrite: one transaction touches each item once', () => {
  it.each<[string, () => WriteTransaction]>([
    [
      'a create with emails, vocabulary entries and a requester',
      () =>
        writeOf(
          createdWith({
            Names: {
              '@set': [
                {
                  first_name: 'John',
                  last_name: 'Smith',
                  name_prefix_fk: 21,
                  name_suffix_fk: 1,
                  primary: true,
                },
                { first_name: 'Johnny', last_name: 'Smith', name_prefix_fk: 21, name_suffix_fk: 1 },
              ],
            },
            Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org' }] },
          }),
        ),
    ],
    [
      'a patch that swaps emails and points at entries',
      () =>
        writeOf(
          patched(created('a@example.org', 'b@example.org').patched.person, {
            Emails: { '@set': [{ id: 102 }, { email: 'c@example.org' }] },
            Names: { '@set': [{ freeform_name: 'J. S.', name_prefix_fk: 506 }] },
          }),
        ),
    ],
  ])('for %s', (_, build) => {
    const items = build().input.TransactItems ?? [];

    expect(new Set(items.map(keyOf)).size).toBe(items.length);
  });
});

describe('the ChangeHistory entry of a plan', () => {
  it('records a create as version 1 with its changed parts, requester and origin', () => {
    const result = createdWith(
      {
        Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
        Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] },
      },
      { origin: ORIGIN },
    );

    expect(result.entry).toEqual({
      id: CREATE_CHANGE,
      endpoint: 'Person',
      object_id: 100,
      version: 1,
      action: 'create',
      requester: 5,
      at: CREATED_AT,
      changed: ['/Names', '/Emails'],
      provider_data: ORIGIN,
    });
  });

  it('records a patch as an update of the version it made, with no origin when none is given', () => {
    const result = patched(created().patched.person, { local_reference_id: 'ref-1' });

    expect(result.entry).toEqual({
      id: PATCH_CHANGE,
      endpoint: 'Person',
      object_id: 100,
      version: 2,
      action: 'update',
      requester: 5,
      at: UPDATED_AT,
      changed: ['/local_reference_id'],
      provider_data: { request_id: null, user_agent: null, caller: null },
    });
  });

  it('records a self-registration as asked by the person it creates', () => {
    const result = createdWith(
      { Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] } },
      { requester: 0 },
    );

    expect(result.entry).toMatchObject({ action: 'create', requester: 100 });
    expect(result.patched.person.CoreMetaData.created_by).toBe(100);
  });

  it('refuses a create whose requester is the id the new person gets: only 0 names the person itself', () => {
    expect(() =>
      createdWith({ Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] } }, { requester: 100 }),
    ).toThrow(RequesterUnknown);
  });
});

describe('the postings a plan starts from', () => {
  it('are none for a create, and the stored person with its unfinished terms for an update', () => {
    const stored = created().patched.person;
    const pending = { ...NO_TERMS, first_name: ['jo'] };

    expect(created().postings).toEqual({ person: null, pending: null });
    expect(planned({ kind: 'update', stored, pending }, { local_reference_id: 'ref-1' }).postings).toEqual({
      person: stored,
      pending,
    });
  });
});
