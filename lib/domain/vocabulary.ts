/**
 * The NamePrefix and NameSuffix vocabularies (API.md 11.4): stored entries that `name_prefix_fk` and
 * `name_suffix_fk` point at, with the pure rules of their writes. The seed (infra/handlers/seed/vocabulary-seed.ts) keeps the ids GRC's
 * documents show, so GRC clients' stored foreign keys keep their meaning; the entries this project adds
 * get ids from 501 up, clear of GRC's own tables (its suffix table has 52 entries).
 */
import * as z from 'zod';
import { ValidationFailed } from './errors';
import type { Claim } from './person';
import { closedObject, inputCoreMetaData, localReferenceId, readOnly, text } from './schemas';
import { fold, isBlank } from './text';

export type VocabularyKind = 'NamePrefix' | 'NameSuffix';
export const VOCABULARY_KINDS = ['NamePrefix', 'NameSuffix'] as const satisfies readonly VocabularyKind[];

/** Per kind: the wire name of the entry's text, and the older `/Prefix`, `/Suffix` view of the same entries. */
export const VOCABULARIES = {
  NamePrefix: { term: 'prefix', view: 'Prefix' },
  NameSuffix: { term: 'suffix', view: 'Suffix' },
} as const satisfies Record<VocabularyKind, { term: string; view: string }>;

export type VocabularyView = (typeof VOCABULARIES)[VocabularyKind]['view'];

export interface EntryMetaData {
  date_created: string;
  date_modified: string;
  /** Null for the seeded entries, which no person asked for. */
  created_by: number | null;
  modified_by: number | null;
  version: number;
  created_audit_id: number | null;
  modified_audit_id: number | null;
}

export interface VocabularyEntry {
  id: number;
  /** The `prefix` or `suffix`: "Doctor". */
  term: string;
  /** What a fullname shows: "Dr.". */
  abbreviation: string;
  local_reference_id: string | null;
  CoreMetaData: EntryMetaData;
}

/** An entry as the seed declares it (infra/handlers/seed/vocabulary-seed.ts): its id and texts. */
export interface SeedEntry {
  id: number;
  term: string;
  abbreviation: string;
}

const filled = text.refine((value) => !isBlank(value), { error: 'Must not be blank' });

/** POST and PATCH bodies of a vocabulary: the entry as GET shows it; POST needs both texts. */
export const vocabularyBody = (kind: VocabularyKind, creating: boolean) => {
  const required = creating ? filled : filled.optional();
  return closedObject({
    '@type': z.literal(kind).optional(),
    id: readOnly,
    [VOCABULARIES[kind].term]: required,
    abbreviation: required,
    local_reference_id: localReferenceId.optional(),
    CoreMetaData: inputCoreMetaData.optional(),
  }) as unknown as z.ZodType<VocabularyBody>;
};

export interface VocabularyBody {
  prefix?: string;
  suffix?: string;
  abbreviation?: string;
  local_reference_id?: string | null;
}

export interface EntryWriteContext {
  requester: number | null;
  now: string;
  /** Id of the ChangeHistory entry this write makes. */
  changeId: number;
}

export interface EntryPatchResult {
  entry: VocabularyEntry;
  changed: string[];
  take: (Claim & { path: string })[];
  release: Claim[];
}

/** Abbreviations are unique within a vocabulary, compared folded (case, accents, spacing). */
export const abbreviationClaim = (kind: VocabularyKind, abbreviation: string): Claim => ({
  field: kind,
  value: fold(abbreviation),
});

/** Applies a POST (stored null, with the new id) or PATCH body to an entry. */
export const applyEntryPatch = (
  kind: VocabularyKind,
  stored: VocabularyEntry | null,
  id: number,
  body: VocabularyBody,
  context: EntryWriteContext,
): EntryPatchResult => {
  const term = body[VOCABULARIES[kind].term];
  const next: VocabularyEntry = {
    id,
    term: term?.trim() ?? stored?.term ?? '',
    abbreviation: body.abbreviation?.trim() ?? stored?.abbreviation ?? '',
    local_reference_id:
      body.local_reference_id !== undefined ? body.local_reference_id : (stored?.local_reference_id ?? null),
    CoreMetaData: stored?.CoreMetaData ?? {
      date_created: context.now,
      date_modified: context.now,
      created_by: context.requester,
      modified_by: null,
      version: 1,
      created_audit_id: context.changeId,
      modified_audit_id: null,
    },
  };
  if (!next.term || !next.abbreviation)
    throw new ValidationFailed([
      { path: '', message: `A ${kind} needs ${VOCABULARIES[kind].term} and abbreviation` },
    ]);
  const changed = (
    [
      ['term', `/${VOCABULARIES[kind].term}`],
      ['abbreviation', '/abbreviation'],
      ['local_reference_id', '/local_reference_id'],
    ] as const
  ).flatMap(([field, pointer]) => (stored === null || stored[field] !== next[field] ? [pointer] : []));
  if (stored && changed.length > 0) {
    next.CoreMetaData = {
      ...stored.CoreMetaData,
      date_modified: context.now,
      modified_by: context.requester,
      version: stored.CoreMetaData.version + 1,
      modified_audit_id: context.changeId,
    };
  }
  const before = stored && abbreviationClaim(kind, stored.abbreviation);
  const after = abbreviationClaim(kind, next.abbreviation);
  const moved = before?.value !== after.value;
  return {
    entry: next,
    changed: stored && changed.length === 0 ? [] : changed,
    take: moved ? [{ ...after, path: '/abbreviation' }] : [],
    release: moved && before ? [before] : [],
  };
};

/** A seeded entry as stored: created by nobody, at the time of the seed. */
export const seededEntry = (kind: VocabularyKind, entry: SeedEntry, now: string, changeId: number) =>
  applyEntryPatch(
    kind,
    null,
    entry.id,
    { [VOCABULARIES[kind].term]: entry.term, abbreviation: entry.abbreviation },
    { requester: null, now, changeId },
  );

export interface EntryFilters {
  /** Part of the `prefix`/`suffix` (folded). */
  term?: string | undefined;
  abbreviation?: string | undefined;
  /** Part of either. */
  search?: string | undefined;
}

/** GRC's vocabulary list: substring filters, case- and accent-insensitive, combined with AND; by id. */
export const selectEntries = (
  entries: readonly VocabularyEntry[],
  { term, abbreviation, search }: EntryFilters,
  descending: boolean,
): VocabularyEntry[] =>
  entries
    .filter((entry) => {
      const folded = { term: fold(entry.term), abbreviation: fold(entry.abbreviation) };
      return (
        (!term || folded.term.includes(term)) &&
        (!abbreviation || folded.abbreviation.includes(abbreviation)) &&
        (!search || folded.term.includes(search) || folded.abbreviation.includes(search))
      );
    })
    .sort((a, b) => (descending ? b.id - a.id : a.id - b.id));
