/**
 * DynamoDB's size and capacity rules, in one place for the bench that counts what calls cost
 * (test/bench/capacity.ts) and the capacity model that predicts it (lib/capacity/): what one counts
 * the other predicts with the same arithmetic.
 *
 * The rules (DynamoDB developer guide, "Item sizes and formats" and "Read/write capacity mode"):
 * - an item's size is the UTF-8 length of its attribute names plus their values: strings by UTF-8
 *   length, numbers about 1 byte per 2 significant digits plus 1, booleans and null 1 byte, lists and
 *   maps 3 bytes plus 1 byte per element (plus the element's name in a map);
 * - a write costs 1 write unit per started KB of the item (the larger of old and new for a replacing
 *   Put), doubled in a transaction;
 * - a read costs 1 read unit per started 4 KB strongly consistent, 0.5 eventually consistent, per item
 *   for GetItem and BatchGetItem (an item not found costs the minimum), over the summed size of what
 *   was read for a Query; doubled for a transaction's ConditionCheck;
 * - storage counts each item's size and 100 bytes more per item, in the table and in each index that
 *   holds it ("Item sizes and formats").
 */

/** A write unit's item bytes. */
export const WRITE_UNIT_BYTES = 1024;
/** A read unit's item bytes (strongly consistent; eventually consistent reads cost half). */
export const READ_UNIT_BYTES = 4096;
/** What DynamoDB stores per item (table or index entry) beyond its attributes. */
export const ITEM_STORAGE_OVERHEAD_BYTES = 100;

const utf8 = (value: string) => Buffer.byteLength(value, 'utf8');

const numberSize = (value: number | bigint) => {
  const digits = String(value)
    .replace(/^-/, '')
    .replace(/e.*$/i, '')
    .replace('.', '')
    .replace(/^0+/, '')
    .replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
};

/** The size DynamoDB counts for one attribute value (document form, as the document client sends it). */
export const valueSize = (value: unknown): number => {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, element) => sum + valueSize(element), 0);
  if (Array.isArray(value))
    return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value).reduce(
        (sum, [name, element]) => (element === undefined ? sum : sum + 1 + utf8(name) + valueSize(element)),
        0,
      )
    );
  return utf8(String(value));
};

/** The size of an item: its attribute names and values. */
export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => (value === undefined ? sum : sum + utf8(name) + valueSize(value)),
    0,
  );

/** Started units of `unit` bytes, at least one (an empty read or write still costs the minimum). */
export const unitsOf = (bytes: number, unit: number) => Math.max(1, Math.ceil(bytes / unit));

/** The write units of one item of `bytes` (the larger of old and new), doubled in a transaction. */
export const writeUnits = (bytes: number, { transactional = false } = {}) =>
  unitsOf(bytes, WRITE_UNIT_BYTES) * (transactional ? 2 : 1);

/** The read units of `bytes` read in one item or one Query, strongly or eventually consistent. */
export const readUnits = (bytes: number, { consistent = false } = {}) =>
  unitsOf(bytes, READ_UNIT_BYTES) * (consistent ? 1 : 0.5);
