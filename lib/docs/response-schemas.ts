/**
 * zod schemas of the responses that lib/domain builds without one (stub list, PaginatedList envelope,
 * AuditEntry, Prefix, Suffix, problem+json), so the OpenAPI document describes them from zod like the
 * Person. Each is checked against its builder's return type at compile time: a field added to or
 * dropped from a builder fails `tsc` here until the schema follows.
 */
import * as z from 'zod';
import type { AuditEntry } from '../domain/audit';
import { LIST_DEFAULTS, PAGE_DEFAULTS, type paginatedList, type Stub } from '../domain/listing';
import type { Prefix, Suffix } from '../domain/reference-data';
import type { auditEntryOut, referenceOut } from '../domain/representation';
import { PersonOut } from '../domain/schemas';
import { PROBLEM_TYPES, type ProblemBody, type ProblemType } from '../http/problems';

const context = PersonOut.shape['@context'];
const personId = PersonOut.shape.id;
const count = z.int().nonnegative();

export const StubOut = z.object({
  '@context': context,
  '@type': z.literal('Stub'),
  '@id': z.url(),
  id: personId,
  property_name: z.literal('fullname'),
  property_value: z.string(),
  thing_type: z.literal('Person'),
});

/** `GET /Person` with `limit`/`offset` (API.md 4). */
export const StubListOut = z.object({
  '@context': context,
  Pagination: z.object({
    '@context': context,
    '@type': z.literal('Pagination'),
    count,
    limit: z.int().min(0).max(LIST_DEFAULTS.maxLimit),
    offset: count,
  }),
  '@set': z.array(StubOut).max(LIST_DEFAULTS.maxLimit),
});

/** The PaginatedList envelope (API.md 6) around items of one schema. */
export const paginatedListOf = <I extends z.ZodType>(itemType: string, item: I) =>
  z.object({
    '@context': context,
    '@id': z.url(),
    '@type': z.literal('PaginatedList'),
    itemType: z.literal(itemType),
    page: z.int().min(1),
    perPage: z.int().min(1).max(PAGE_DEFAULTS.maxPerPage),
    total: count,
    previousPage: z.url().nullable(),
    nextPage: z.url().nullable(),
    items: z.array(item).max(PAGE_DEFAULTS.maxPerPage),
  });

export const AuditEntryOut = z.object({
  '@type': z.literal('AuditEntry'),
  '@id': z.url(),
  id: personId,
  person_id: personId,
  action: z.enum(['create', 'update', 'enrich'] as const satisfies readonly AuditEntry['action'][]),
  requester: personId.nullable().describe('The person who asked; null for the service (enrichment)'),
  at: z.iso.datetime(),
  changed: z.array(z.string()).describe('JSON Pointers of the top-level parts that changed'),
});

export const PrefixOut = z.object({
  '@context': context,
  '@type': z.literal('Prefix'),
  '@id': z.url(),
  id: personId,
  prefix: z.string(),
});

export const SuffixOut = z.object({
  '@context': context,
  '@type': z.literal('Suffix'),
  '@id': z.url(),
  id: personId,
  suffix: z.string(),
});

export const PROBLEM_TYPE_NAMES = Object.keys(PROBLEM_TYPES) as ProblemType[];

/** The `type` of a problem: a URI reference relative to the API's base (API.md 7). */
export const problemTypeUri = (type: ProblemType) => `/problems/${type}`;

/** RFC 9457 problem+json as lib/http/problems.ts writes it. */
export const ProblemOut = z.object({
  type: z.enum(PROBLEM_TYPE_NAMES.map(problemTypeUri)),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  instance: z.string().describe('The path of the request'),
  errors: z
    .array(
      z.object({
        path: z.string().describe('JSON Pointer of the offending element ("" is the whole body)'),
        message: z.string(),
        existing: z.url().optional().describe('The person that already holds a unique value'),
      }),
    )
    .optional(),
});

/** True when the schema's output has exactly the builder's keys and fits the builder's type. */
type Describes<S extends z.ZodType, Built> = [z.output<S>] extends [Built]
  ? [keyof Built] extends [keyof z.output<S>]
    ? [keyof z.output<S>] extends [keyof Built]
      ? true
      : false
    : false
  : false;

true satisfies Describes<typeof StubOut, Stub>;
true satisfies Describes<
  ReturnType<typeof paginatedListOf<typeof StubOut>>,
  ReturnType<typeof paginatedList<Stub>>
>;
true satisfies Describes<typeof AuditEntryOut, ReturnType<typeof auditEntryOut>>;
true satisfies Describes<typeof PrefixOut, ReturnType<typeof referenceOut<Prefix>>>;
true satisfies Describes<typeof SuffixOut, ReturnType<typeof referenceOut<Suffix>>>;
true satisfies Describes<typeof ProblemOut, ProblemBody>;
