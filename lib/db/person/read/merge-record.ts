/**
 * What a merge did (API.md 13.1, issue #58): the record an unmerge works from. A merge keeps it on the
 * survivor's link to the source (merged-from.ts). A merge made before links kept one has it rebuilt
 * from its two MERGE entries: the same merge made again from their previous objects (`recordOfEarlierMerge`:
 * the merge is a pure function of the two persons it read). The source's entry is its merged item's
 * `modified_audit_id`; the survivor's is the id before it (a merge reserves the two together, the
 * survivor's first: merge-person.ts).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isMergedPerson, type MergeRecord, recordOfEarlierMerge } from '../../../domain/merge';
import type { Person } from '../../../domain/person';
import { changeHistory } from '../../history/change-history';
import type { Storage } from '../../table/client';
import { mergedFromKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import type { MergedFromItem } from '../merged-from';
import { getStoredPerson } from './person-reads';

/** The record of the merge of `sourceId` into `survivorId`; undefined when no such merge is stored. */
export const mergeRecordOf = async (
  storage: Storage,
  survivorId: number,
  sourceId: number,
): Promise<MergeRecord | undefined> => {
  const { Item } = await storageCall(() =>
    storage.client.send(
      new GetCommand({
        TableName: storage.tableName,
        Key: mergedFromKey(survivorId, sourceId),
        ConsistentRead: true,
      }),
    ),
  );
  const link = Item as MergedFromItem | undefined;
  if (!link) return undefined;
  // A record kept before the source's own SocialAddresses and Names were (issue #58 step 2) is rebuilt too.
  if (link.record?.source_social && link.record.source_names) return link.record;
  const source = await getStoredPerson(storage, sourceId);
  if (!isMergedPerson(source) || source.superceded_by !== survivorId) return undefined;
  const entryId = source.CoreMetaData.modified_audit_id;
  if (typeof entryId !== 'number') return undefined;
  const history = changeHistory(storage);
  const [sourceChange, survivorChange] = await Promise.all([history.get(entryId), history.get(entryId - 1)]);
  const isMergeOf = ({ entry }: typeof sourceChange, id: number) =>
    entry.action === 'merge' && entry.object_id === id;
  if (!isMergeOf(sourceChange, sourceId) || !isMergeOf(survivorChange, survivorId)) return undefined;
  // An erasure of the survivor rewrote the entries' objects (API.md 15): no personal data is left to rebuild from.
  const [survivorBefore, sourceBefore] = [survivorChange.previous, sourceChange.previous] as Person[];
  if (!Array.isArray(survivorBefore?.Names) || !Array.isArray(sourceBefore?.Names)) return undefined;
  return recordOfEarlierMerge(survivorBefore, sourceBefore);
};
