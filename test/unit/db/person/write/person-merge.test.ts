/**
 * The merge's write (API.md 13, issue #39 steps 2 and 5): two persons' parts composed into one write
 * under one budget of 100 actions, what each part holds, and a cancellation read back to the person
 * whose part was stale.
 */
import { describe, expect, it } from 'vitest';
import { planMerge } from '../../../../../lib/db/person/write/person-merge';
import { composeWrite } from '../../../../../lib/db/person/write/person-write';
import { MAX_TRANSACTION_ACTIONS, type WriteTransaction } from '../../../../../lib/db/write/actions';
import { decodeCancellation } from '../../../../../lib/db/write/cancellation';
import { RequesterMerged, RequesterUnknown } from '../../../../../lib/domain/errors';
import type { Person } from '../../../../../lib/domain/person';
import { createdPerson } from '../../../../support/fixtures';

const TABLE = 'people-test';
const NOW = '2026-11-26T12:00:00.000Z';

const person = (
  first: string,
  last: string,
  firstId: number,
  emails: string[],
  reference: string | null = null,
) =>
  createdPerson(
    {
      local_reference_id: reference,
      Names: { '@set': [{ first_name: first, last_name: last }] },
      Emails: { '@set': emails.map((email) => ({ email })) },
    },
    { firstId },
  );

const plan = (survivor: Person, source: Person) =>
  planMerge({
    tableName: TABLE,
    survivor: { person: survivor, pending: null },
    source: { person: source, pending: null },
    requester: 7,
    now: NOW,
    changeIds: { survivor: 900, source: 901 },
  });

type Item = NonNullable<WriteTransaction['input']['TransactItems']>[number];
const keysOf = (items: Item[]) =>
  items.map((item) => {
    const [kind, body] = Object.entries(item)[0] as [string, { Key?: { pk: string }; Item?: { pk: string } }];
    return `${kind} ${String((body.Key ?? body.Item)?.pk)}`;
  });

describe('planMerge: the two parts of a merge', () => {
  const survivor = person('Ada', 'Lovelace', 100, ['ada@example.org']);
  const source = person(
    'Augusta Ada',
    'King',
    200,
    ['countess@example.org', 'ada.king@example.org'],
    'erp-9',
  );

  it("puts the survivor over its version, re-points the source's email claims to it on condition they still name the source", () => {
    const { parts } = plan(survivor, source);
    const [, own] = parts;
    expect(own.personId).toBe(100);
    const [put, ...rest] = own.actions;
    expect(put?.[0].Put).toMatchObject({
      Item: { pk: 'PERSON#100', type: 'Person', CoreMetaData: { version: 2, modified_audit_id: 900 } },
      ConditionExpression: 'attribute_exists(pk) AND #meta.#version = :previous',
      ExpressionAttributeValues: { ':previous': 1 },
    });
    const repoints = rest.filter(([, role]) => role.kind === 'repoint');
    expect(repoints.map(([item]) => item.Put)).toEqual(
      ['countess@example.org', 'ada.king@example.org'].map((email) => ({
        TableName: TABLE,
        Item: {
          pk: `EMAIL#${email}`,
          sk: 'CLAIM',
          type: 'Claim',
          field: 'email',
          value: email,
          personId: 100,
        },
        ConditionExpression: '#owner = :from',
        ExpressionAttributeNames: { '#owner': 'personId' },
        ExpressionAttributeValues: { ':from': 200 },
      })),
    );
    expect(rest.filter(([, role]) => role.kind === 'history')).toHaveLength(1);
  });

  it('puts the survivor’s link to the source in the survivor’s part, unconditionally, beside its entry, with the merge’s record', () => {
    const { parts, result } = plan(survivor, source);
    const [gone, own] = parts;
    const links = (part: typeof own) =>
      part.actions.map(([item]) => item.Put?.Item).filter((item) => item?.type === 'MergedFrom');
    expect(links(own)).toEqual([
      {
        pk: 'PERSON#100',
        sk: 'MERGEDFROM#0000000000000200',
        type: 'MergedFrom',
        sourceId: 200,
        at: NOW,
        record: result.record,
      },
    ]);
    expect(result.record.moved.map(({ id }) => id)).toEqual([201, 202, 203]);
    expect(links(gone)).toEqual([]);
    const link = own.actions.find(([item]) => item.Put?.Item?.type === 'MergedFrom');
    expect(link?.[0].Put?.ConditionExpression).toBeUndefined();
    expect(keysOf(own.actions.map(([item]) => item)).slice(0, 4)).toEqual([
      'Put PERSON#100',
      'Put PERSON#100',
      expect.stringMatching(/^Update COUNTER#changes#Person#/),
      'Put PERSON#100',
    ]);
  });

  it('remembers in the record the principal whose binding passed to the survivor (an unmerge gives it back)', () => {
    const principal = { kind: 'jwt' as const, issuer: 'https://issuer.example', subject: 'countess' };
    const { result, parts } = planMerge({
      tableName: TABLE,
      survivor: { person: survivor, pending: null },
      source: { person: source, pending: null, principal },
      requester: 7,
      now: NOW,
      changeIds: { survivor: 900, source: 901 },
    });
    expect(result.record.principal).toEqual(principal);
    const link = parts[1].actions.find(([item]) => item.Put?.Item?.type === 'MergedFrom');
    expect(link?.[0].Put?.Item?.record.principal).toEqual(principal);
    expect(plan(survivor, source).result.record).not.toHaveProperty('principal');
  });

  it('puts the source merged over its version, its merged reference over its reference item and counts one person fewer', () => {
    const { parts, result } = plan(survivor, source);
    const [gone] = parts;
    expect(gone.personId).toBe(200);
    const [put] = gone.actions;
    expect(put?.[0].Put?.Item).toEqual({
      pk: 'PERSON#200',
      sk: 'PERSON',
      type: 'MergedPerson',
      ...result.source,
    });
    expect(put?.[0].Put?.ExpressionAttributeValues).toEqual({ ':previous': 1 });
    expect(keysOf(gone.actions.map(([item]) => item))).toEqual([
      'Put PERSON#200',
      'Put PERSON#200',
      expect.stringMatching(/^Update COUNTER#changes#Person#/),
      'Put LOCALREF#erp-9',
      expect.stringMatching(/^Update COUNTER#persons#/),
    ]);
    // The client's own key still finds the survivor (API.md 13.1): the same key, no stub.
    expect(gone.actions[3]?.[0].Put).toEqual({
      TableName: TABLE,
      Item: { pk: 'LOCALREF#erp-9', sk: '0000000000000200', type: 'LocalReference', id: 200, merged: true },
    });
    const counter = gone.actions.at(-1)?.[0].Update;
    expect(counter?.ExpressionAttributeValues).toEqual({ ':count': -1 });
    // It implies no posting: every one it held is deleted.
    expect(gone.after.Names).toEqual([]);
    expect(gone.after.local_reference_id).toBeNull();
  });

  it('releases the name claim of an email-less source, and the survivor’s when it gains emails', () => {
    const named = person('Lord', 'Byron', 300, []);
    const byName = plan(person('George', 'Byron', 400, []), named);
    const released = (index: 0 | 1) =>
      byName.parts[index].actions.filter(([, role]) => role.kind === 'release').map(([item]) => item.Delete);
    expect(released(0)).toEqual([
      expect.objectContaining({
        Key: { pk: 'NAME#lord byron', sk: 'CLAIM' },
        ExpressionAttributeValues: { ':me': 300 },
      }),
    ]);
    expect(released(1)).toEqual([]);
    const gains = plan(person('George', 'Byron', 400, []), source);
    expect(
      gains.parts[1].actions.filter(([, role]) => role.kind === 'release').map(([item]) => item.Delete?.Key),
    ).toEqual([{ pk: 'NAME#george byron', sk: 'CLAIM' }]);
  });

  it('writes a MERGE entry on each person, the source’s listing what it held', () => {
    const { entries } = plan(survivor, source);
    expect(entries.survivor).toMatchObject({
      id: 900,
      object_id: 100,
      version: 2,
      action: 'merge',
      requester: 7,
    });
    expect(entries.source).toMatchObject({
      id: 901,
      object_id: 200,
      version: 2,
      action: 'merge',
      requester: 7,
    });
    expect(entries.source.changed).toEqual(['/local_reference_id', '/Names', '/Emails', '/superceded_by']);
  });
});

describe('composeWrite: two persons under one budget', () => {
  const survivor = person('Ada', 'Lovelace', 100, ['ada@example.org']);
  const source = person('Augusta Ada', 'King', 200, ['countess@example.org']);

  it('tags every action with the person whose part it is, own actions first, then the postings', () => {
    const { write, chain } = composeWrite(TABLE, plan(survivor, source).parts, 'token');
    expect(write.roles.length).toBeLessThanOrEqual(MAX_TRANSACTION_ACTIONS);
    expect(write.roles.every((role) => role.person === 100 || role.person === 200)).toBe(true);
    const firstPosting = write.roles.findIndex((role) => role.kind === 'posting');
    expect(write.roles.slice(0, firstPosting).some((role) => role.kind === 'posting')).toBe(false);
    expect(
      write.roles.slice(firstPosting).every((role) => role.kind === 'posting' || role.kind === 'pending'),
    ).toBe(true);
    // Both persons' postings: the survivor's new ones put, the source's deleted.
    const postings =
      write.input.TransactItems?.filter((_, index) => write.roles[index]?.kind === 'posting') ?? [];
    expect(postings.some((item) => item.Put?.Item?.id === 100)).toBe(true);
    expect(postings.some((item) => item.Delete?.Key?.sk?.toString().endsWith('0000000000000200'))).toBe(true);
    expect(chain).toEqual([]);
  });

  it('sends what does not fit in chains, each person’s guarded by its own POSTINGS item', () => {
    const many = (label: string) => Array.from({ length: 25 }, (_, n) => `${label}.${n}.someone@example.org`);
    const big = composeWrite(
      TABLE,
      plan(person('Big', 'Survivor', 1000, many('s')), person('Big', 'Source', 2000, many('d'))).parts,
      'token',
    );
    expect(big.write.roles).toHaveLength(MAX_TRANSACTION_ACTIONS);
    expect(big.chain.length).toBeGreaterThan(1);
    expect(big.chained.sort()).toEqual([1000, 2000]);
    expect(big.preluded).toEqual([]);
    const pendingPuts = big.write.input.TransactItems?.filter(
      (item) => item.Put?.Item?.type === 'PostingsPending',
    );
    expect(pendingPuts?.map((item) => item.Put?.Item?.pk).sort()).toEqual(['PERSON#1000', 'PERSON#2000']);
  });

  it('reads a cancellation back to the person whose part was stale', () => {
    const { write } = composeWrite(TABLE, plan(survivor, source).parts, 'token');
    const failing = (kind: string, person: number) =>
      write.roles.map((role) =>
        role.kind === kind && role.person === person ? { Code: 'ConditionalCheckFailed' } : { Code: 'None' },
      );
    expect(decodeCancellation(failing('object', 200), write.roles)).toEqual({ retry: true, stale: [200] });
    expect(decodeCancellation(failing('object', 100), write.roles)).toEqual({ retry: true, stale: [100] });
    // A claim that changed hands meanwhile: the survivor's part re-pointed it.
    expect(decodeCancellation(failing('repoint', 100), write.roles)).toEqual({ retry: true, stale: [100] });
  });
});

describe('the requester check of a write', () => {
  const roles = [{ kind: 'requester' as const, requester: 5 }];
  it('reads a merged requester back as its survivor, and a missing one as unknown', () => {
    const merged = decodeCancellation(
      [{ Code: 'ConditionalCheckFailed', Item: { superceded_by: { N: '9' }, id: { N: '5' } } }],
      roles,
    );
    expect(merged).toEqual({ retry: false, error: new RequesterMerged(5, 9) });
    expect(merged?.retry === false && merged.error).toBeInstanceOf(RequesterMerged);
    const missing = decodeCancellation([{ Code: 'ConditionalCheckFailed' }], roles);
    expect(missing?.retry === false && missing.error).toBeInstanceOf(RequesterUnknown);
  });
});
