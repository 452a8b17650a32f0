/**
 * What each function may do to the table, as data: the DynamoDB actions, on the table or an index,
 * limited to the partitions (leading keys) it uses, and for transaction parts to transactions only.
 * Written from the calls in lib/db/ (which actions each repository sends, on which keys from
 * keys.ts), so a grant is read here rather than inferred from a `grantReadWriteData`. Nothing here
 * allows `Scan`, table management or a write outside the partitions named.
 */

import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  claimKey,
  idCounterKey,
  type Key,
  PERSON_LIST_INDEX,
  personCounterKey,
  personKey,
  prefixKey,
  suffixKey,
} from '../lib/db/keys';

export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem';

export interface TableAccessRule {
  actions: readonly TableAction[];
  /** Query this index instead of the table (index reads are not limited by partition). */
  index?: string;
  /** The partition key values (IAM `StringLike` patterns) the actions may touch. */
  partitions?: readonly string[];
  /** Only as a part of `TransactWriteItems` (`dynamodb:EnclosingOperation`), never on its own. */
  transactional?: boolean;
}

/** `PERSON#12` → `PERSON#*`: every partition whose key is built the same way. */
export const partitionsLike = ({ pk }: Key): string => `${pk.slice(0, pk.indexOf('#') + 1)}*`;

const PERSONS = partitionsLike(personKey(0));
const CLAIMS = [
  partitionsLike(claimKey({ field: 'email', value: '' })),
  partitionsLike(claimKey({ field: 'name', value: '' })),
];

/** Reserving a block of ids (ids.ts): one `UpdateItem ADD` on the id counter, outside transactions. */
const RESERVE_IDS: TableAccessRule = { actions: ['UpdateItem'], partitions: [idCounterKey.pk] };

export const TABLE_ACCESS: Readonly<Record<string, readonly TableAccessRule[]>> = {
  'get-person': [{ actions: ['GetItem'], partitions: [PERSONS] }],
  // The list reads the index and the person counter, nothing else.
  'list-persons': [
    { actions: ['Query'], index: PERSON_LIST_INDEX },
    { actions: ['GetItem'], partitions: [personCounterKey.pk] },
  ],
  'list-person-audit': [{ actions: ['GetItem', 'Query'], partitions: [PERSONS] }],
  'list-prefixes': [{ actions: ['Query'], partitions: [prefixKey(0).pk] }],
  'get-prefix': [{ actions: ['GetItem'], partitions: [prefixKey(0).pk] }],
  'list-suffixes': [{ actions: ['Query'], partitions: [suffixKey(0).pk] }],
  'get-suffix': [{ actions: ['GetItem'], partitions: [suffixKey(0).pk] }],
  // Person, audit entry and claims put, the person counter bumped, the requester checked: one transaction.
  'create-person': [
    RESERVE_IDS,
    { actions: ['PutItem'], partitions: [PERSONS, ...CLAIMS], transactional: true },
    { actions: ['UpdateItem'], partitions: [personCounterKey.pk], transactional: true },
    { actions: ['ConditionCheckItem'], partitions: [PERSONS], transactional: true },
  ],
  // Person and requester read together; person, audit entry and new claims put, old claims released.
  'update-person': [
    RESERVE_IDS,
    { actions: ['BatchGetItem'], partitions: [PERSONS] },
    { actions: ['PutItem'], partitions: [PERSONS, ...CLAIMS], transactional: true },
    { actions: ['DeleteItem'], partitions: CLAIMS, transactional: true },
  ],
  // The person and its enrichment mark read; person, audit entry and mark put in one transaction.
  'enrich-person': [
    RESERVE_IDS,
    { actions: ['Query'], partitions: [PERSONS] },
    { actions: ['PutItem'], partitions: [PERSONS], transactional: true },
  ],
  // The deploy-time seed of Prefix and Suffix (lib/db/reference-data.ts).
  'seed-reference-data': [{ actions: ['BatchWriteItem'], partitions: [prefixKey(0).pk, suffixKey(0).pk] }],
};

/** The IAM statements of a list of rules on one table. */
export const tableAccessStatements = (table: ITable, rules: readonly TableAccessRule[]): PolicyStatement[] =>
  rules.map(
    ({ actions, index, partitions, transactional }) =>
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [index ? `${table.tableArn}/index/${index}` : table.tableArn],
        conditions: {
          ...(partitions ? { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } } : {}),
          ...(transactional
            ? { 'ForAnyValue:StringEquals': { 'dynamodb:EnclosingOperation': ['TransactWriteItems'] } }
            : {}),
        },
      }),
  );
