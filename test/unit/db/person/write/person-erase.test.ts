/**
 * The erasure's write (API.md 15, issue #56 step 1): the tombstone, one ERASE entry with nothing
 * personal, every claim released, the reference item and postings deleted, the count stepped down,
 * the binding released or checked absent, and the requester checked only when it is another person.
 */
import { describe, expect, it } from 'vitest';
import { decodeSnapshot } from '../../../../../lib/db/history/snapshots';
import { planErase } from '../../../../../lib/db/person/write/person-erase';
import { composeWrite } from '../../../../../lib/db/person/write/person-write';
import { MAX_TRANSACTION_ACTIONS } from '../../../../../lib/db/write/actions';
import { isErasedPerson } from '../../../../../lib/domain/erasure';
import { createdPerson } from '../../../../support/fixtures';

const TABLE = 'people-test';
const NOW = '2026-11-29T12:00:00.000Z';

const ada = createdPerson(
  {
    local_reference_id: 'crm-ada',
    Names: { '@set': [{ first_name: 'Ada', last_name: 'Lovelace' }] },
    Emails: { '@set': [{ email: 'ada@example.org' }, { email: 'countess@example.org' }] },
    SocialAddresses: { twitter: '@ada' },
  },
  { firstId: 100 },
);

const plan = (requester: number, principal: Parameters<typeof planErase>[0]['principal'] = null) =>
  planErase({ tableName: TABLE, person: ada, pending: null, principal, requester, now: NOW, changeId: 900 });

type Action = Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown> }>;
const described = (actions: readonly Action[]) =>
  actions.map((action) => {
    const [kind, body] = Object.entries(action)[0] as [
      string,
      { Key?: { pk: string }; Item?: { pk: string } },
    ];
    return `${kind} ${String((body.Key ?? body.Item)?.pk).replace(/#.*/, '#')}`;
  });

describe('planErase', () => {
  it('puts the tombstone over the version read: the next version, nothing personal', () => {
    const { tombstone, part } = plan(ada.id);
    expect(tombstone).toEqual({
      id: ada.id,
      erased: NOW,
      CoreMetaData: { date_created: ada.CoreMetaData.date_created, date_modified: NOW, version: 2 },
    });
    const put = part.actions[0]?.[0] as Action;
    expect(put.Put?.Item).toMatchObject({ type: 'ErasedPerson', id: ada.id });
    expect(JSON.stringify(put)).not.toMatch(/ada@|Lovelace|crm-ada|@ada/);
  });

  it('writes one ERASE entry whose object is the tombstone and whose changed names what the person held', () => {
    const { tombstone, part } = plan(ada.id);
    const entry = part.actions
      .map(([action]) => (action as Action).Put?.Item)
      .find((item) => item?.type === 'ChangeHistory');
    expect(entry).toMatchObject({
      action: 'erase',
      object_id: ada.id,
      version: 2,
      requester: ada.id,
      changed: ['/local_reference_id', '/Names', '/Emails', '/SocialAddresses'],
    });
    const object = decodeSnapshot(entry?.snapshot as Uint8Array);
    expect(isErasedPerson(object)).toBe(true);
    expect(object).toEqual(tombstone);
  });

  it('releases every claim, deletes the reference item and every posting, and counts one person fewer', () => {
    const { part } = plan(ada.id);
    const { write, chain } = composeWrite(TABLE, [part], 'token');
    expect(chain).toEqual([]);
    const kinds = described(write.input.TransactItems as Action[]);
    // Both emails' claims released (deleted on condition that they still name the person), none taken.
    expect(write.roles.filter((role) => role.kind === 'release')).toHaveLength(2);
    expect(write.roles.filter((role) => role.kind === 'take' || role.kind === 'repoint')).toEqual([]);
    expect(kinds).toContain('Delete LOCALREF#');
    expect(write.roles.filter((role) => role.kind === 'posting').length).toBeGreaterThan(0);
    expect(kinds.filter((kind) => kind.startsWith('Put GRAM#'))).toEqual([]);
    const counter = (write.input.TransactItems as Action[]).find((action) =>
      String(action.Update?.Key?.pk).startsWith('COUNTER#persons'),
    );
    expect(counter?.Update).toMatchObject({ ExpressionAttributeValues: { ':count': -1 } });
    expect(write.input.TransactItems?.length).toBeLessThanOrEqual(MAX_TRANSACTION_ACTIONS);
  });

  it('checks the person still unbound, or releases its binding; checks the requester only when it is another', () => {
    expect(plan(ada.id).part.actions.map(([, role]) => role.kind)).not.toContain('requester');
    expect(plan(7).part.actions.map(([, role]) => role.kind)).toContain('requester');
    const unbound = plan(ada.id).part.actions.find(([action]) => (action as Action).ConditionCheck);
    expect(unbound?.[0]).toMatchObject({
      ConditionCheck: { ConditionExpression: 'attribute_not_exists(pk)' },
    });
    const principal = { kind: 'iam', arn: 'arn:aws:iam::123456789012:role/ada' } as const;
    const bound = described(plan(ada.id, principal).part.actions.map(([action]) => action as Action));
    expect(bound.filter((kind) => kind === 'Delete PRINCIPAL#')).toHaveLength(1);
  });
});
