/**
 * The invariant checker: scans a table and reports every way its claims and persons disagree. Run at
 * the end of every integration file; an empty list means the uniqueness rules hold in storage.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { fromPersonItem } from '../../lib/db/person-items';
import { claimsOf } from '../../lib/domain/person';
import type { TestTable } from './dynamo';

export type Item = Record<string, unknown>;

export const scanAll = async ({ client, tableName }: TestTable): Promise<Item[]> => {
  const items: Item[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/**
 * Every stored item but the id counter, in key order: what "a refused request changes nothing" is
 * checked against. Ids a refused request reserved are not handed out again; that is not a change.
 */
export const snapshot = async (table: TestTable): Promise<Item[]> =>
  (await scanAll(table))
    .filter((item) => item.pk !== 'COUNTER#ids')
    .sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));

export const checkInvariants = async (table: TestTable): Promise<string[]> => {
  const items = await scanAll(table);
  const persons = new Map(
    items.filter((item) => item.type === 'Person').map((item) => [item.id as number, fromPersonItem(item)]),
  );
  const claims = new Map(
    items
      .filter((item) => item.type === 'Claim')
      .map((item) => [`${item.field}:${item.value}`, item.personId as number]),
  );
  const audits = items.filter((item) => item.type === 'AuditEntry');
  const problems: string[] = [];

  for (const [key, personId] of claims) {
    const person = persons.get(personId);
    if (!person) problems.push(`claim ${key} points at missing person ${personId}`);
    else if (!claimsOf(person).some((claim) => `${claim.field}:${claim.value}` === key))
      problems.push(`claim ${key} points at person ${personId}, who does not hold it`);
  }
  for (const person of persons.values()) {
    for (const claim of claimsOf(person)) {
      const holder = claims.get(`${claim.field}:${claim.value}`);
      if (holder !== person.id)
        problems.push(
          `person ${person.id} holds ${claim.field} ${claim.value} but the claim is ${holder ?? 'missing'}`,
        );
    }
    const versions = audits.filter((audit) => audit.person_id === person.id).length;
    if (versions !== person.CoreMetaData.version)
      problems.push(
        `person ${person.id} is at version ${person.CoreMetaData.version} with ${versions} audit entries`,
      );
  }
  return problems;
};
