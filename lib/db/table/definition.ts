/**
 * The table definition, in one place: the test setup, `npm start` and the CDK stack all build the
 * table from it. The search postings are items of the table itself, read by key (keys.ts): they need
 * no index of their own.
 */
import type { CreateTableCommandInput, UpdateTimeToLiveCommandInput } from '@aws-sdk/client-dynamodb';
import { CHANGE_ID_INDEX, CHANGE_LIST_INDEX, PERSON_LIST_INDEX } from './keys';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

/**
 * The table's TTL attribute (seconds since the epoch): DynamoDB deletes an item some time after it
 * passes. Only idempotency records carry it (Powertools' `expiration`); whoever reads an item that
 * carries it checks the time itself, as TTL deletes within days, not at once.
 */
export const TIME_TO_LIVE_ATTRIBUTE = 'expiration';

/** What the `byName` index projects besides its keys: a stub and the searchable forms (keys.ts). */
export const PERSON_LIST_ATTRIBUTES = [
  'id',
  'fullname',
  'search_first_name',
  'search_last_name',
  'search_email',
  'search_rest',
];

export const tableDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  KeySchema: [
    { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
    { AttributeName: SORT_KEY, KeyType: 'RANGE' },
  ],
  AttributeDefinitions: [
    { AttributeName: PARTITION_KEY, AttributeType: 'S' },
    { AttributeName: SORT_KEY, AttributeType: 'S' },
    { AttributeName: 'listPk', AttributeType: 'S' },
    { AttributeName: 'listSk', AttributeType: 'S' },
    { AttributeName: 'changePk', AttributeType: 'S' },
    { AttributeName: 'changeSk', AttributeType: 'S' },
    { AttributeName: 'changeId', AttributeType: 'N' },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: PERSON_LIST_INDEX,
      KeySchema: [
        { AttributeName: 'listPk', KeyType: 'HASH' },
        { AttributeName: 'listSk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: PERSON_LIST_ATTRIBUTES },
    },
    // ChangeHistory newest first across objects, and by id (keys.ts); both hold keys only.
    {
      IndexName: CHANGE_LIST_INDEX,
      KeySchema: [
        { AttributeName: 'changePk', KeyType: 'HASH' },
        { AttributeName: 'changeSk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
    {
      IndexName: CHANGE_ID_INDEX,
      KeySchema: [{ AttributeName: 'changeId', KeyType: 'HASH' }],
      Projection: { ProjectionType: 'KEYS_ONLY' },
    },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
});

/**
 * The TTL setting, which CreateTable cannot carry: sent right after it wherever the table is created
 * (`npm start`, the tests, the benchmark); the CDK stack reads `TIME_TO_LIVE_ATTRIBUTE` itself.
 */
export const timeToLiveDefinition = (tableName: string): UpdateTimeToLiveCommandInput => ({
  TableName: tableName,
  TimeToLiveSpecification: { AttributeName: TIME_TO_LIVE_ATTRIBUTE, Enabled: true },
});
