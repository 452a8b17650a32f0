import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  type ActionRole,
  buildWriteTransaction,
  fromPersonItem,
  personPut,
  toPersonItem,
  type WriteTransaction,
} from '../../../lib/db/person-items';
import type { AuditEntry } from '../../../lib/domain/audit';
import { ValidationFailed } from '../../../lib/domain/errors';
import { type MergeResult, mergePerson } from '../../../lib/domain/merge';
import type { Person } from '../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody } from '../../../lib/domain/schemas';

const TABLE = 'people-test';
const CREATED_AT = '2026-01-02T03:04:05.000Z';
const UPDATED_AT = '2026-01-03T03:04:05.000Z';

const ids = (first: number) => {
  let next = first;
  return () => next++;
};

const auditOf = (merge: MergeResult, id: number, action: AuditEntry['action'], at: string): AuditEntry => ({
  id,
  person_id: merge.person.id,
  action,
  requester: 5,
  at,
  changed: merge.changed,
});

/** Creates person 100 (Name 101, Emails from 102) as requester 5. */
const created = (...emails: string[]) =>
  mergePerson(
    null,
    CreatePersonBody.parse({
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith' }] },
      ...(emails.length > 0 ? { Emails: { '@set': emails.map((email) => ({ email })) } } : {}),
    }),
    { requester: 5, now: CREATED_AT, nextId: ids(100) },
  );

const patched = (stored: Person, body: unknown) =>
  mergePerson(stored, PatchPersonBody.parse(body), { requester: 5, now: UPDATED_AT, nextId: ids(200) });

/** What an action is, read from the action itself, in the terms of `ActionRole`. */
const roleOfAction = (item: NonNullable<WriteTransaction['input']['TransactItems']>[number]) => {
  if (item.Put?.Item?.type === 'Person') return { kind: 'person', pk: item.Put.Item.pk };
  if (item.Put?.Item?.type === 'AuditEntry') return { kind: 'audit', pk: item.Put.Item.pk };
  if (item.Put?.Item?.type === 'Claim') return { kind: 'take', value: item.Put.Item.value };
  if (item.Delete) return { kind: 'release', pk: item.Delete.Key?.pk };
  if (item.ConditionCheck) return { kind: 'requester', pk: item.ConditionCheck.Key?.pk };
  if (item.Update) return { kind: 'counter', pk: item.Update.Key?.pk };
  return { kind: 'unknown' };
};

const describeRole = (role: ActionRole, personId: number) => {
  switch (role.kind) {
    case 'person':
    case 'audit':
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
    case 'counter':
      return { kind: 'counter', pk: 'COUNTER#persons' };
  }
};

/** What the `byName` index reads of John Smith, person 100, with the given folded emails. */
const listing = (...emails: string[]) => ({
  listPk: 'PERSON',
  listSk: 'john smith\u00010000000000000100',
  fullname: 'John Smith',
  search_first_name: 'john',
  search_last_name: 'smith',
  search_email: emails.join('\n'),
  search_rest: 'john smith',
});

const counterIncrement = {
  Update: {
    TableName: TABLE,
    Key: { pk: 'COUNTER#persons', sk: 'COUNTER' },
    UpdateExpression: 'ADD #value :one',
    ExpressionAttributeNames: { '#value': 'value' },
    ExpressionAttributeValues: { ':one': 1 },
  },
};

describe('buildWriteTransaction for a create', () => {
  const merge = created('jsmith@no-reply.org', 'John.Smith@Example.org');
  const audit = auditOf(merge, 104, 'create', CREATED_AT);
  const transaction = buildWriteTransaction({
    tableName: TABLE,
    merge,
    previousVersion: null,
    audit,
    requesterToCheck: 5,
  });

  it('never overwrites: person, audit and claims are put only where nothing is, and the requester must exist', () => {
    expect(transaction.input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'PERSON',
              type: 'Person',
              ...merge.person,
              ...listing('jsmith@no-reply.org', 'john.smith@example.org'),
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
              type: 'AuditEntry',
              id: 104,
              person_id: 100,
              action: 'create',
              requester: 5,
              at: CREATED_AT,
              changed: ['/Names', '/Emails'],
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
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
        counterIncrement,
        {
          ConditionCheck: {
            TableName: TABLE,
            Key: { pk: 'PERSON#5', sk: 'PERSON' },
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
      ],
    });
  });

  it('gives each action its role, in the order of TransactItems', () => {
    expect(transaction.roles).toEqual([
      { kind: 'person' },
      { kind: 'audit' },
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

  it('takes a name claim for an email-less person', () => {
    const nameOnly = created();
    const { input, roles } = buildWriteTransaction({
      tableName: TABLE,
      merge: nameOnly,
      previousVersion: null,
      audit: auditOf(nameOnly, 102, 'create', CREATED_AT),
      requesterToCheck: 5,
    });

    expect(input.TransactItems?.[2]).toEqual({
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
    expect(roles[2]).toEqual({
      kind: 'take',
      claim: { field: 'name', value: 'john smith', path: '/Names/@set/0' },
    });
  });

  it('checks no requester on a self-registration', () => {
    const { input, roles } = buildWriteTransaction({
      tableName: TABLE,
      merge,
      previousVersion: null,
      audit,
      requesterToCheck: null,
    });

    expect(input.TransactItems?.some((item) => item.ConditionCheck !== undefined)).toBe(false);
    expect(roles.some((role) => role.kind === 'requester')).toBe(false);
    expect(input.TransactItems).toHaveLength(roles.length);
  });
});

describe('buildWriteTransaction for an update', () => {
  const stored = created().person;
  const merge = patched(stored, { Emails: { '@set': [{ email: 'jsmith@no-reply.org' }] } });
  const audit = auditOf(merge, 201, 'update', UPDATED_AT);
  const transaction = buildWriteTransaction({
    tableName: TABLE,
    merge,
    previousVersion: 1,
    audit,
    requesterToCheck: null,
  });

  it('never creates: the person is put only over the version it was merged onto, and released claims are deleted only while still ours', () => {
    expect(merge.person.CoreMetaData.version).toBe(2);
    expect(transaction.input).toEqual({
      TransactItems: [
        {
          Put: {
            TableName: TABLE,
            Item: {
              pk: 'PERSON#100',
              sk: 'PERSON',
              type: 'Person',
              ...merge.person,
              ...listing('jsmith@no-reply.org'),
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
              type: 'AuditEntry',
              id: 201,
              person_id: 100,
              action: 'update',
              requester: 5,
              at: UPDATED_AT,
              changed: ['/Emails'],
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
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
            ConditionExpression: 'personId = :me',
            ExpressionAttributeValues: { ':me': 100 },
          },
        },
      ],
    });
  });

  it('gives each action its role, in the order of TransactItems, with no requester check when none is asked', () => {
    expect(transaction.roles).toEqual([
      { kind: 'person' },
      { kind: 'audit' },
      {
        kind: 'take',
        claim: { field: 'email', value: 'jsmith@no-reply.org', path: '/Emails/@set/0/email' },
      },
      { kind: 'release', claim: { field: 'name', value: 'john smith' } },
    ]);
  });

  it('lines every role up with its action when claims are taken and released and the requester is checked', () => {
    const withEmails = created('a@example.org', 'b@example.org', 'c@example.org').person;
    const swap = patched(withEmails, {
      Emails: { '@set': [{ id: 102 }, { id: 103 }, { email: 'd@example.org' }, { email: 'e@example.org' }] },
    });

    const { input, roles } = buildWriteTransaction({
      tableName: TABLE,
      merge: swap,
      previousVersion: 1,
      audit: auditOf(swap, 203, 'update', UPDATED_AT),
      requesterToCheck: 5,
    });

    expect(roles.map((role) => role.kind)).toEqual([
      'person',
      'audit',
      'take',
      'take',
      'release',
      'release',
      'requester',
    ]);
    expect(input.TransactItems?.map(roleOfAction)).toEqual(roles.map((role) => describeRole(role, 100)));
  });
});

describe('toPersonItem and fromPersonItem', () => {
  const person = patched(created('jsmith@no-reply.org').person, {
    local_reference_id: 'ref-1',
    PhoneNumbers: { '@set': [{ phone_number: '+1 555 0100', local_reference_id: 'phone-1' }] },
    SocialAddresses: { twitter: 'https://x.com/jsmith' },
  }).person;

  it('stores a Person under its key, marked as a Person, with its place and forms in the byName index', () => {
    expect(toPersonItem(person)).toEqual({
      pk: 'PERSON#100',
      sk: 'PERSON',
      type: 'Person',
      ...person,
      ...listing('jsmith@no-reply.org'),
    });
  });

  it('round-trips a Person', () => {
    expect(fromPersonItem(toPersonItem(person))).toEqual(person);
  });

  it('round-trips a Person through DynamoDB marshalling, nulls included', () => {
    const stored = unmarshall(marshall(toPersonItem(person)));
    expect(fromPersonItem(stored)).toEqual(person);
  });

  it('leaves no key attributes on the Person read back', () => {
    const read = fromPersonItem(toPersonItem(person));
    expect(read).not.toHaveProperty('pk');
    expect(read).not.toHaveProperty('sk');
    expect(read).not.toHaveProperty('type');
    expect(read).not.toHaveProperty('listSk');
    expect(read).not.toHaveProperty('search_rest');
  });
});

describe('the item size limit', () => {
  it('refuses with a validation error a Person whose item would exceed what DynamoDB stores', () => {
    const huge = created('jsmith@no-reply.org').person;
    huge.PostalAddresses = Array.from({ length: 2_000 }, (_, index) => ({
      id: 1_000 + index,
      address1: 'x'.repeat(200),
      address2: null,
      city: null,
      state_territory_province: null,
      postal_code: null,
      country: null,
      country_code: null,
      primary: false,
      local_reference_id: null,
    }));
    expect(() => personPut(TABLE, huge, null)).toThrow(ValidationFailed);
    expect(() => personPut(TABLE, created('jsmith@no-reply.org').person, null)).not.toThrow();
  });
});
