/**
 * Conditional requests on every object with a version (API.md 2.1, RFC 9110 13.1): whether If-Match
 * and If-None-Match hold for the version an object is at, and, when they do not, why, in words a
 * client can act on. The HTTP edge reads the headers into these terms (lib/http/preconditions.ts);
 * each repository checks them against the version its write lands on, so Person and the vocabularies
 * share one rule.
 */

/** One element of an If-Match or If-None-Match list, as it was sent (`text`). */
export type EntityTag =
  /** `"3"`: an ETag of this service, naming version 3. */
  | { form: 'strong'; version: number; text: string }
  /** `W/"3"`: names version 3 for If-None-Match (weak comparison), never for If-Match. */
  | { form: 'weak'; version: number; text: string }
  /** An entity tag this service never gives (`"abc"`, `"03"`, `W/"x"`): it names no version. */
  | { form: 'foreign'; text: string }
  /** Not an entity tag at all (`3`, `abc`, `w/"3"`). */
  | { form: 'malformed'; text: string };

/** A conditional header: any current object (`*`), or the tags it lists. */
export type TagList = '*' | readonly EntityTag[];

/** The conditions a write was sent with; an absent header is no condition. */
export interface Preconditions {
  ifMatch?: TagList;
  ifNoneMatch?: TagList;
}

/** Why a write's conditions do not hold for the object's current version. */
export type PreconditionRefusal =
  /** If-Match named no tag that matches (strongly) the current version: each tag as sent. */
  | { kind: 'no-match'; tags: readonly EntityTag[] }
  /** If-None-Match `*`: only if no object exists, and this one does. */
  | { kind: 'exists' }
  /** If-None-Match named the current version (weak comparison). */
  | { kind: 'names-current'; tag: EntityTag }
  /** If-None-Match sent something that is not an entity tag: it cannot be shown to hold. */
  | { kind: 'malformed'; tags: readonly EntityTag[] };

/** The strong ETag of a version (API.md 3): `"3"`. */
export const strongTag = (version: number) => `"${version}"`;

/** Strong comparison (RFC 9110 8.8.3.2), If-Match's: a strong tag of this very version. */
const strongly = (tag: EntityTag, version: number) => tag.form === 'strong' && tag.version === version;

/** Weak comparison, If-None-Match's: `"3"` and `W/"3"` both name version 3. */
const weakly = (tag: EntityTag, version: number) =>
  (tag.form === 'strong' || tag.form === 'weak') && tag.version === version;

/**
 * Whether If-None-Match names this version (`*` names any): on a GET that is a 304. Tags that are
 * not entity tags name nothing, so a GET with one answers the object.
 */
export const namesVersion = (list: TagList | undefined, version: number): boolean =>
  list !== undefined && (list === '*' || list.some((tag) => weakly(tag, version)));

/**
 * Why a write with these conditions may not land on an object at `version`, or undefined when it may.
 * If-Match is evaluated first, then If-None-Match, as RFC 9110 13.2.2 orders them.
 */
export const refusalOf = (
  { ifMatch, ifNoneMatch }: Preconditions,
  version: number,
): PreconditionRefusal | undefined => {
  if (ifMatch !== undefined && ifMatch !== '*' && !ifMatch.some((tag) => strongly(tag, version)))
    return { kind: 'no-match', tags: ifMatch };
  if (ifNoneMatch === undefined) return undefined;
  if (ifNoneMatch === '*') return { kind: 'exists' };
  const current = ifNoneMatch.find((tag) => weakly(tag, version));
  if (current) return { kind: 'names-current', tag: current };
  const malformed = ifNoneMatch.filter((tag) => tag.form === 'malformed');
  return malformed.length > 0 ? { kind: 'malformed', tags: malformed } : undefined;
};

/** A tag as the client sent it, cut short: a header may be kilobytes long. */
const shown = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);

const STRONG_ONLY = 'which never matches a write or a read: If-Match compares strongly (RFC 9110 13.1.1)';
const TAG_FORM = 'an ETag of this service is the version in double quotes';

/** What one If-Match tag that does not match says, in short (several tags) or in full (one). */
const mismatch = (tag: EntityTag, object: string, version: number, full: boolean): string => {
  const text = shown(tag.text);
  switch (tag.form) {
    case 'strong':
      return full
        ? `The ${object} has changed since ETag ${text}: it is at version ${version} now, not ${tag.version}`
        : `${text} names version ${tag.version}`;
    case 'weak':
      if (!full) return `${text} is a weak tag, ${STRONG_ONLY}`;
      return tag.version === version
        ? `If-Match ${text} is a weak tag, ${STRONG_ONLY}: send the strong tag ${strongTag(version)}`
        : `If-Match ${text} is a weak tag, ${STRONG_ONLY}; it names version ${tag.version}, and the ` +
            `${object} is at version ${version}`;
    case 'foreign':
      return full
        ? `If-Match ${text} is no ETag this service gives: ${TAG_FORM}, such as ${strongTag(version)}`
        : `${text} is no ETag this service gives`;
    case 'malformed':
      return full
        ? `If-Match ${text} is not an entity tag: ${TAG_FORM}, such as ${strongTag(version)}`
        : `${text} is not an entity tag`;
  }
};

/** The `detail` of a refusal: why, and what the client may send instead. */
export const refusalMessage = (refusal: PreconditionRefusal, object: string, version: number): string => {
  switch (refusal.kind) {
    case 'no-match': {
      const [only, ...others] = refusal.tags;
      if (only && others.length === 0) return mismatch(only, object, version, true);
      const reasons = refusal.tags.map((tag) => mismatch(tag, object, version, false)).join('; ');
      return (
        `No tag of If-Match names version ${version}, the version the ${object} is at ` +
        `(ETag ${strongTag(version)}): ${reasons}`
      );
    }
    case 'exists':
      return `If-None-Match * asks for the change only where no ${object} exists, and this one exists, at version ${version}`;
    case 'names-current':
      return (
        `If-None-Match ${shown(refusal.tag.text)} names version ${version}, the version the ${object} is at: ` +
        'the change applies only at another version'
      );
    case 'malformed':
      return (
        `If-None-Match ${refusal.tags.map((tag) => shown(tag.text)).join(', ')} ` +
        `${refusal.tags.length === 1 ? 'is not an entity tag' : 'are not entity tags'}, so the condition ` +
        `cannot be shown to hold: ${TAG_FORM}, such as ${strongTag(version)}`
      );
  }
};
