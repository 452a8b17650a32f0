/**
 * Undoing a merge (API.md 13.1, issue #58): a pure function from the survivor as it is now, the merged
 * source as stored and the merge's record (merge.ts `MergeRecord`) to the two persons' next versions
 * and the uniqueness claims that follow them. No I/O: db/person/write/person-unmerge.ts writes the
 * result, with both UNMERGE entries, in one transaction.
 *
 * Items are known by `id`. Every item that moved goes back to the source as the survivor holds it now
 * (a later edit stays with it; one deleted since stays deleted) with the `primary` it had in the source;
 * the items dropped as equal come back as the source held them; the source's root
 * `local_reference_id` and SocialAddresses return from the record. The survivor keeps everything else;
 * the SocialAddresses values it took go back to null unless changed since. A set left without its
 * primary (the source's primary deleted since on the survivor, or the survivor's primary moved to a
 * moved item) falls back on its lowest id, as a PATCH deleting a primary does (API.md 5.2).
 */
import { UniquenessConflict, ValidationFailed } from './errors';
import type { MergedPerson, MergeRecord } from './merge';
import { isAlias, PRIMARY_REQUIRED } from './patch';
import {
  type Abbreviations,
  type Claim,
  claimsOf,
  computeFullname,
  displayNameOf,
  heldParts,
  type Item,
  PERSON_TYPE,
  type Person,
} from './person';
import { SET_NAMES, type SetName, SOCIAL_FIELDS, type SocialField, setPointer } from './schemas';

export interface UnmergeContext {
  requester: number;
  now: string;
  /** Id of the survivor's UNMERGE ChangeHistory entry. */
  changeId: number;
  /** Id of the source's UNMERGE ChangeHistory entry. */
  sourceChangeId: number;
  /** The abbreviations of the prefixes and suffixes the two persons' Names point at (for `fullname`). */
  abbreviations: Abbreviations;
}

export interface UnmergeResult {
  /** The survivor's next version: without the source's items. */
  survivor: Person;
  /** The source's next version: live again. */
  source: Person;
  /** JSON Pointers of each person's changed parts, for its ChangeHistory entry. */
  changed: { survivor: string[]; source: string[] };
  /** The survivor's claims that pass back to the source (its emails that return), each still naming the survivor. */
  repoint: Claim[];
  /** The source's claims no one holds now (its name, an email the survivor lost since): taken where free. */
  takeSource: Claim[];
  /** The survivor's claims it gains (its name, when it keeps no email) and those it gives up. */
  takeSurvivor: Claim[];
  releaseSurvivor: Claim[];
}

type AnyItem = Item & { primary?: unknown };

const claimKey = (claim: Claim) => `${claim.field}:${claim.value}`;

/**
 * A set given its primary back where it lost it: the lowest id that is not an alias, when the set must
 * have one (Names, Emails) or had one before.
 */
const settlePrimary = (set: SetName, items: AnyItem[], hadPrimary: boolean): AnyItem[] => {
  if (items.some((item) => item.primary === true)) return items;
  if (!PRIMARY_REQUIRED.has(set) && !hadPrimary) return items;
  const fallback = items.filter((item) => !isAlias(item)).sort((a, b) => a.id - b.id)[0];
  return items.map((item) => (item === fallback ? { ...item, primary: true } : item));
};

/**
 * The Names the source comes back with: when the survivor deleted every one that moved and none is
 * left that is not an alias, those it held at the merge come back as it held them (a person needs a
 * Name, API.md 5.2, and a PATCH of the source itself could not have deleted its last one).
 */
const withNames = (set: SetName, restored: AnyItem[], record: MergeRecord): AnyItem[] => {
  if (set !== 'Names' || restored.some((item) => !isAlias(item))) return restored;
  const back = new Set(restored.map((item) => item.id));
  const returning = (record.source_names as AnyItem[]).filter((item) => !back.has(item.id));
  return [...restored, ...structuredClone(returning)].sort((a, b) => a.id - b.id);
};

/** Each set's items back with the source, and what the survivor keeps. */
const splitSets = (survivor: Person, record: MergeRecord) => {
  const moved = new Map(record.moved.map((item) => [`${item.set}#${item.id}`, item]));
  const kept = {} as Record<SetName, AnyItem[]>;
  const back = {} as Record<SetName, AnyItem[]>;
  for (const set of SET_NAMES) {
    const items = survivor[set] as AnyItem[];
    const returning = items.flatMap((item) => {
      const entry = moved.get(`${set}#${item.id}`);
      if (!entry) return [];
      return [structuredClone('primary' in entry ? { ...item, primary: entry.primary } : item)];
    });
    const dropped = record.dropped.filter((entry) => entry.set === set).map((entry) => entry.item as AnyItem);
    const restored = [...returning, ...structuredClone(dropped)].sort((a, b) => a.id - b.id);
    const hadPrimary = [...record.moved.filter((entry) => entry.set === set), ...dropped].some(
      (entry) => entry.primary === true,
    );
    back[set] = settlePrimary(set, withNames(set, restored, record), hadPrimary);
    const remaining = items.filter((item) => !moved.has(`${set}#${item.id}`));
    kept[set] = settlePrimary(
      set,
      remaining,
      items.some((item) => item.primary === true),
    );
  }
  return { kept, back };
};

/** The survivor's SocialAddresses: a value it took from the source back to null, unless changed since. */
const survivorSocial = (survivor: Person, record: MergeRecord) => {
  const social = { ...survivor.SocialAddresses };
  for (const [field, value] of Object.entries(record.social) as [SocialField, string][])
    if (social[field] === value) social[field] = null;
  return social;
};

const nullSocial = () =>
  Object.fromEntries(Object.keys(SOCIAL_FIELDS).map((field) => [field, null])) as Person['SocialAddresses'];

/** The parts of `after` that differ from `before`. */
const changedParts = (before: Person, after: Person): string[] => [
  ...(before.local_reference_id !== after.local_reference_id ? ['/local_reference_id'] : []),
  ...SET_NAMES.filter((set) => JSON.stringify(before[set]) !== JSON.stringify(after[set])).map(setPointer),
  ...(JSON.stringify(before.SocialAddresses) !== JSON.stringify(after.SocialAddresses)
    ? ['/SocialAddresses']
    : []),
];

/**
 * Undoes the merge of `merged` into `survivor` that `record` describes. Throws `ValidationFailed` when
 * the two are not that merge's persons (the repository reads the record of this very pair, so it never
 * does in practice).
 */
export const unmergePersons = (
  survivor: Person,
  merged: MergedPerson,
  record: MergeRecord,
  context: UnmergeContext,
): UnmergeResult => {
  if (merged.superceded_by !== survivor.id)
    throw new ValidationFailed([
      { path: '/source', message: `Person ${merged.id} was not merged into this one` },
    ]);
  const { kept, back } = splitSets(survivor, record);
  const nextSurvivor: Person = {
    ...structuredClone(survivor),
    ...(kept as Pick<Person, SetName>),
    SocialAddresses: survivorSocial(survivor, record),
    CoreMetaData: {
      ...survivor.CoreMetaData,
      version: survivor.CoreMetaData.version + 1,
      date_modified: context.now,
      modified_by: context.requester,
      modified_audit_id: context.changeId,
    },
  };
  // Its display Name was one that went back: the fullname follows the one it shows now.
  if (displayNameOf(survivor)?.id !== displayNameOf(nextSurvivor)?.id)
    nextSurvivor.fullname = computeFullname(nextSurvivor, context.abbreviations);
  const source: Person = {
    id: merged.id,
    fullname: '',
    local_reference_id: record.local_reference_id,
    ...(back as Pick<Person, SetName>),
    SocialAddresses: { ...nullSocial(), ...record.source_social },
    CoreMetaData: {
      ...merged.CoreMetaData,
      version: merged.CoreMetaData.version + 1,
      date_modified: context.now,
      modified_by: context.requester,
      modified_audit_id: context.sourceChangeId,
    },
  };
  source.fullname = computeFullname(source, context.abbreviations);
  return {
    survivor: nextSurvivor,
    source,
    changed: {
      survivor: changedParts(survivor, nextSurvivor),
      source: [...heldParts(source), '/superceded_by'],
    },
    ...claimsMoving(survivor, nextSurvivor, source),
  };
};

/**
 * Where the claims go: the source's that the survivor held pass back (repointed), the rest the source
 * takes where free; the survivor takes what it newly needs (its name, when it keeps no email) and
 * releases what it no longer holds. A claim both would hold afterwards (an email-less source returning
 * to the name of the email-less survivor) refuses the unmerge, naming the survivor.
 */
const claimsMoving = (before: Person, survivor: Person, source: Person) => {
  const held = new Set(claimsOf(before).map(claimKey));
  const keeps = new Set(claimsOf(survivor).map(claimKey));
  const sourceClaims = claimsOf(source);
  const shared = sourceClaims.filter((claim) => keeps.has(claimKey(claim)));
  if (shared.length > 0)
    throw new UniquenessConflict(
      shared.some((claim) => claim.field === 'email') ? 'email' : 'name',
      shared.map((claim) => ({
        path: '/source',
        message: `Person ${source.id} would share its ${claim.field} with this person`,
        existing: { type: PERSON_TYPE, id: survivor.id },
      })),
    );
  const repoint = sourceClaims.filter((claim) => held.has(claimKey(claim)));
  const passing = new Set(repoint.map(claimKey));
  return {
    repoint,
    takeSource: sourceClaims.filter((claim) => !held.has(claimKey(claim))),
    takeSurvivor: claimsOf(survivor).filter((claim) => !held.has(claimKey(claim))),
    releaseSurvivor: claimsOf(before).filter(
      (claim) => !keeps.has(claimKey(claim)) && !passing.has(claimKey(claim)),
    ),
  };
};
