/**
 * What a merge remembers for its undo (API.md 13.1, issue #58 step 1), against DynamoDB Local: the
 * survivor's link to the source keeps the merge's record (which of the source's items moved, with
 * the primary each had there, which were dropped as equal, whole, the SocialAddresses values taken,
 * the source's root local_reference_id); a merge made before links kept one has the same record
 * rebuilt from its two MERGE entries.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { mergeRecordOf } from '../../lib/db/person/read/merge-record';
import { mergedFromKey } from '../../lib/db/table/keys';
import { type Json, uniqueEmail, uniqueTag } from '../support/api';
import { forgetMergeRecord } from '../support/dynamo';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

type Item = Json & { id: number };
const idsOf = (person: Json, set: string) =>
  ((person[set] as { '@set': Item[] })['@set'] ?? []).map(({ id }) => id);

const create = async (body: unknown) => {
  const { status, body: created } = await suite.api.post(body);
  expect(status).toBe(201);
  return created as Json & { id: number };
};

/** A survivor and a source holding one equal email-less phone, one of their own, and social values. */
const merged = async () => {
  const tag = uniqueTag('r');
  const survivor = await create({
    Names: { '@set': [{ first_name: 'Ada', last_name: `Lovelace${tag}` }] },
    Emails: { '@set': [{ email: uniqueEmail('ada') }] },
    PhoneNumbers: { '@set': [{ phone_number: '+44 20 7946 0958' }] },
    SocialAddresses: { twitter: '@ada' },
  });
  const source = await create({
    local_reference_id: `erp-${tag}`,
    Names: { '@set': [{ first_name: 'Augusta', last_name: `King${tag}` }] },
    Emails: { '@set': [{ email: uniqueEmail('countess'), primary: true }] },
    PhoneNumbers: {
      '@set': [
        { phone_number: '+44 (20) 7946-0958', local_reference_id: 'p-equal' },
        { phone_number: '+44 20 7946 0000', primary: true },
      ],
    },
    SocialAddresses: { twitter: '@countess', linkedin: 'ada-king' },
  });
  expect((await suite.api.merge(survivor.id, { source: source.id })).status).toBe(200);
  return { survivor, source };
};

describe('what a merge remembers', () => {
  it('keeps on the survivor’s link what moved, what was dropped as equal, the social values taken and the root key', async () => {
    const { survivor, source } = await merged();
    const record = await mergeRecordOf(suite.table, survivor.id, source.id);
    const [equalPhone, ownPhone] = idsOf(source, 'PhoneNumbers');
    const [sourceEmail] = idsOf(source, 'Emails');
    const [sourceName] = idsOf(source, 'Names');
    expect(record?.moved).toEqual(
      expect.arrayContaining([
        { set: 'Names', id: sourceName, primary: true },
        { set: 'Emails', id: sourceEmail, primary: true },
        { set: 'PhoneNumbers', id: ownPhone, primary: true },
      ]),
    );
    expect(record?.moved).toHaveLength(3);
    // The equal phone, whole as the source held it (its own key and spelling).
    expect(record?.dropped).toEqual([
      {
        set: 'PhoneNumbers',
        item: expect.objectContaining({
          id: equalPhone,
          phone_number: '+44 (20) 7946-0958',
          local_reference_id: 'p-equal',
        }),
      },
    ]);
    // The survivor kept its own twitter and took the source's linkedin.
    expect(record?.social).toEqual({ linkedin: 'ada-king' });
    // And the source's own, whole: what it gets back.
    expect(record?.source_social).toEqual({
      twitter: '@countess',
      linkedin: 'ada-king',
      facebook: null,
      youtube: null,
    });
    expect(record?.local_reference_id).toBe(source.local_reference_id);
  });

  it("rebuilds a record kept before it held the source's own social values (issue #58 step 1)", async () => {
    const { survivor, source } = await merged();
    const kept = await mergeRecordOf(suite.table, survivor.id, source.id);
    await suite.table.client.send(
      new UpdateCommand({
        TableName: suite.table.tableName,
        Key: mergedFromKey(survivor.id, source.id),
        UpdateExpression: 'REMOVE #record.#social',
        ExpressionAttributeNames: { '#record': 'record', '#social': 'source_social' },
      }),
    );
    expect(await mergeRecordOf(suite.table, survivor.id, source.id)).toEqual(kept);
  });

  it('rebuilds the same record from the MERGE entries for a merge made before links kept one', async () => {
    const { survivor, source } = await merged();
    const kept = await mergeRecordOf(suite.table, survivor.id, source.id);
    expect(kept).toBeDefined();
    // The link as an earlier merge (or the backfill) left it: without a record.
    await forgetMergeRecord(suite.table, mergedFromKey(survivor.id, source.id));
    expect(await mergeRecordOf(suite.table, survivor.id, source.id)).toEqual(kept);
  });

  it('has no record of two persons never merged, nor of a merge the other way round', async () => {
    const { survivor, source } = await merged();
    const other = await create({ Names: { '@set': [{ first_name: 'Charles', last_name: uniqueTag('B') }] } });
    expect(await mergeRecordOf(suite.table, survivor.id, other.id)).toBeUndefined();
    expect(await mergeRecordOf(suite.table, source.id, survivor.id)).toBeUndefined();
  });
});
