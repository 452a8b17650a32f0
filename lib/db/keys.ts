/**
 * The single-table key design: every key string is built here and nowhere else.
 *
 * | item            | pk                      | sk                 | attributes                                  |
 * |-----------------|-------------------------|--------------------|---------------------------------------------|
 * | Person          | `PERSON#<id>`           | `PERSON`           | the stored Person (lib/domain/person.ts)     |
 * | AuditEntry      | `PERSON#<id>`           | `AUDIT#<version>`  | id, person_id, action, requester, at, changed |
 * | enrichment mark | `PERSON#<id>`           | `ENRICHMENT`       | at: when enrichment wrote (once per person)  |
 * | email claim     | `EMAIL#<normalised>`    | `CLAIM`            | personId, value                             |
 * | name claim      | `NAME#<folded fullname>`| `CLAIM`            | personId, value (held only by email-less persons) |
 * | id counter      | `COUNTER#ids`           | `COUNTER`          | value: the last id handed out               |
 * | person counter  | `COUNTER#persons`       | `COUNTER`          | value: how many persons exist (ADD 1 in each create's transaction) |
 * | Prefix / Suffix | `PREFIX` / `SUFFIX`     | `PREFIX#<id>` / `SUFFIX#<id>` | id, prefix / suffix              |
 *
 * Index `byName` (the list of persons): every Person item also carries `listPk` = `PERSON` and
 * `listSk` = `<folded fullname>\u0001<id, 16 digits>`, so the index is ordered by folded fullname with
 * ties by id (`\u0001` sorts below every character a folded name holds, so "ann" comes before
 * "ann b"); names that agree in their first 512 bytes are ordered by id. It projects only `id`,
 * `fullname` and the folded searchable forms (`search_first_name`, `search_last_name`, `search_email`,
 * `search_rest`): a list reads small index entries, never Person documents.
 *
 * What a list request costs, for N persons in the table:
 * - no filter, `limit` L at `offset` O: one GetItem of the person counter (the count, O(1)) and
 *   index reads of O + L entries (all N when O is past the end) (about 100 bytes each, so one Query call per ~10 000 entries).
 * - any filter: the whole index range is read to count the matches, N entries whatever O and L are.
 *   That grows with the table; a later change replaces it with an index that does not.
 * - `limit=0` without filters: the counter read only.
 * The single index partition (`PERSON`) takes about 1 000 writes/s, which bounds the rate of creates.
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

/** Written in the transaction that enriches a person, so a redelivered record never writes twice. */
export const enrichmentKey = (personId: number): Key => ({ pk: `PERSON#${personId}`, sk: 'ENRICHMENT' });

export const claimKey = ({ field, value }: Claim): Key => ({
  pk: `${field === 'email' ? 'EMAIL' : 'NAME'}#${keyValue(value)}`,
  sk: 'CLAIM',
});

export const idCounterKey: Key = { pk: 'COUNTER#ids', sk: 'COUNTER' };
export const personCounterKey: Key = { pk: 'COUNTER#persons', sk: 'COUNTER' };

export const PERSON_LIST_INDEX = 'byName';
export const PERSON_LIST_PARTITION = 'PERSON';

/** The longest name part of an index sort key (DynamoDB allows 1024 bytes in all). */
const MAX_SORT_NAME_BYTES = 512;

/** Cuts a string to at most `bytes` of UTF-8, never inside a character. */
const utf8Prefix = (text: string, bytes: number) => {
  let used = 0;
  let end = 0;
  for (const character of text) {
    used += Buffer.byteLength(character);
    if (used > bytes) break;
    end += character.length;
  }
  return text.slice(0, end);
};

/** Where a person stands in the `byName` index: folded fullname (its first 512 bytes), then id. */
export const personListKey = (foldedFullname: string, id: number) => ({
  listPk: PERSON_LIST_PARTITION,
  listSk: `${utf8Prefix(foldedFullname.replace(/\p{Cc}/gu, ''), MAX_SORT_NAME_BYTES)}\u0001${String(id).padStart(16, '0')}`,
});

export const prefixKey = (id: number): Key => ({ pk: 'PREFIX', sk: `PREFIX#${pad(id)}` });
export const suffixKey = (id: number): Key => ({ pk: 'SUFFIX', sk: `SUFFIX#${pad(id)}` });
