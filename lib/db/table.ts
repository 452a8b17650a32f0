/**
 * The table definition, in one place: the test setup, `npm start` and the CDK stack all build the
 * table from it.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const PARTITION_KEY = 'pk';
export const SORT_KEY = 'sk';

export const tableDefinition = (tableName: string): CreateTableCommandInput => ({
  TableName: tableName,
  KeySchema: [
    { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
    { AttributeName: SORT_KEY, KeyType: 'RANGE' },
  ],
  AttributeDefinitions: [
    { AttributeName: PARTITION_KEY, AttributeType: 'S' },
    { AttributeName: SORT_KEY, AttributeType: 'S' },
  ],
  BillingMode: 'PAY_PER_REQUEST',
  StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
});
