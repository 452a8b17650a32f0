/**
 * A PATCH applied to a Person (API.md 5.2-5.5): a pure function from the stored Person and a request
 * body to the new Person, the uniqueness claims to take and release, the tombstones to echo and the
 * changed parts. A create is the same patch applied to an empty Person. (The merge of two persons is
 * another operation: lib/domain/merge.ts.)
 */

import { normaliseEmail } from './email';
import { type FieldError, UniquenessConflict, ValidationFailed } from './errors';
import {
  type Abbreviations,
  type Claim,
  claimsOf,
  computeFullname,
  emptyPerson,
  type Item,
  PERSON_PARTS,
  type Person,
  primaryOf,
} from './person';
import {
  elementsOf,
  type InputItem,
  ITEM_FIELDS,
  ITEM_FOREIGN_KEYS,
  ITEM_OWNER_KEYS,
  ITEM_TYPES,
  LIMITS,
  NAME_ALIAS_TYPES,
  NAME_REQUIRED,
  type PersonBody,
  SET_NAMES,
  type SetName,
  type SocialField,
  setPointer,
} from './schemas';
import { isBlank, isStructuredName, type NameParts } from './text';
import type { VocabularyKind } from './vocabulary';

export interface PatchContext {
  /** Who asks: a person id, or 0 for self-registration on create. */
  requester: number;
  /** ISO 8601 time of the write. */
  now: string;
  /** Hands out ids reserved beforehand, in order; `countNewIds` says how many a body needs. */
  nextId: () => number;
  /** Id of the ChangeHistory entry this write makes (`created_audit_id`/`modified_audit_id`). */
  changeId: number;
  /**
   * The vocabulary entries the write may point at (`referencedVocabulary` names them): a foreign key
   * not found here is refused, and the fullname takes its abbreviations from here.
   */
  abbreviations: Abbreviations;
}

/** A claim to take, with the JSON Pointer of the request element that asks for it. */
export interface ClaimToTake extends Claim {
  path: string;
}

/** A deleted element that carried a `local_reference_id`: echoed after the live items (API.md 5.3). */
export interface Tombstone {
  id: number;
  local_reference_id: string;
}

/** Per set, the tombstones of deleted elements. */
export type Tombstones = Partial<Record<SetName, Tombstone[]>>;

/** A vocabulary entry the write newly points at, checked to exist in the write's own transaction. */
export interface VocabularyReference {
  kind: VocabularyKind;
  id: number;
  /** The JSON Pointer of the foreign key in the request. */
  path: string;
}

export interface PatchResult {
  person: Person;
  take: ClaimToTake[];
  release: Claim[];
  tombstones: Tombstones;
  /** JSON Pointers of the parts that changed, for the ChangeHistory entry; empty when nothing did. */
  changed: string[];
  references: VocabularyReference[];
}

/** Sets in which a non-empty set always has exactly one primary item (API.md 5.2). */
export const PRIMARY_REQUIRED: ReadonlySet<SetName> = new Set(['Names', 'Emails']);
const FOREIGN_KEY_KINDS: Record<string, VocabularyKind> = {
  name_prefix_fk: 'NamePrefix',
  name_suffix_fk: 'NameSuffix',
};

type Element = InputItem & Record<string, unknown>;
type MutableItem = Record<string, unknown> & { id: number; primary?: boolean | number | null };

/** GRC's alias types (2, 3) mark a Name that is not, and cannot become, the primary one. */
export const isAlias = (item: { primary?: unknown }) => NAME_ALIAS_TYPES.includes(item.primary as 2 | 3);

/** Properties that are read only on every element of a set: ownership keys. */
const ignoredKeys = (set: SetName): ReadonlySet<string> => new Set(['person_fk', ...ITEM_OWNER_KEYS[set]]);

/** The properties of an element that carry meaning: no JSON-LD keywords, no read-only ones. */
const significantEntries = (set: SetName, element: Element, creating: boolean) => {
  const ignored = ignoredKeys(set);
  return Object.entries(element).filter(
    ([key]) => !key.startsWith('@') && !ignored.has(key) && !(creating && key === 'id'),
  );
};

const isExample = (set: SetName, element: Element, creating: boolean) =>
  significantEntries(set, element, creating).every(([, value]) => value == null);

const isAdd = (set: SetName, element: Element, creating: boolean) =>
  !isExample(set, element, creating) && (creating || element.id == null);

const elements = (body: PersonBody, set: SetName) => (elementsOf(body, set) ?? []) as Element[];

/** How many fresh ids a body needs for the sub-objects it adds (plus one for a new person). */
export const countNewIds = (body: PersonBody, creating: boolean): number =>
  (creating ? 1 : 0) +
  SET_NAMES.reduce(
    (count, set) => count + elements(body, set).filter((element) => isAdd(set, element, creating)).length,
    0,
  );

/**
 * The vocabulary entries a write needs to know: those the body's Names point at and, when the body
 * touches Names (so the fullname is computed again), those of the stored Names. Empty for most writes.
 */
export const referencedVocabulary = (
  stored: Person | null,
  body: PersonBody,
): Record<VocabularyKind, number[]> => {
  const sent = elements(body, 'Names');
  const names: Record<string, unknown>[] = [...sent, ...(sent.length > 0 ? (stored?.Names ?? []) : [])];
  const ids = (field: string) => [
    ...new Set(names.flatMap((name) => (typeof name[field] === 'number' ? [name[field] as number] : []))),
  ];
  return { NamePrefix: ids('name_prefix_fk'), NameSuffix: ids('name_suffix_fk') };
};

const itemFields = (set: SetName) => Object.keys(ITEM_FIELDS[set]);

const newItem = (set: SetName, element: Element, id: number): MutableItem => ({
  id,
  ...Object.fromEntries(itemFields(set).map((field) => [field, element[field] ?? null])),
  local_reference_id: element.local_reference_id ?? null,
});

/** Why an item cannot be stored as it is, or null when it can. */
const itemProblem = (set: SetName, item: MutableItem): string | null => {
  switch (set) {
    case 'Names':
      if (isBlank(item.first_name as string | null) !== isBlank(item.last_name as string | null))
        return 'A structured Name needs both first_name and last_name';
      return isStructuredName(item as NameParts) || !isBlank(item.freeform_name as string | null)
        ? null
        : 'A Name needs first_name and last_name, or freeform_name';
    case 'Emails':
      return isBlank(item.email as string | null) ? 'An Email needs an email address' : null;
    case 'PhoneNumbers':
      return isBlank(item.phone_number as string | null) ? 'A PhoneNumber needs a phone_number' : null;
    case 'PersonRoles':
      return isBlank(item.name as string | null) && item.role_fk == null
        ? 'A PersonRole needs a name or a role_fk'
        : null;
    case 'PostalAddresses':
      return itemFields(set).every((field) => field === 'primary' || isBlank(item[field] as string | null))
        ? 'A PostalAddress needs at least one address field'
        : null;
    default: {
      // The membership sets: a name, or the key of what the person is a member of.
      const [key] = ITEM_FOREIGN_KEYS[set];
      return isBlank(item.name as string | null) && item[key] == null
        ? `A ${ITEM_TYPES[set]} needs a name or a ${key}`
        : null;
    }
  }
};

/** Vocabulary foreign keys of an added item: refused when unknown, else to be checked in the write. */
const vocabularyReferences = (
  item: MutableItem,
  path: string,
  abbreviations: Abbreviations,
  errors: FieldError[],
): VocabularyReference[] =>
  Object.entries(FOREIGN_KEY_KINDS).flatMap(([field, kind]) => {
    const id = item[field];
    if (typeof id !== 'number') return [];
    if (!abbreviations[kind].has(id)) {
      errors.push({ path: `${path}/${field}`, message: `No ${kind} with id ${id}` });
      return [];
    }
    return [{ kind, id, path: `${path}/${field}` }];
  });

interface SetOutcome {
  items: MutableItem[];
  tombstones: Tombstone[];
  /** Request path of every item this request added or changed, by item id. */
  paths: Map<number, string>;
  references: VocabularyReference[];
}

const patchSet = (
  set: SetName,
  stored: MutableItem[],
  elements: Element[],
  creating: boolean,
  context: PatchContext,
  errors: FieldError[],
): SetOutcome => {
  const items = stored.map((item) => ({ ...item }));
  const tombstones: Tombstone[] = [];
  const paths = new Map<number, string>();
  const references: VocabularyReference[] = [];
  const foreignKeys = new Set<string>(ITEM_FOREIGN_KEYS[set]);
  let markedPrimary: number | undefined;
  let deletedPrimary = false;

  const markPrimary = (element: Element, id: number, path: string) => {
    if (element.primary !== true) return;
    if (markedPrimary !== undefined)
      errors.push({ path: `${path}/primary`, message: `Only one ${ITEM_TYPES[set]} can be primary` });
    markedPrimary = id;
  };

  elements.forEach((element, index) => {
    const path = `${setPointer(set)}/@set/${index}`;
    if (isExample(set, element, creating)) return;
    if (isAdd(set, element, creating)) {
      const item = newItem(set, element, context.nextId());
      items.push(item);
      paths.set(item.id, path);
      references.push(...vocabularyReferences(item, path, context.abbreviations, errors));
      markPrimary(element, item.id, path);
      return;
    }
    const id = element.id as number;
    const at = items.findIndex((item) => item.id === id);
    const isDelete = Object.keys(element).every(
      (key) => key.startsWith('@') || key === 'id' || key === 'local_reference_id',
    );
    if (isDelete) {
      const [deleted] = at >= 0 ? items.splice(at, 1) : [];
      if (deleted?.primary === true) deletedPrimary = true;
      if (element.local_reference_id != null)
        tombstones.push({ id, local_reference_id: element.local_reference_id });
      return;
    }
    const item = items[at];
    if (!item) {
      errors.push({ path: `${path}/id`, message: `This person has no ${ITEM_TYPES[set]} with id ${id}` });
      return;
    }
    for (const field of [...itemFields(set), 'local_reference_id']) {
      if (field in element && !foreignKeys.has(field)) item[field] = element[field] ?? null;
    }
    paths.set(id, path);
    markPrimary(element, id, path);
  });

  if (markedPrimary !== undefined) {
    for (const item of items) if (item.id !== markedPrimary && item.primary === true) item.primary = false;
  }
  // The item a set falls back on for its primary: the lowest id that is not an alias.
  const lowestId = items
    .filter((item) => !isAlias(item))
    .reduce<MutableItem | undefined>((low, item) => (!low || item.id < low.id ? item : low), undefined);
  const hasPrimary = () => items.some((item) => item.primary === true);
  if (PRIMARY_REQUIRED.has(set)) {
    for (const item of items) if (!isAlias(item)) item.primary = item.primary === true;
    if (lowestId && !hasPrimary()) lowestId.primary = true;
  } else if (deletedPrimary && lowestId && !hasPrimary()) {
    lowestId.primary = true;
  }

  for (const item of items) {
    const path = paths.get(item.id);
    const problem = path === undefined ? null : itemProblem(set, item);
    if (problem) errors.push({ path: path as string, message: problem });
  }
  if (items.length > LIMITS.sets[set])
    errors.push({
      path: `${setPointer(set)}/@set`,
      message: `A person holds at most ${LIMITS.sets[set]} ${set}`,
    });
  return { items, tombstones, paths, references };
};

const claimKey = (claim: Claim) => `${claim.field}:${claim.value}`;

/** Emails listed twice on one person: each one the request touched is reported (the first of a pair sent twice is kept). */
const emailDuplicates = (person: Person, paths: Map<number, string>): FieldError[] => {
  const byAddress = new Map<string, Item<'Emails'>[]>();
  for (const item of person.Emails) {
    const email = normaliseEmail(item.email ?? '');
    byAddress.set(email, [...(byAddress.get(email) ?? []), item]);
  }
  return [...byAddress].flatMap(([email, items]) => {
    if (items.length < 2) return [];
    const sent = items.filter((item) => paths.has(item.id));
    return (sent.length === items.length ? sent.slice(1) : sent).map((item) => ({
      path: `${paths.get(item.id)}/email`,
      message: `${email} is listed more than once on this person`,
    }));
  });
};

const claimPath = (claim: Claim, person: Person, paths: Map<number, string>): string => {
  if (claim.field === 'name') {
    const primary = primaryOf(person.Names);
    return (primary && paths.get(primary.id)) ?? '/Names';
  }
  const item = person.Emails.find(({ email }) => email && normaliseEmail(email) === claim.value);
  return `${(item && paths.get(item.id)) ?? '/Emails'}/email`;
};

/**
 * Applies a POST or PATCH body to a Person. `stored` null means create. Throws `ValidationFailed` for
 * a body that cannot be applied and `UniquenessConflict` for an email listed twice on the person;
 * clashes with other persons are for storage to find, through the claims it returns.
 */
export const applyPatch = (stored: Person | null, body: PersonBody, context: PatchContext): PatchResult => {
  const creating = stored === null;
  const before = stored ?? emptyPerson(context.nextId());
  const person: Person = structuredClone(before);
  const errors: FieldError[] = [];
  const tombstones: Tombstones = {};
  const paths = new Map<number, string>();

  if (body.local_reference_id !== undefined) person.local_reference_id = body.local_reference_id;
  for (const [field, value] of Object.entries(body.SocialAddresses ?? {})) {
    if (!field.startsWith('@') && value !== undefined) person.SocialAddresses[field as SocialField] = value;
  }
  const references: VocabularyReference[] = [];
  for (const set of SET_NAMES) {
    const sent = elementsOf(body, set);
    if (!sent) continue;
    const outcome = patchSet(
      set,
      person[set] as unknown as MutableItem[],
      sent as Element[],
      creating,
      context,
      errors,
    );
    (person as Record<SetName, unknown>)[set] = outcome.items as unknown as Item[];
    if (outcome.tombstones.length > 0) tombstones[set] = outcome.tombstones;
    for (const [id, path] of outcome.paths) paths.set(id, path);
    references.push(...outcome.references);
  }
  if (person.Names.length === 0)
    errors.push({
      path: '/Names',
      message: creating ? NAME_REQUIRED : 'The last Name of a person cannot be deleted',
    });
  else if (!primaryOf(person.Names))
    errors.push({
      path: '/Names',
      message: 'A person needs a Name that is not an alias (primary 2 or 3) to be its primary name',
    });
  if (errors.length > 0) throw new ValidationFailed(errors);

  const duplicates = emailDuplicates(person, paths);
  if (duplicates.length > 0) throw new UniquenessConflict('email', duplicates);

  if (creating || elementsOf(body, 'Names')) person.fullname = computeFullname(person, context.abbreviations);
  const changed = PERSON_PARTS.filter(
    ([part]) => JSON.stringify(before[part]) !== JSON.stringify(person[part]),
  ).map(([, pointer]) => pointer);

  if (creating) {
    person.CoreMetaData = {
      date_created: context.now,
      date_modified: context.now,
      created_by: context.requester === 0 ? person.id : context.requester,
      modified_by: null,
      version: 1,
      created_audit_id: context.changeId,
      modified_audit_id: null,
    };
  } else if (changed.length > 0) {
    person.CoreMetaData = {
      ...person.CoreMetaData,
      date_modified: context.now,
      modified_by: context.requester,
      version: person.CoreMetaData.version + 1,
      modified_audit_id: context.changeId,
    };
  }

  const beforeClaims = new Set(creating ? [] : claimsOf(before).map(claimKey));
  const afterClaims = claimsOf(person);
  const afterKeys = new Set(afterClaims.map(claimKey));
  return {
    person,
    take: afterClaims
      .filter((claim) => !beforeClaims.has(claimKey(claim)))
      .map((claim) => ({ ...claim, path: claimPath(claim, person, paths) })),
    release: creating ? [] : claimsOf(before).filter((claim) => !afterKeys.has(claimKey(claim))),
    tombstones,
    changed,
    // One check per entry: a transaction may not touch one item twice.
    references: [
      ...new Map(references.map((reference) => [`${reference.kind}#${reference.id}`, reference])).values(),
    ],
  };
};
