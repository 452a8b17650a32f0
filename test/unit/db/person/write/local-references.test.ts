/**
 * The reference item of a root `local_reference_id` (lib/db/person/write/local-references.ts): which one a person
 * implies, and what each write puts and deletes of it, inside the write's own transaction.
 */
import { describe, expect, it } from 'vitest';
import {
  localReferenceActions,
  localReferenceItemOf,
  localReferencePut,
  mergedReferenceActions,
  mergedReferenceItem,
  mergedReferenceRemoval,
} from '../../../../../lib/db/person/write/local-references';
import { CREATE, personWrite, planPersonWrite } from '../../../../../lib/db/person/write/person-write';
import { MAX_TRANSACTION_ACTIONS, type TransactItem } from '../../../../../lib/db/write/actions';
import { applyPatch, type PatchResult } from '../../../../../lib/domain/patch';
import type { Person } from '../../../../../lib/domain/person';
import { CreatePersonBody, PatchPersonBody } from '../../../../../lib/domain/schemas';
import { writeContext } from '../../../../support/fixtures';

const TABLE = 'references-test';

const createBody = (body: Record<string, unknown>) =>
  CreatePersonBody.parse({ Names: { '@set': [{ first_name: 'Ann', last_name: 'Lee' }] }, ...body });

const create = (body: Record<string, unknown>): PatchResult =>
  applyPatch(null, createBody(body), writeContext('create'));

const patch = (stored: Person, body: unknown): PatchResult =>
  applyPatch(stored, PatchPersonBody.parse(body), writeContext('update'));

const ann = (local_reference_id: string | null) => create({ local_reference_id }).person;

/** Actions as `Put <pk> <fullname>` / `Delete <pk>`, to read a table of cases at a glance. */
const described = (before: Person | null, after: Person) =>
  localReferenceActions(TABLE, before, after).map(([item, role]) => {
    expect(role).toEqual({ kind: 'reference' });
    return item.Put
      ? `Put ${item.Put.Item?.pk} ${item.Put.Item?.fullname}`
      : `Delete ${item.Delete?.Key?.pk}`;
  });

describe('the reference item a person implies', () => {
  it('is the stub under the value and the id', () => {
    expect(localReferenceItemOf(ann('ref-1'))).toEqual({
      pk: 'LOCALREF#ref-1',
      sk: '0000000000000100',
      type: 'LocalReference',
      id: 100,
      fullname: 'Ann Lee',
    });
  });

  it.each([null, ''])('is none for the root value %j', (value) => {
    expect(localReferenceItemOf(ann(value))).toBeNull();
  });

  it("ignores sub-objects' local_reference_ids", () => {
    const person = create({
      Names: { '@set': [{ first_name: 'Ann', last_name: 'Lee', local_reference_id: 'name-ref' }] },
      Emails: { '@set': [{ email: 'ann@x.example', local_reference_id: 'email-ref' }] },
    }).person;
    expect(localReferenceItemOf(person)).toBeNull();
  });
});

describe('what a write does to the reference item', () => {
  const stored = ann('ref-1');
  const nameId = stored.Names[0]?.id;

  it.each<[string, Person | null, Person, string[]]>([
    ['a create with a value puts it', null, stored, ['Put LOCALREF#ref-1 Ann Lee']],
    ['a create without one writes none', null, ann(null), []],
    ['a create with "" writes none', null, ann(''), []],
    [
      'a new value deletes the old item and puts the new',
      stored,
      patch(stored, { local_reference_id: 'ref-2' }).person,
      ['Delete LOCALREF#ref-1', 'Put LOCALREF#ref-2 Ann Lee'],
    ],
    [
      'a value that differs only in case moves it too',
      stored,
      patch(stored, { local_reference_id: 'REF-1' }).person,
      ['Delete LOCALREF#ref-1', 'Put LOCALREF#REF-1 Ann Lee'],
    ],
    ['null clears it', stored, patch(stored, { local_reference_id: null }).person, ['Delete LOCALREF#ref-1']],
    ['"" clears it', stored, patch(stored, { local_reference_id: '' }).person, ['Delete LOCALREF#ref-1']],
    [
      'a first value puts it',
      ann(null),
      patch(ann(null), { local_reference_id: 'ref-9' }).person,
      ['Put LOCALREF#ref-9 Ann Lee'],
    ],
    [
      'a rename puts it again with the new stub',
      stored,
      patch(stored, { Names: { '@set': [{ id: nameId, first_name: 'Anna' }] } }).person,
      ['Put LOCALREF#ref-1 Anna Lee'],
    ],
    [
      'the same value sent again writes nothing',
      stored,
      patch(stored, { local_reference_id: 'ref-1' }).person,
      [],
    ],
    [
      'a change of anything else writes nothing',
      stored,
      patch(stored, { Emails: { '@set': [{ email: 'new@x.example' }] } }).person,
      [],
    ],
    [
      "a change of a sub-object's local_reference_id writes nothing",
      stored,
      patch(stored, { Names: { '@set': [{ id: nameId, local_reference_id: 'ref-2', first_name: 'Ann' }] } })
        .person,
      [],
    ],
  ])('%s', (_, before, after, expected) => {
    expect(described(before, after)).toEqual(expected);
  });

  it('puts and deletes without a condition of their own: the Put of the person guards them', () => {
    const [put] = localReferenceActions(TABLE, null, stored);
    expect(put).toEqual(localReferencePut(TABLE, localReferenceItemOf(stored) as never));
    expect(put?.[0]).toEqual({ Put: { TableName: TABLE, Item: localReferenceItemOf(stored) } });
  });
});

describe("the reference item in the person's write", () => {
  /** The write that stores `body`: Ann Lee's create, or a PATCH of `stored`, by requester 0. */
  const transaction = (body: Record<string, unknown>, stored: Person | null = null) =>
    personWrite(
      TABLE,
      planPersonWrite({
        tableName: TABLE,
        start: stored ? { kind: 'update', stored, pending: null } : CREATE,
        body: stored ? PatchPersonBody.parse(body) : createBody(body),
        ...writeContext(stored ? 'update' : 'create'),
      }),
      'token',
    );
  const referenceActions = (items: TransactItem[]) =>
    items.filter(
      (item) =>
        item.Put?.Item?.type === 'LocalReference' ||
        String((item.Delete?.Key as { pk?: string } | undefined)?.pk).startsWith('LOCALREF#'),
    );

  it("goes into the create's own transaction, beside the person", () => {
    const { write, chain } = transaction({ local_reference_id: 'ref-1' });
    expect(referenceActions(write.input.TransactItems ?? [])).toEqual([
      { Put: { TableName: TABLE, Item: localReferenceItemOf(ann('ref-1')) } },
    ]);
    expect(chain).toEqual([]);
  });

  it('stays in the write when its postings do not fit and follow it in a chain', () => {
    const emails = Array.from({ length: 20 }, (_, n) => ({
      email: `a-rather-long-address-number-${n}@somewhere-far.example`,
    }));
    const { write, chain } = transaction({ local_reference_id: 'ref-1', Emails: { '@set': emails } });
    expect(chain.length).toBeGreaterThan(0);
    expect(write.roles.filter((role) => role.kind === 'reference')).toHaveLength(1);
    expect(write.roles).toHaveLength(MAX_TRANSACTION_ACTIONS);
    for (const link of chain) expect(link.roles.some((role) => role.kind === 'reference')).toBe(false);
  });

  it('moves with the PATCH that changes the value: the old deleted and the new put, in that one transaction', () => {
    const stored = ann('ref-1');
    const { write } = transaction({ local_reference_id: 'ref-2' }, stored);
    expect(referenceActions(write.input.TransactItems ?? [])).toEqual([
      { Delete: { TableName: TABLE, Key: { pk: 'LOCALREF#ref-1', sk: '0000000000000100' } } },
      {
        Put: {
          TableName: TABLE,
          Item: expect.objectContaining({ pk: 'LOCALREF#ref-2', sk: '0000000000000100' }),
        },
      },
    ]);
  });
});

describe('the merged reference a merged person leaves under its root key (API.md 13.1)', () => {
  it('is the same key, its own id, marked merged, and holds no fullname', () => {
    expect(mergedReferenceItem('ref-1', 100)).toEqual({
      pk: 'LOCALREF#ref-1',
      sk: '0000000000000100',
      type: 'LocalReference',
      id: 100,
      merged: true,
    });
    expect(mergedReferenceItem('ref-1', 100)).not.toHaveProperty('fullname');
  });

  it("a merge puts it over the source's reference item, unconditionally: the merged item's Put guards it", () => {
    const source = ann('ref-1');
    const reference = localReferenceItemOf(source);
    expect(mergedReferenceActions(TABLE, source)).toEqual([
      [{ Put: { TableName: TABLE, Item: mergedReferenceItem('ref-1', source.id) } }, { kind: 'reference' }],
    ]);
    expect(mergedReferenceItem('ref-1', source.id)).toMatchObject({ pk: reference?.pk, sk: reference?.sk });
  });

  it.each([null, ''])('a merge of a source whose root value is %j leaves none', (value) => {
    expect(mergedReferenceActions(TABLE, ann(value))).toEqual([]);
  });

  it("the survivor's erasure deletes it by the value the merge's record keeps", () => {
    expect(mergedReferenceRemoval(TABLE, 'ref-1', 100)).toEqual([
      { Delete: { TableName: TABLE, Key: { pk: 'LOCALREF#ref-1', sk: '0000000000000100' } } },
      { kind: 'reference' },
    ]);
  });
});
