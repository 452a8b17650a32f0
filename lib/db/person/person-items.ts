/**
 * Pure builders of what the Person repository sends: the Person item from a domain Person and back,
 * and the write transaction of a create or a patch, built from the shared versioned write (with the
 * person's reference item, local-references.ts, and its postings, postings.ts).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ChangeEntry } from '../../domain/change-history';
import { searchableForms } from '../../domain/listing';
import type { PatchResult } from '../../domain/patch';
import { fullnameOfPerson, PERSON_TYPE, type Person } from '../../domain/person';
import { SET_NAMES } from '../../domain/schemas';
import { fold } from '../../domain/text';
import { historyActions } from '../history/history-actions';
import { localReferenceActions } from '../search/local-references';
import { type PostingsBefore, planPostings, postingChanges } from '../search/postings';
import { personCounterKey, personKey, personListKey, vocabularyKey } from '../table/keys';
import {
  type Action,
  claimActions,
  counterAdd,
  existsCheck,
  MAX_TRANSACTION_ACTIONS,
  objectPut,
  transactionOf,
  type WriteTransaction,
  withinItemLimit,
} from '../write/actions';

/** The Person item: the stored Person plus its place and searchable forms in the `byName` index. */
export const toPersonItem = (person: Person) => {
  const fullname = fullnameOfPerson(person);
  const search = searchableForms(person);
  return withinItemLimit(
    {
      ...personKey(person.id),
      type: PERSON_TYPE,
      ...person,
      ...personListKey(fold(fullname), person.id),
      fullname,
      search_first_name: search.first_name,
      search_last_name: search.last_name,
      search_email: search.email,
      search_rest: search.rest,
    },
    'person',
  );
};

const PERSON_FIELDS = [
  'id',
  'fullname',
  'local_reference_id',
  ...SET_NAMES,
  'SocialAddresses',
  'CoreMetaData',
] as const satisfies readonly (keyof Person)[];

/** The stored Person; sets added since the person was written read as empty. */
export const fromPersonItem = (item: Record<string, unknown>): Person =>
  Object.fromEntries(
    PERSON_FIELDS.map((field) => [
      field,
      field in item ? item[field] : (SET_NAMES as string[]).includes(field) ? [] : undefined,
    ]),
  ) as Person;

/**
 * The Person of a stream record's image (DynamoDB's attribute values), read as the repository reads
 * its items; an image that is not a Person item is refused, so its record fails alone.
 */
export const personFromImage = (image: Record<string, AttributeValue> | undefined): Person => {
  const item = image ? unmarshall(image) : {};
  if (item.type !== PERSON_TYPE || !Number.isSafeInteger(item.id))
    throw new Error(`Not a Person item: ${String(item.pk ?? 'no key')}`);
  return fromPersonItem(item);
};

/** The Person's version-conditioned Put (create: never overwrite; update: only over `previousVersion`). */
export const personPut = (tableName: string, person: Person, previousVersion: number | null): Action =>
  objectPut(tableName, toPersonItem(person), previousVersion);

export interface WritePlan {
  tableName: string;
  /** The patch's outcome; `previousVersion` null means create. */
  patched: PatchResult;
  previousVersion: number | null;
  entry: ChangeEntry;
  /** A person id that must exist for the write to be attributed to it, or null when none is needed. */
  requesterToCheck: number | null;
  /** The person's postings before the write (postings.ts). */
  postings: PostingsBefore;
  /** Names the write's chain of postings, should it need one. */
  token: string;
}

/** A person's write: its transaction, and what goes before and after it for the postings. */
export interface PersonWrite {
  prelude?: WriteTransaction;
  write: WriteTransaction;
  chain: WriteTransaction[];
}

export const buildPersonWrite = ({
  tableName,
  patched,
  previousVersion,
  entry,
  requesterToCheck,
  postings,
  token,
}: WritePlan): PersonWrite => {
  const { person } = patched;
  const actions: Action[] = [
    personPut(tableName, person, previousVersion),
    ...historyActions(tableName, entry, person),
    ...claimActions(tableName, { type: 'Person', id: person.id }, patched.take, patched.release),
    // In the write itself, never in a chain after it: the list by reference is as fresh as the write.
    ...localReferenceActions(tableName, postings.person, person),
    ...patched.references.map((reference) =>
      existsCheck(tableName, vocabularyKey(reference.kind, reference.id), { kind: 'vocabulary', reference }),
    ),
    ...(previousVersion === null ? [counterAdd(tableName, personCounterKey(person.id))] : []),
    ...(requesterToCheck === null
      ? []
      : [
          existsCheck(tableName, personKey(requesterToCheck), {
            kind: 'requester',
            requester: requesterToCheck,
          }),
        ]),
  ];
  const { prelude, inWrite, chain } = planPostings({
    tableName,
    personId: person.id,
    before: postings,
    changes: postingChanges(postings, person),
    room: MAX_TRANSACTION_ACTIONS - actions.length,
    token,
  });
  return {
    ...(prelude.length > 0 ? { prelude: transactionOf(prelude) } : {}),
    write: transactionOf([...actions, ...inWrite]),
    chain,
  };
};
