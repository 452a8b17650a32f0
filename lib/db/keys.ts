/**
 * The single-table key design: every key string is built here and nowhere else.
 *
 * | item            | pk                      | sk                 | attributes                                  |
 * |-----------------|-------------------------|--------------------|---------------------------------------------|
 * | Person          | `PERSON#<id>`           | `PERSON`           | the stored Person (lib/domain/person.ts)     |
 * | AuditEntry      | `PERSON#<id>`           | `AUDIT#<version>`  | id, person_id, action, requester, at, changed |
 * | email claim     | `EMAIL#<normalised>`    | `CLAIM`            | personId, value                             |
 * | name claim      | `NAME#<folded fullname>`| `CLAIM`            | personId, value (held only by email-less persons) |
 * | id counter      | `COUNTER#ids`           | `COUNTER`          | value: the last id handed out               |
 * | Prefix / Suffix | `PREFIX` / `SUFFIX`     | `PREFIX#<id>` / `SUFFIX#<id>` | id, prefix / suffix              |
 *
 * Claims are written in the same transaction as the Person with `attribute_not_exists(pk)`, and
 * released with a condition that they still name that Person, so uniqueness holds under concurrency.
 * AuditEntry sort keys use the Person's version (zero-padded), which grows by one per write: a
 * Person's history is one Query on its partition, newest first, and two writes can never collide.
 */
import { createHash } from 'node:crypto';
import type { Claim } from '../domain/person';

export interface Key {
  pk: string;
  sk: string;
}

/** DynamoDB allows 2048 bytes in a partition key; long claim values are hashed to stay well inside. */
const MAX_KEY_VALUE_BYTES = 1024;

const pad = (n: number) => String(n).padStart(10, '0');

const keyValue = (value: string) =>
  Buffer.byteLength(value) <= MAX_KEY_VALUE_BYTES
    ? value
    : `sha256:${createHash('sha256').update(value).digest('hex')}`;

export const personKey = (id: number): Key => ({ pk: `PERSON#${id}`, sk: 'PERSON' });

export const auditKey = (personId: number, version: number): Key => ({
  pk: `PERSON#${personId}`,
  sk: `AUDIT#${pad(version)}`,
});

export const claimKey = ({ field, value }: Claim): Key => ({
  pk: `${field === 'email' ? 'EMAIL' : 'NAME'}#${keyValue(value)}`,
  sk: 'CLAIM',
});

export const idCounterKey: Key = { pk: 'COUNTER#ids', sk: 'COUNTER' };

export const prefixKey = (id: number): Key => ({ pk: 'PREFIX', sk: `PREFIX#${pad(id)}` });
export const suffixKey = (id: number): Key => ({ pk: 'SUFFIX', sk: `SUFFIX#${pad(id)}` });
