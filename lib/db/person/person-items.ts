/**
 * The Person item's codec: the item from a domain Person and back (also from a stream record's image),
 * and its version-conditioned Put. What a write sends around it is person-write.ts's plan.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { searchableForms } from '../../domain/listing';
import { fullnameOfPerson, PERSON_TYPE, type Person } from '../../domain/person';
import { SET_NAMES } from '../../domain/schemas';
import { fold } from '../../domain/text';
import { personKey, personListKey } from '../table/keys';
import { type Action, objectPut, withinItemLimit } from '../write/actions';

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
