/**
 * Writes what enrichment found: the still-empty SocialAddresses fields, a version bump, an `enrich`
 * AuditEntry and the enrichment mark, in one transaction conditioned on the version it read, so a
 * PATCH that lands meanwhile is re-read and kept, never lost.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { changeEntry, NO_ORIGIN } from '../../../domain/change-history';
import { fillSocialAddresses, type SocialProfiles } from '../../../domain/enrichment';
import { PERSON_TYPE, type Person } from '../../../domain/person';
import { retryDeadline } from '../../../timeouts';
import { historyActions } from '../../history/history-actions';
import type { Storage } from '../../table/client';
import { enrichmentKey, personKey } from '../../table/keys';
import { storageCall } from '../../table/storage-errors';
import { transactionOf } from '../../write/actions';
import { type IdAllocator, idAllocator } from '../../write/ids';
import { jitteredBackoff, type RetryOptions, retrying, sendWrite } from '../../write/send';
import { fromPersonItem, isLivePersonItem, personPut } from '../person-items';

export type FillOutcome = 'written' | 'nothing-to-fill' | 'already-enriched' | 'no-such-person';

export interface EnrichmentState {
  person?: Person;
  enriched: boolean;
}

export interface SocialAddressWriter {
  /** The person and whether it was enriched already, in one read of its partition. */
  state(personId: number): Promise<EnrichmentState>;
  /** `deadline`: until when a write that meets concurrent ones retries (`retryDeadline`). */
  fill(personId: number, profiles: SocialProfiles, deadline?: number): Promise<FillOutcome>;
}

/** The person and whether it was enriched already, in one read of its partition. */
const enrichmentState = async (
  { client, tableName }: Storage,
  personId: number,
): Promise<EnrichmentState> => {
  const { Items = [] } = await storageCall(() =>
    client.send(
      new QueryCommand({
        TableName: tableName,
        // ENRICHMENT and PERSON sort after every AUDIT# key: the two items, no history (and the small
        // items beside them: a survivor's MERGEDFROM# links, POSTINGS, PRINCIPAL).
        KeyConditionExpression: 'pk = :pk AND sk >= :from',
        ExpressionAttributeValues: { ':pk': personKey(personId).pk, ':from': enrichmentKey(personId).sk },
        ConsistentRead: true,
      }),
    ),
  );
  const item = Items.find((candidate) => candidate.sk === personKey(personId).sk);
  return {
    // A person merged into another (API.md 13) or erased (API.md 15) is enriched no more: none to fill.
    ...(item && isLivePersonItem(item) ? { person: fromPersonItem(item) } : {}),
    enriched: Items.some((candidate) => candidate.sk === enrichmentKey(personId).sk),
  };
};

/** One try at filling: the outcome, or undefined when the write met a concurrent one (read again). */
const fillOnce = async (
  { client, tableName, ids, clock }: Storage & { ids: IdAllocator; clock: () => Date },
  personId: number,
  profiles: SocialProfiles,
): Promise<FillOutcome | undefined> => {
  const { person, enriched } = await enrichmentState({ client, tableName }, personId);
  if (!person) return 'no-such-person';
  if (enriched) return 'already-enriched';
  const now = clock().toISOString();
  const { person: filledPerson, filled } = fillSocialAddresses(person, profiles, now);
  if (filled.length === 0) return 'nothing-to-fill';
  const changeId = (await ids.reserve(1)).first;
  const next = {
    ...filledPerson,
    CoreMetaData: { ...filledPerson.CoreMetaData, modified_audit_id: changeId },
  };
  const entry = changeEntry(PERSON_TYPE, next, {
    id: changeId,
    action: 'enrich',
    requester: null,
    at: now,
    changed: ['/SocialAddresses'],
    origin: { ...NO_ORIGIN, caller: 'enrichment' },
  });
  const landed = await sendWrite(
    client,
    transactionOf([
      personPut(tableName, next, person.CoreMetaData.version),
      ...historyActions(tableName, entry, next),
      [
        {
          Put: {
            TableName: tableName,
            Item: { ...enrichmentKey(personId), type: 'EnrichmentMark', at: now, filled },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        { kind: 'mark' },
      ],
    ]),
  );
  return landed ? 'written' : undefined;
};

export const socialAddressWriter = ({
  client,
  tableName,
  ids = idAllocator(client, tableName),
  clock = () => new Date(),
  backoff = jitteredBackoff,
}: Storage & { ids?: IdAllocator; clock?: () => Date } & Partial<
    Pick<RetryOptions, 'backoff'>
  >): SocialAddressWriter => ({
  state: (personId) => enrichmentState({ client, tableName }, personId),
  fill: (personId, profiles, deadline = retryDeadline()) =>
    // A version that moved (a PATCH landed) or another delivery that enriched first: read again.
    retrying({ deadline, backoff }, () => fillOnce({ client, tableName, ids, clock }, personId, profiles)),
});
