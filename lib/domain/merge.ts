/**
 * Merging a duplicate into its survivor (API.md 13, issue #39 step 1): a pure function from the two
 * stored Persons to the survivor's next version, what moved and what was dropped as equal, and the
 * uniqueness claims to re-point and release. No I/O: storage writes the result (with the source's
 * tombstone, both ChangeHistory entries and the postings) in one transaction, which is not built yet.
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
import {
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
}

/** One item of the source: the set it is in and its id. */
export interface MergedItem {
  set: SetName;
  id: number;
}

export interface MergeResult {
  /** The survivor's next version (its version one higher). */
  person: Person;
  /** The source's items now the survivor's. */
  moved: MergedItem[];
  /** The source's items the survivor already held an equal of. */
  dropped: MergedItem[];
  /**
   * The claims that now name the survivor instead of the source (the emails that moved): each
   * re-pointed on condition that it still names the source.
   */
  repoint: Claim[];
  /** The claims no one holds any more: the source's name claim; the survivor's, when it gained emails. */
  release: Claim[];
  /** JSON Pointers of the parts of the survivor that changed, for its ChangeHistory entry. */
  changed: string[];
}

type AnyItem = Item & Record<string, unknown>;

/** Text compared as names and addresses are: folded; absent and blank alike. */
const folded = (value: unknown) => (typeof value === 'string' ? fold(value) : (value ?? null));

/** A phone number ignoring spaces and punctuation (`+44 (20) 7946-0958` is `+442079460958`). */
const phoneKey = (value: unknown) => String(value ?? '').replace(/[\s\p{P}]/gu, '');

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
  PostalAddresses: (item) =>
    [
      'address1',
      'address2',
      'city',
      'state_territory_province',
      'postal_code',
      'country',
      'country_code',
    ].map((field) => folded(item[field])),
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
  const moved: MergedItem[] = [];
  const dropped: MergedItem[] = [];
  const changed: string[] = [];
  const errors: FieldError[] = [];
  for (const set of SET_NAMES) {
    const items = person[set] as AnyItem[];
    const held = new Set(items.map((item) => keyOf(set, item)));
    for (const item of source[set] as AnyItem[]) {
      const key = keyOf(set, item);
      if (held.has(key)) {
        dropped.push({ set, id: item.id });
        continue;
      }
      held.add(key);
      items.push(nonPrimary(structuredClone(item)));
      moved.push({ set, id: item.id });
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
    moved,
    dropped,
    repoint: sourceClaims.filter((claim) => after.has(claimKey(claim)) && !before.has(claimKey(claim))),
    release: [
      ...sourceClaims.filter((claim) => !after.has(claimKey(claim))),
      ...claimsOf(survivor).filter((claim) => !after.has(claimKey(claim))),
    ],
    changed,
  };
};
