/**
 * The CDK table, built from the same `tableDefinition` that `npm start` and the tests create in
 * DynamoDB Local (lib/db/table/definition.ts), so the deployed keys and indexes cannot drift from the code's.
 * Anything in the definition this mapping does not understand is an error, not silently dropped.
 */
import type {
  AttributeDefinition,
  CreateTableCommandInput,
  GlobalSecondaryIndex,
  KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { RemovalPolicy } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type Attribute,
  AttributeType,
  BillingMode,
  type GlobalSecondaryIndexProps,
  ProjectionType,
  StreamViewType,
  Table,
} from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { TIME_TO_LIVE_ATTRIBUTE, tableDefinition } from '../lib/db/table/definition';

const ATTRIBUTE_TYPES: Record<string, AttributeType> = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
  B: AttributeType.BINARY,
};

const attributeOf = (name: string, definitions: readonly AttributeDefinition[]): Attribute => {
  const type = definitions.find((definition) => definition.AttributeName === name)?.AttributeType;
  const attributeType = type && ATTRIBUTE_TYPES[type];
  if (!attributeType) throw new Error(`The table definition gives attribute ${name} no known type`);
  return { name, type: attributeType };
};

const keysOf = (
  schema: readonly KeySchemaElement[] | undefined,
  definitions: readonly AttributeDefinition[],
) => {
  const named = (keyType: 'HASH' | 'RANGE') => schema?.find((key) => key.KeyType === keyType)?.AttributeName;
  const hash = named('HASH');
  if (!hash) throw new Error('The table definition has a key schema without a partition key');
  const range = named('RANGE');
  return {
    partitionKey: attributeOf(hash, definitions),
    ...(range ? { sortKey: attributeOf(range, definitions) } : {}),
  };
};

const indexOf = (
  index: GlobalSecondaryIndex,
  definitions: readonly AttributeDefinition[],
): GlobalSecondaryIndexProps => {
  if (!index.IndexName) throw new Error('The table definition has an index without a name');
  const projection = index.Projection?.ProjectionType ?? 'ALL';
  const projectionType = {
    ALL: ProjectionType.ALL,
    KEYS_ONLY: ProjectionType.KEYS_ONLY,
    INCLUDE: ProjectionType.INCLUDE,
  }[projection];
  return {
    indexName: index.IndexName,
    ...keysOf(index.KeySchema, definitions),
    projectionType,
    ...(projection === 'INCLUDE'
      ? { nonKeyAttributes: [...(index.Projection?.NonKeyAttributes ?? [])] }
      : {}),
  };
};

/** The CDK shape of a table definition: its keys, its indexes, billing and stream. */
export const tableShapeFrom = (definition: CreateTableCommandInput) => {
  if (definition.LocalSecondaryIndexes?.length)
    throw new Error('Local secondary indexes are not mapped to CDK yet: add them to infra/table.ts');
  if (definition.BillingMode !== 'PAY_PER_REQUEST')
    throw new Error('Only on-demand (PAY_PER_REQUEST) billing is mapped to CDK');
  const viewType = definition.StreamSpecification?.StreamEnabled
    ? definition.StreamSpecification.StreamViewType
    : undefined;
  const definitions = definition.AttributeDefinitions ?? [];
  return {
    ...keysOf(definition.KeySchema, definitions),
    billingMode: BillingMode.PAY_PER_REQUEST,
    ...(viewType ? { stream: StreamViewType[viewType] } : {}),
    globalSecondaryIndexes: (definition.GlobalSecondaryIndexes ?? []).map((index) =>
      indexOf(index, definitions),
    ),
  };
};

export interface PersonTableProps {
  /** A throw-away stack: destroy the table with it and leave deletion protection off. */
  devStack: boolean;
  /**
   * Indexes of the definition to leave out of this deploy. CloudFormation creates at most one global
   * secondary index per update of an existing table, so a stack deployed before two indexes were
   * added takes them over two deploys: first with one of them withheld, then with none.
   */
  withholdIndexes?: readonly string[];
}

/**
 * The service's one table: on demand, with point-in-time recovery and the stream enrichment reads.
 * Kept (RETAIN) and deletion-protected unless the stack is a dev stack: it is the authoritative store.
 */
export class PersonTable extends Table {
  /** The global secondary indexes this deploy has (the definition's, less those withheld). */
  readonly indexNames: readonly string[];

  constructor(scope: Construct, id: string, { devStack, withholdIndexes = [] }: PersonTableProps) {
    // The name is CloudFormation's to choose; the definition's own name is only for DynamoDB Local.
    const { globalSecondaryIndexes, ...shape } = tableShapeFrom(tableDefinition('unused'));
    const names = globalSecondaryIndexes.map((index) => index.indexName);
    const unknown = withholdIndexes.filter((name) => !names.includes(name));
    if (unknown.length > 0)
      throw new Error(
        `The table definition has no index ${unknown.join(', ')} to withhold (it has ${names.join(', ')})`,
      );
    super(scope, id, {
      ...shape,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TIME_TO_LIVE_ATTRIBUTE,
      deletionProtection: !devStack,
      removalPolicy: devStack ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    const deployed = globalSecondaryIndexes.filter((index) => !withholdIndexes.includes(index.indexName));
    for (const index of deployed) this.addGlobalSecondaryIndex(index);
    this.indexNames = deployed.map((index) => index.indexName);
  }

  /**
   * Read and write throttle events of the table and of each index, by metric math id (`r0`, `w0` the
   * table's, then each index's). DynamoDB counts them per event (a write to the table and to each index
   * it updates), for any cause (on-demand's limits included), and the table's alone leave its indexes out.
   */
  metricThrottleEvents(options: MetricOptions): Record<string, Metric> {
    const of = (target: string, dimensions: Record<string, string>) => ({
      read: this.metric('ReadThrottleEvents', {
        ...options,
        dimensionsMap: dimensions,
        label: `${target} reads`,
      }),
      write: this.metric('WriteThrottleEvents', {
        ...options,
        dimensionsMap: dimensions,
        label: `${target} writes`,
      }),
    });
    const targets = [
      of('table', { TableName: this.tableName }),
      ...this.indexNames.map((index) =>
        of(index, { TableName: this.tableName, GlobalSecondaryIndexName: index }),
      ),
    ];
    return Object.fromEntries(
      targets.flatMap(({ read, write }, n) => [
        [`r${n}`, read],
        [`w${n}`, write],
      ]),
    );
  }
}
