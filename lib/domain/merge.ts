/**
 * Merging a duplicate into its survivor (API.md 13, issue #39 step 1): a pure function from the two
 * stored Persons to the survivor's next version, what moved and what was dropped as equal, and the
 * uniqueness claims to re-point and release, and the source as it is stored afterwards (`MergedPerson`).
 * No I/O: db/person/write/person-merge.ts writes the result, with both ChangeHistory entries and the
 * postings, in one transaction.
 *
 * What moves: every Email, PhoneNumber, PostalAddress, PersonRole and membership item of the source
 * joins the survivor as a non-primary item, keeping its `id` and `local_reference_id`, unless the
 * survivor already holds an equal one (`sameItem`), which drops it. The source's Names join as
 * non-primary Names unless the survivor has one with the same folded parts. The survivor's null
 * SocialAddresses take the source's values. Its own values, primaries, root `local_reference_id`,
 * `created_by` and fullname stay.
 */
import { normaliseEmail } from './email';
import { type FieldError, ValidationFailed } from './errors';
import { type Claim, claimsOf, type Item, type Person } from './person';
import type { Principal } from './principal';
import {
  ITEM_FIELDS,
  LIMITS,
  NAME_ALIAS_TYPES,
  SET_NAMES,
  type SetName,
  SOCIAL_FIELDS,
  type SocialField,
  setPointer,
} from './schemas';
import { fold } from './text';

export interface MergeContext {
  requester: number;
  now: string;
  /** Id of the survivor's MERGE ChangeHistory entry. */
  changeId: number;
  /** Id of the source's MERGE ChangeHistory entry. */
  sourceChangeId: number;
}

/**
 * A person merged into another, as stored afterwards (API.md 13): its id, its survivor and its
 * metadata (the version one higher), and no personal data. Its GET answers 301 to the survivor.
 */
export interface MergedPerson {
  id: number;
  superceded_by: number;
  CoreMetaData: Person['CoreMetaData'];
}

/** Whether a stored Person item, or a ChangeHistory snapshot, is a merged person's. */
export const isMergedPerson = (value: unknown): value is MergedPerson =>
  typeof value === 'object' && value !== null && typeof (value as MergedPerson).superceded_by === 'number';

/**
 * What a merged (or erased) person implies for the items derived from a person (postings, reference
 * item, claims): as much as a person holding nothing.
 */
export const holdingNothing = (person: {
  id: number;
  CoreMetaData: Pick<Person['CoreMetaData'], 'date_created' | 'date_modified' | 'version'>;
}): Person => ({
  id: person.id,
  fullname: '',
  CoreMetaData: { created_by: 0, modified_by: null, ...person.CoreMetaData },
  local_reference_id: null,
  ...(Object.fromEntries(SET_NAMES.map((set) => [set, []])) as unknown as Pick<Person, SetName>),
  SocialAddresses: {} as Person['SocialAddresses'],
});

/** One item of the source: the set it is in and its id. */
export interface MergedItem {
  set: SetName;
  id: number;
}

/** An item of the source that moved: the `primary` it had in the source, which the survivor's copy lost. */
export interface MovedItem extends MergedItem {
  primary?: unknown;
}

/** An item of the source dropped as equal to one of the survivor's: the whole item as the source held it. */
export interface DroppedItem {
  set: SetName;
  item: Item;
}

/**
 * What a merge did, as its undo needs it (API.md 13.1, issue #58): which of the source's items moved
 * (and the primary each had there), the ones dropped as equal (whole), the SocialAddresses values the
 * survivor took and the source's own, the source's root `local_reference_id`, and the principal whose
 * binding passed (planMerge adds it). With the source's merged item (its id, metadata) and the survivor
 * as it is now, an unmerge (unmerge.ts) needs nothing else. A merge made before this record was kept
 * is undone from its MERGE entries' previous objects (`mergeRecordOf`: the merge those two persons make
 * again, a pure function of them); its binding, which no entry shows, stays with the survivor.
 */
export interface MergeRecord {
  moved: MovedItem[];
  dropped: DroppedItem[];
  /** The SocialAddresses values the survivor took (its null fields). */
  social: Partial<Record<SocialField, string>>;
  /** The source's SocialAddresses as they were (records kept before #58 step 2 lack them: merge-record.ts). */
  source_social: Record<SocialField, string | null>;
  /**
   * The source's Names as they were: what an unmerge gives back when the survivor deleted every one
   * that moved (a person needs a Name, API.md 5.2). Kept since #58 step 2, as `source_social`.
   */
  source_names: Item[];
  local_reference_id: string | null;
  /** The principal bound to the source (API.md 9.1), whose binding passed to the survivor. */
  principal?: Principal;
}

export interface MergeResult {
  /** The survivor's next version (its version one higher). */
  person: Person;
  /** The source's next version: merged into the survivor. */
  source: MergedPerson;
  /** The source's items now the survivor's. */
  moved: MovedItem[];
  /** The source's items the survivor already held an equal of. */
  dropped: MergedItem[];
  /**
   * The claims that now name the survivor instead of the source (the emails that moved): each
   * re-pointed on condition that it still names the source.
   */
  repoint: Claim[];
  /** The source's claims no one holds any more: its name claim. */
  releaseSource: Claim[];
  /** The survivor's claims no one holds any more: its name claim, when it gained emails. */
  releaseSurvivor: Claim[];
  /** JSON Pointers of the parts of the survivor that changed, for its ChangeHistory entry. */
  changed: string[];
  /** What the merge did, as its undo needs it. */
  record: MergeRecord;
}

type AnyItem = Item & Record<string, unknown>;

/** Text compared as names and addresses are: folded; absent and blank alike. */
const folded = (value: unknown) => (typeof value === 'string' ? fold(value) : (value ?? null));

/** A phone number ignoring spaces and punctuation (`+44 (20) 7946-0958` is `+442079460958`). */
const phoneKey = (value: unknown) => String(value ?? '').replace(/[\s\p{P}]/gu, '');

/** An address's fields, its `primary` aside: the schema's, so a field added there is compared too. */
const ADDRESS_FIELDS = Object.keys(ITEM_FIELDS.PostalAddresses).filter((field) => field !== 'primary');

/** The fields that make an item the same as another, by set (API.md 13). */
const KEYS: Record<SetName, (item: AnyItem) => unknown[]> = {
  Names: (item) => [
    folded(item.first_name),
    folded(item.middle_initial),
    folded(item.last_name),
    folded(item.freeform_name),
    item.name_prefix_fk ?? null,
    item.name_suffix_fk ?? null,
  ],
  Emails: (item) => [normaliseEmail(String(item.email ?? ''))],
  PhoneNumbers: (item) => [phoneKey(item.phone_number)],
  PostalAddresses: (item) => ADDRESS_FIELDS.map((field) => folded(item[field])),
  // A role or membership is its vocabulary or directory key, or its name where it has none.
  PersonRoles: (item) => [item.role_fk ?? folded(item.name)],
  PersonOrganizations: (item) => [item.organization_fk ?? folded(item.name)],
  PersonGroups: (item) => [item.group_fk ?? folded(item.name)],
  PersonInitiatives: (item) => [folded(item.initiative) ?? folded(item.name)],
  PersonTeams: (item) => [item.team_fk ?? folded(item.name)],
};

const keyOf = (set: SetName, item: AnyItem) => JSON.stringify(KEYS[set](item));

/** A moved item is never the primary one; an alias Name (GRC's types 2 and 3) stays an alias. */
const nonPrimary = (item: AnyItem): AnyItem =>
  !('primary' in item) || (NAME_ALIAS_TYPES as readonly unknown[]).includes(item.primary)
    ? item
    : { ...item, primary: false };

const claimKey = (claim: Claim) => `${claim.field}:${claim.value}`;

/**
 * Merges `source` into `survivor`. Throws `ValidationFailed` (400) when they are the same person, or
 * when a set would hold more than API.md 5.2 allows; nothing is then to be written.
 */
export const mergePersons = (survivor: Person, source: Person, context: MergeContext): MergeResult => {
  if (survivor.id === source.id)
    throw new ValidationFailed([{ path: '/source', message: 'A person cannot be merged into itself' }]);
  const person: Person = structuredClone(survivor);
  const moved: MovedItem[] = [];
  const dropped: MergedItem[] = [];
  const record: MergeRecord = {
    moved,
    dropped: [],
    social: {},
    source_social: { ...source.SocialAddresses },
    source_names: structuredClone(source.Names),
    local_reference_id: source.local_reference_id ?? null,
  };
  const changed: string[] = [];
  const errors: FieldError[] = [];
  for (const set of SET_NAMES) {
    const items = person[set] as AnyItem[];
    const held = new Set(items.map((item) => keyOf(set, item)));
    for (const item of source[set] as AnyItem[]) {
      const key = keyOf(set, item);
      if (held.has(key)) {
        dropped.push({ set, id: item.id });
        record.dropped.push({ set, item: structuredClone(item) });
        continue;
      }
      held.add(key);
      items.push(nonPrimary(structuredClone(item)));
      moved.push({ set, id: item.id, ...('primary' in item ? { primary: item.primary } : {}) });
    }
    if (items.length !== survivor[set].length) changed.push(setPointer(set));
    if (items.length > LIMITS.sets[set])
      errors.push({
        path: `${setPointer(set)}/@set`,
        message: `Merged, the person would hold ${items.length} ${set}, more than ${LIMITS.sets[set]}`,
      });
  }
  if (errors.length > 0) throw new ValidationFailed(errors);

  for (const field of Object.keys(SOCIAL_FIELDS) as SocialField[])
    if (person.SocialAddresses[field] == null && source.SocialAddresses[field] != null) {
      person.SocialAddresses[field] = source.SocialAddresses[field];
      record.social[field] = source.SocialAddresses[field];
      if (!changed.includes('/SocialAddresses')) changed.push('/SocialAddresses');
    }

  person.CoreMetaData = {
    ...person.CoreMetaData,
    version: survivor.CoreMetaData.version + 1,
    date_modified: context.now,
    modified_by: context.requester,
    modified_audit_id: context.changeId,
  };

  const after = new Set(claimsOf(person).map(claimKey));
  const before = new Set(claimsOf(survivor).map(claimKey));
  const sourceClaims = claimsOf(source);
  return {
    person,
    source: {
      id: source.id,
      superceded_by: survivor.id,
      CoreMetaData: {
        ...source.CoreMetaData,
        version: source.CoreMetaData.version + 1,
        date_modified: context.now,
        modified_by: context.requester,
        modified_audit_id: context.sourceChangeId,
      },
    },
    moved,
    dropped,
    repoint: sourceClaims.filter((claim) => after.has(claimKey(claim)) && !before.has(claimKey(claim))),
    releaseSource: sourceClaims.filter((claim) => !after.has(claimKey(claim))),
    releaseSurvivor: claimsOf(survivor).filter((claim) => !after.has(claimKey(claim))),
    changed,
    record,
  };
};

/**
 * The record of a merge made before records were kept, from its MERGE entries' previous objects (the
 * two persons as the merge read them): the same merge made again, which is a pure function of them.
 */
export const recordOfEarlierMerge = (survivorBefore: Person, sourceBefore: Person): MergeRecord =>
  mergePersons(survivorBefore, sourceBefore, { requester: 0, now: '', changeId: 0, sourceChangeId: 0 })
    .record;
