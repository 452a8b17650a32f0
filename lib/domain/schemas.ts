/**
 * The wire format as zod schemas: the single source for request validation and, later, for the
 * OpenAPI and JSON Schema documents. Field lists of the sub-object sets live here too, so the merge,
 * the representation and the schemas cannot disagree on what a Name or an Email holds.
 */
import * as z from 'zod';

export const LIMITS = {
  bodyBytes: 256 * 1024,
  text: 200,
  email: 254,
  localReferenceId: 128,
  sets: { Names: 20, Emails: 50, PhoneNumbers: 50, PersonRoles: 50, PostalAddresses: 20 },
} as const;

/**
 * A string that is well-formed Unicode: a lone surrogate cannot be stored or compared reliably (two
 * different ones may become the same key), so it is refused at the edge.
 */
export const wellFormed = (schema: z.ZodString) =>
  schema.refine((value) => !/\p{Cs}/u.test(value), { error: 'Not well-formed Unicode (a lone surrogate)' });

const text = wellFormed(z.string().max(LIMITS.text));
const emailAddress = wellFormed(z.string().trim().max(LIMITS.email)).pipe(
  z.email({ error: 'Not a valid email address' }),
);
const positiveId = z.int().positive();
const localReferenceId = wellFormed(z.string().max(LIMITS.localReferenceId)).nullable();

/**
 * An object that refuses unknown keys (reported with their path) but lets JSON-LD keywords (`@context`,
 * `@id`, ...) through unread, as API.md 5.2 asks. Keys like `__proto__` are unknown keys like any other.
 */
const closedObject = <S extends z.ZodRawShape>(shape: S) =>
  z.preprocess(
    (value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith('@') || key in shape))
        : value,
    z.strictObject(shape),
  );

/** The properties each kind of sub-object holds besides `id`, `person_fk` and `local_reference_id`. */
export const ITEM_FIELDS = {
  Names: {
    first_name: text,
    last_name: text,
    middle_initial: text,
    freeform_name: text,
    name_prefix_fk: positiveId,
    name_suffix_fk: positiveId,
    primary: z.boolean(),
  },
  Emails: { email: emailAddress, primary: z.boolean() },
  PhoneNumbers: { phone_number: text, primary: z.boolean() },
  PersonRoles: { name: text, role_fk: positiveId },
  PostalAddresses: {
    address1: text,
    address2: text,
    city: text,
    state_territory_province: text,
    postal_code: text,
    country: text,
    country_code: text,
    primary: z.boolean(),
  },
} as const;

export type SetName = keyof typeof ITEM_FIELDS;
export const SET_NAMES = Object.keys(ITEM_FIELDS) as SetName[];

/** `@type` of the items of each set; the container's `@type` is the set name itself. */
export const ITEM_TYPES = {
  Names: 'Name',
  Emails: 'Email',
  PhoneNumbers: 'PhoneNumber',
  PersonRoles: 'PersonRole',
  PostalAddresses: 'PostalAddress',
} as const satisfies Record<SetName, string>;

/** Foreign keys taken when an item is added and ignored when it is changed (API.md 5.3). */
export const ITEM_FOREIGN_KEYS = {
  Names: ['name_prefix_fk', 'name_suffix_fk'],
  Emails: [],
  PhoneNumbers: [],
  PersonRoles: ['role_fk'],
  PostalAddresses: [],
} as const satisfies Record<SetName, readonly string[]>;

export const SOCIAL_FIELDS = { twitter: text, facebook: text, linkedin: text, youtube: text } as const;
export type SocialField = keyof typeof SOCIAL_FIELDS;

const nullableOptional = <S extends Record<string, z.ZodType>>(shape: S) =>
  Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, schema.nullable().optional()])) as {
    [K in keyof S]: z.ZodOptional<z.ZodNullable<S[K]>>;
  };

const nullable = <S extends Record<string, z.ZodType>>(shape: S) =>
  Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, schema.nullable()])) as {
    [K in keyof S]: z.ZodNullable<S[K]>;
  };

// ---------------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------------

const inputItem = <N extends SetName>(set: N) =>
  closedObject({
    '@type': z.literal(ITEM_TYPES[set]).optional(),
    id: positiveId.nullable().optional(),
    ...nullableOptional(ITEM_FIELDS[set]),
    person_fk: z.int().nullable().optional().describe('Read only: ignored'),
    local_reference_id: localReferenceId.optional(),
  });

const inputSet = <N extends SetName>(set: N) =>
  closedObject({
    '@type': z.literal(set).optional(),
    '@set': z.array(inputItem(set)).max(LIMITS.sets[set]).optional(),
  });

const inputSocial = closedObject({
  '@type': z.literal('SocialAddresses').optional(),
  ...nullableOptional(SOCIAL_FIELDS),
});

const readOnly = z.unknown().optional().describe('Read only: ignored');

const inputCoreMetaData = closedObject({
  '@type': z.literal('CoreMetaData').optional(),
  date_created: readOnly,
  date_modified: readOnly,
  created_by: readOnly,
  modified_by: readOnly,
  version: readOnly,
});

const personBodyShape = {
  '@type': z.literal('Person').optional(),
  id: readOnly,
  fullname: readOnly,
  email: readOnly,
  local_reference_id: localReferenceId.optional(),
  Names: inputSet('Names').optional(),
  Emails: inputSet('Emails').optional(),
  PhoneNumbers: inputSet('PhoneNumbers').optional(),
  PersonRoles: inputSet('PersonRoles').optional(),
  PostalAddresses: inputSet('PostalAddresses').optional(),
  SocialAddresses: inputSocial.optional(),
  CoreMetaData: inputCoreMetaData.optional(),
};

/** PATCH /Person/{id}: the object from GET with changes; everything optional. */
export const PatchPersonBody = closedObject(personBodyShape);

/** POST /Person: like PATCH, but a Name is required (the merge checks that one is more than an example). */
export const CreatePersonBody = closedObject({ ...personBodyShape, Names: inputSet('Names') });

export type PersonBody = z.output<typeof PatchPersonBody>;
export type InputItem = NonNullable<NonNullable<PersonBody[SetName]>['@set']>[number];

// ---------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------

const outputItem = <N extends SetName>(set: N) =>
  z.object({
    '@type': z.literal(ITEM_TYPES[set]),
    id: positiveId.nullable(),
    ...nullable(ITEM_FIELDS[set]),
    person_fk: positiveId.nullable(),
    local_reference_id: localReferenceId,
  });

/** What a deleted element that carried a `local_reference_id` turns into in the response. */
const tombstone = <N extends SetName>(set: N) =>
  z.strictObject({ '@type': z.literal(ITEM_TYPES[set]), local_reference_id: z.string() });

const outputSet = <N extends SetName>(set: N) =>
  z.object({
    '@type': z.literal(set),
    '@set': z.array(z.union([outputItem(set), tombstone(set)])).min(1),
  });

export const PersonOut = z.object({
  '@context': z.string(),
  '@type': z.literal('Person'),
  '@id': z.url(),
  id: positiveId,
  fullname: z.string(),
  email: z.string().nullable(),
  local_reference_id: localReferenceId,
  Names: outputSet('Names'),
  Emails: outputSet('Emails'),
  PhoneNumbers: outputSet('PhoneNumbers'),
  PersonRoles: outputSet('PersonRoles'),
  PostalAddresses: outputSet('PostalAddresses'),
  SocialAddresses: z.object({ '@type': z.literal('SocialAddresses'), ...nullable(SOCIAL_FIELDS) }),
  CoreMetaData: z.object({
    '@type': z.literal('CoreMetaData'),
    date_created: z.iso.datetime(),
    date_modified: z.iso.datetime(),
    created_by: positiveId,
    modified_by: positiveId.nullable(),
    version: z.int().positive(),
  }),
});

export type PersonOut = z.output<typeof PersonOut>;
