/**
 * The conditional request headers (RFC 9110 13.1), read at the HTTP edge into the tags they list; which
 * of them hold for an object is the domain's rule (lib/domain/preconditions.ts). An ETag of this service
 * is `"<version>"` (API.md 3): a well-formed tag of another shape names no version, and anything else
 * is kept as malformed, so the refusal can say so.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PreconditionFailed } from '../domain/errors';
import {
  type EntityTag,
  namesVersion,
  type Preconditions,
  refusalOf,
  type TagList,
} from '../domain/preconditions';
import { headerOf } from './request';

/** `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, at a position (sticky). */
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7E\x80-\uFFFF]*)"/y;
/** What may follow a tag in a list: spaces, then a comma or the end. */
const LIST_REST = /[ \t]*(,|$)/y;
/** The versions this service gives: from 1, no leading zero, within a safe integer. */
const VERSION = /^[1-9]\d{0,14}$/;

const tagOf = (text: string, weak: boolean, opaque: string): EntityTag =>
  VERSION.test(opaque)
    ? { form: weak ? 'weak' : 'strong', version: Number(opaque), text }
    : { form: 'foreign', text };

/** The elements of a list, each a tag or, up to the next comma, a malformed element. */
const elementsOf = (header: string): EntityTag[] => {
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < header.length) {
    // Empty elements and the whitespace around elements count for nothing (RFC 9110 5.6.1).
    if (/[ \t,]/.test(header.charAt(at))) {
      at += 1;
      continue;
    }
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(header);
    LIST_REST.lastIndex = ENTITY_TAG.lastIndex;
    if (tag && LIST_REST.test(header)) {
      tags.push(tagOf(tag[0], tag[1] !== undefined, tag[2] as string));
      at = ENTITY_TAG.lastIndex;
      continue;
    }
    const comma = header.indexOf(',', at);
    const end = comma === -1 ? header.length : comma;
    tags.push({ form: 'malformed', text: header.slice(at, end).trim() });
    at = end;
  }
  return tags;
};

/**
 * A conditional header's value: `*`, or its list of tags. Absent, empty or only commas: no condition.
 * `*` inside a list is not a tag, so it is malformed there.
 */
export const tagListOf = (header: string | undefined): TagList | undefined => {
  if (header === undefined) return undefined;
  if (header.trim() === '*') return '*';
  const tags = elementsOf(header);
  return tags.length > 0 ? tags : undefined;
};

export const ifNoneMatchOf = (event: APIGatewayProxyEventV2) => tagListOf(headerOf(event, 'if-none-match'));

/** The conditions of a write: If-Match and If-None-Match, those sent. */
export const preconditionsOf = (event: APIGatewayProxyEventV2): Preconditions => {
  const ifMatch = tagListOf(headerOf(event, 'if-match'));
  const ifNoneMatch = ifNoneMatchOf(event);
  return {
    ...(ifMatch === undefined ? {} : { ifMatch }),
    ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }),
  };
};

/**
 * The conditions of a read (GET, and HEAD with it) of an object at `version` (named `object` in a
 * refusal), in RFC 9110 13.2.2's order: If-Match first, by the write's rule (strong comparison, `*`
 * any version; a weak or malformed tag never matches), a 412 that says why when it does not hold;
 * then If-None-Match, true when it names the version: the answer is 304. Called only once the object
 * is found: a 404 or a merged person's 301 ignores the conditions (RFC 9110 13.2.1).
 */
export const notModifiedRead = (event: APIGatewayProxyEventV2, version: number, object: string): boolean => {
  const { ifMatch, ifNoneMatch } = preconditionsOf(event);
  const refusal = ifMatch === undefined ? undefined : refusalOf({ ifMatch }, version);
  if (refusal) throw new PreconditionFailed(version, refusal, object);
  return namesVersion(ifNoneMatch, version);
};
