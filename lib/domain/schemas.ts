/**
 * The wire format as zod schemas: the single source for request validation and, later, for the
 * OpenAPI and JSON Schema documents. Field lists of the sub-object sets live here too, so the patch,
 * the representation and the schemas cannot disagree on what a Name or an Email holds.
 */
import * as z from 'zod';
import { isEmailAddress } from './email';
import { IAM_ARN } from './principal';

export const LIMITS = {
  bodyBytes: 256 * 1024,
  text: 200,
  email: 254,
  localReferenceId: 128,
  sets: {
    Names: 20,
    Emails: 50,
    PhoneNumbers: 50,
    PersonRoles: 50,
    PostalAddresses: 20,
    PersonOrganizations: 50,
    PersonGroups: 50,
    PersonInitiatives: 50,
    PersonTeams: 50,
  },
} as const;

/**
 * A string that is well-formed Unicode: a lone surrogate cannot be stored or compared reliably (two
 * different ones may become the same key), so it is refused at the edge.
 */
export const wellFormed = (schema: z.ZodString) =>
  schema.refine((value) => !/\p{Cs}/u.test(value), { error: 'Not well-formed Unicode (a lone surrogate)' });

export const text = wellFormed(z.string().max(LIMITS.text));
/** RFC 5321/6531 addresses (lib/domain/email.ts), kept in Unicode NFC as sent. */
const emailAddress = wellFormed(z.string().trim().max(LIMITS.email))
  .normalize('NFC')
  .refine(isEmailAddress, { error: 'Not a valid email address' })
  .meta({ format: 'idn-email' });
export const positiveId = z.int().positive();
export const localReferenceId = wellFormed(z.string().max(LIMITS.localReferenceId)).nullable();

// ---------------------------------------------------------------------------------------------------
// Messages: what a refused body or query reads, in the contract's words (API.md 2.1)
// ---------------------------------------------------------------------------------------------------

type Issue = z.core.$ZodRawIssue;

/** A value as a client would name what it sent: `an array`, `a string`, `null`, `missing`. */
export const kindOf = (value: unknown): string => {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
};

const EXPECTED: Record<string, string> = {
  string: 'a string',
  number: 'an integer',
  int: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
};

/**
 * zod's usual complaints in plain words ("Expected a string, not the number 42"), for every body and query
 * (lib/http/request.ts passes it to each parse). Messages a schema sets itself (a container's shape,
 * `primary`, the unknown query parameters) come first; zod's own words are the last resort.
 */
export const wireErrors: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type': {
      if (!issue.path?.length && issue.expected === 'object')
        return `Expected a JSON object, not ${kindOf(issue.input)}`;
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return issue.input === undefined
        ? `Required: expected ${expected}`
        : `Expected ${expected}, not ${kindOf(issue.input)}`;
    }
    case 'too_big': {
      const limit = issue.inclusive === false ? 'less than' : 'at most';
      if (issue.origin === 'string') return `At most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `At most ${issue.maximum} items`;
      return `Must be ${limit} ${issue.maximum}`;
    }
    case 'too_small': {
      if (issue.minimum === 0 && issue.inclusive === false) return 'Must be a positive integer';
      const limit = issue.inclusive === false ? 'greater than' : 'at least';
      if (issue.origin === 'string') return `At least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `At least ${issue.minimum} items`;
      return `Must be ${limit} ${issue.minimum}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `Must be ${JSON.stringify(issue.values[0])}`
        : `Must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'unrecognized_keys':
      return 'Unknown property';
    case 'invalid_union':
      return 'Not one of the accepted forms of this property';
    default:
      return undefined;
  }
};

/** A Person's one requirement beyond types (API.md 5.2), said the same by the schema and the patch. */
export const NAME_REQUIRED =
  'A Person needs at least one Name: first_name and last_name, or freeform_name, as in {"Names": {"@set": [{"first_name": "Ada", "last_name": "Lovelace"}]}}';

/**
 * An object that refuses unknown keys (reported with their path) but lets JSON-LD keywords (`@context`,
 * `@id`, ...) through unread, as API.md 5.2 asks. Keys like `__proto__` are unknown keys like any other.
 * `error` words what the object itself refuses (a value that is not an object, a missing object).
 */
export const closedObject = <S extends z.ZodRawShape>(shape: S, error?: z.core.$ZodErrorMap) =>
  z.preprocess(
    (value) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).filter(([key]) => !key.startsWith('@') || key in shape))
        : value,
    z.strictObject(shape, error ? { error } : undefined),
  );

/**
 * The message for an object sent as something else: `Names takes {"@type": "Names", "@set": [ ... ]},
 * not an array`. `missing` is what a required one that was not sent reads.
 */
const takes =
  (name: string, form: string, missing = `${name} is required: ${form}`): z.core.$ZodErrorMap =>
  (issue: Issue) =>
    issue.code === 'invalid_type'
      ? issue.input === undefined
        ? missing
        : `${name} takes ${form}, not ${kindOf(issue.input)}`
      : undefined;

/** GRC's alias types of a Name (API.md 11.1): 2 disambiguated system name, 3 previous system name. */
export const NAME_ALIAS_TYPES = [2, 3] as const;
export type NameAliasType = (typeof NAME_ALIAS_TYPES)[number];

/**
 * The properties each kind of sub-object holds besides `id`, `person_fk` and `local_reference_id`, as
 * stored and answered. The four membership sets sit in the `PersonMemberships` container on the wire.
 */
export const ITEM_FIELDS = {
  Names: {
    first_name: text,
    last_name: text,
    middle_initial: text,
    freeform_name: text,
    name_prefix_fk: positiveId,
    name_suffix_fk: positiveId,
    primary: z.union([z.boolean(), z.literal(NAME_ALIAS_TYPES)]),
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
  PersonOrganizations: { name: text, organization_fk: positiveId },
  PersonGroups: { name: text, group_fk: positiveId },
  // GRC shows `initiative` only as null; it names an initiative, by id or by text.
  PersonInitiatives: {
    name: text,
    initiative: z.union([positiveId, text], {
      error: 'Expected the id of an initiative (a positive integer) or its name (a string)',
    }),
  },
  PersonTeams: { name: text, team_fk: positiveId },
} as const;

export type SetName = keyof typeof ITEM_FIELDS;
export const SET_NAMES = Object.keys(ITEM_FIELDS) as SetName[];

/** The sets GRC groups in the `PersonMemberships` container (API.md 11.1). */
export const MEMBERSHIP_SETS = [
  'PersonOrganizations',
  'PersonGroups',
  'PersonInitiatives',
  'PersonTeams',
] as const satisfies readonly SetName[];
export type MembershipSet = (typeof MEMBERSHIP_SETS)[number];
export const TOP_LEVEL_SETS = SET_NAMES.filter(
  (set) => !(MEMBERSHIP_SETS as readonly SetName[]).includes(set),
) as Exclude<SetName, MembershipSet>[];

const isMembershipSet = (set: SetName): set is MembershipSet =>
  (MEMBERSHIP_SETS as readonly SetName[]).includes(set);

/** The JSON Pointer of a set's container in a Person body: `/Names`, `/PersonMemberships/PersonTeams`. */
export const setPointer = (set: SetName): string =>
  isMembershipSet(set) ? `/PersonMemberships/${set}` : `/${set}`;

/** `@type` of the items of each set; the container's `@type` is the set name itself. */
export const ITEM_TYPES = {
  Names: 'Name',
  Emails: 'Email',
  PhoneNumbers: 'PhoneNumber',
  PersonRoles: 'PersonRole',
  PostalAddresses: 'PostalAddress',
  PersonOrganizations: 'PersonOrganization',
  PersonGroups: 'PersonGroup',
  PersonInitiatives: 'PersonInitiative',
  PersonTeams: 'PersonTeam',
} as const satisfies Record<SetName, string>;

/** Foreign keys taken when an item is added and ignored when it is changed (API.md 5.3). */
export const ITEM_FOREIGN_KEYS = {
  Names: ['name_prefix_fk', 'name_suffix_fk'],
  Emails: [],
  PhoneNumbers: [],
  PersonRoles: ['role_fk'],
  PostalAddresses: [],
  PersonOrganizations: ['organization_fk'],
  PersonGroups: ['group_fk'],
  PersonInitiatives: ['initiative'],
  PersonTeams: ['team_fk'],
} as const satisfies Record<SetName, readonly string[]>;

/**
 * Ownership keys besides `person_fk`: accepted and ignored on input, null on output, because a person's
 * own items belong to no organization (API.md 11.1).
 */
export const ITEM_OWNER_KEYS = {
  Names: [],
  Emails: ['organization_fk'],
  PhoneNumbers: ['organization_fk'],
  PersonRoles: [],
  PostalAddresses: ['organization_fk'],
  PersonOrganizations: [],
  PersonGroups: [],
  PersonInitiatives: [],
  PersonTeams: [],
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

const keysOf = <K extends string, S extends z.ZodType>(keys: readonly K[], schema: S) =>
  Object.fromEntries(keys.map((key) => [key, schema])) as Record<K, S>;

// ---------------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------------

/**
 * `primary` as GRC clients send it (API.md 11.1): `1`/`true` is primary, `0`/`false` is not; on Names,
 * GRC's alias types `2` and `3` are kept as they are.
 */
const primaryInput = (set: SetName) => {
  const aliases = set === 'Names';
  return z
    .union([z.boolean(), z.literal(aliases ? [0, 1, ...NAME_ALIAS_TYPES] : [0, 1])], {
      error: aliases
        ? 'primary must be true, false, 1, 0, or an alias type (2 or 3)'
        : 'primary must be true, false, 1 or 0',
    })
    .transform((value) => (value === 1 ? true : value === 0 ? false : value));
};

export const readOnly = z.unknown().optional().describe('Read only: ignored');

const inputItem = <N extends SetName>(set: N) =>
  closedObject(
    {
      '@type': z.literal(ITEM_TYPES[set]).optional(),
      id: positiveId.nullable().optional(),
      ...nullableOptional(ITEM_FIELDS[set]),
      ...('primary' in ITEM_FIELDS[set] ? { primary: primaryInput(set).nullable().optional() } : {}),
      person_fk: readOnly,
      ...keysOf(ITEM_OWNER_KEYS[set], readOnly),
      local_reference_id: localReferenceId.optional(),
    },
    (issue) =>
      issue.code === 'invalid_type'
        ? `Each item of ${set} is a ${ITEM_TYPES[set]} object ({"@type": "${ITEM_TYPES[set]}", ...}), not ${kindOf(issue.input)}`
        : undefined,
  );

/**
 * A set's container, `{"@type": "Names", "@set": [ ... ]}`: sent as an array (or `@set` as an object),
 * it says which shape it takes, not what zod expected.
 */
const inputSet = <N extends SetName>(set: N, missing?: string) => {
  const form = `{"@type": "${set}", "@set": [ ... ]}`;
  const items = z.array(inputItem(set), {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `@set takes an array, as in ${form}, not ${kindOf(issue.input)}`
        : issue.code === 'too_big'
          ? `A person has at most ${LIMITS.sets[set]} ${set}`
          : undefined,
  });
  return closedObject(
    {
      '@type': z.literal(set).optional(),
      '@set': items.max(LIMITS.sets[set]).optional(),
    },
    takes(set, form, missing),
  );
};

const inputSocial = closedObject(
  {
    '@type': z.literal('SocialAddresses').optional(),
    ...nullableOptional(SOCIAL_FIELDS),
  },
  takes('SocialAddresses', '{"@type": "SocialAddresses", "twitter": ..., "facebook": ..., ...}'),
);

const inputMemberships = closedObject(
  {
    '@type': z.literal('PersonMemberships').optional(),
    PersonOrganizations: inputSet('PersonOrganizations').optional(),
    PersonGroups: inputSet('PersonGroups').optional(),
    PersonInitiatives: inputSet('PersonInitiatives').optional(),
    PersonTeams: inputSet('PersonTeams').optional(),
  },
  takes(
    'PersonMemberships',
    '{"@type": "PersonMemberships", "PersonOrganizations": {"@set": [ ... ]}, "PersonGroups": ..., ...}',
  ),
);

/** Ours and GRC's CoreMetaData keys (API.md 11.1): all read only, any value (GRC sends date-only dates). */
export const CORE_METADATA_INPUT_KEYS = [
  'date_created',
  'date_modified',
  'created_by',
  'modified_by',
  'version',
  'created_audit_id',
  'modified_audit_id',
  'live_status',
  'checksum',
  'validated',
  'deprecated_notes',
  'superceded_by',
] as const;

export const inputCoreMetaData = closedObject(
  {
    '@type': z.literal('CoreMetaData').optional(),
    ...keysOf(CORE_METADATA_INPUT_KEYS, readOnly),
  },
  takes('CoreMetaData', '{"@type": "CoreMetaData", ...} as GET shows it'),
);

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
  PersonMemberships: inputMemberships.optional(),
  SocialAddresses: inputSocial.optional(),
  CoreMetaData: inputCoreMetaData.optional(),
};

/** PATCH /Person/{id}: the object from GET with changes; everything optional. */
export const PatchPersonBody = closedObject(personBodyShape);

/** POST /Person: like PATCH, but a Name is required (the patch checks that one is more than an example). */
export const CreatePersonBody = closedObject({ ...personBodyShape, Names: inputSet('Names', NAME_REQUIRED) });

export type PersonBody = z.output<typeof PatchPersonBody>;

/** POST /Person/{id}/merge (API.md 13): the duplicate to merge into this person; `preview` writes nothing. */
export const MergePersonBody = closedObject({
  source: positiveId.describe('The id of the person merged into this one (the duplicate)'),
  preview: z
    .boolean()
    .optional()
    .describe('true: answer the survivor as the merge would make it, and write nothing'),
});
/** POST /Person/{id}/unmerge (API.md 13.1): the person merged into this one, to live again; `preview` writes nothing. */
export const UnmergePersonBody = closedObject({
  source: positiveId.describe('The id of the person merged into this one, to be given back its own record'),
  preview: z
    .boolean()
    .optional()
    .describe('true: answer both persons as the unmerge would make them, and write nothing'),
});

/** A principal's identifiers are kept to this length: an issuer URL, a subject, an ARN. */
const MAX_PRINCIPAL_TEXT = 1024;
const principalText = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} must not be blank`)
    .max(MAX_PRINCIPAL_TEXT, `${what} is at most ${MAX_PRINCIPAL_TEXT} characters`);

/**
 * PUT /Person/{id}/principal (API.md 9.1): the principal to bind, a JWT's `issuer` and `subject`
 * (exactly as the token's `iss` and `sub` say them), or an IAM caller's `arn`.
 */
export const PrincipalBody = closedObject({
  issuer: principalText('issuer').optional().describe("The token issuer's `iss`, with `subject`"),
  subject: principalText('subject').optional().describe("The token's `sub` for that issuer"),
  arn: principalText('arn')
    .regex(IAM_ARN, 'arn must be an IAM user, role or assumed-role ARN')
    .optional()
    .describe('An IAM principal (instead of issuer and subject), as the IAM authorizer names it'),
}).superRefine((body, context) => {
  if (typeof body !== 'object' || body === null) return;
  const { issuer, subject, arn } = body as { issuer?: string; subject?: string; arn?: string };
  const jwt = issuer !== undefined || subject !== undefined;
  if (arn !== undefined && jwt)
    context.addIssue({ code: 'custom', path: [], message: 'Send issuer and subject, or arn, not both' });
  else if (arn === undefined && (issuer === undefined || subject === undefined))
    context.addIssue({
      code: 'custom',
      path: [issuer === undefined ? 'issuer' : 'subject'],
      message: 'A principal is an issuer with a subject (a JWT), or an arn (an IAM caller)',
    });
});

export type InputItem = NonNullable<NonNullable<PersonBody['Names']>['@set']>[number];

/** The elements a body sends for one set, wherever the set sits on the wire; undefined when not sent. */
export const elementsOf = (body: PersonBody, set: SetName): unknown[] | undefined =>
  isMembershipSet(set) ? body.PersonMemberships?.[set]?.['@set'] : body[set]?.['@set'];

// ---------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------

const outputItem = <N extends SetName>(set: N) =>
  z.object({
    '@type': z.literal(ITEM_TYPES[set]),
    id: positiveId.nullable(),
    ...nullable(ITEM_FIELDS[set]),
    person_fk: positiveId.nullable(),
    ...keysOf(ITEM_OWNER_KEYS[set], z.null()),
    local_reference_id: localReferenceId,
  });

/** What a deleted element that carried a `local_reference_id` turns into in the response (GRC's shape). */
const tombstone = <N extends SetName>(set: N) =>
  z.strictObject({ '@type': z.literal(ITEM_TYPES[set]), id: positiveId, local_reference_id: z.string() });

const outputSet = <N extends SetName>(set: N) =>
  z.object({
    '@type': z.literal(set),
    '@set': z.array(z.union([outputItem(set), tombstone(set)])).min(1),
  });

/** The Verhoeff check digit GRC's checksum proposal describes (lib/domain/checksum.ts). */
const checkDigit = z.int().min(0).max(9);

export const CoreMetaDataOut = z.object({
  '@type': z.literal('CoreMetaData'),
  date_created: z.iso.datetime(),
  date_modified: z.iso.datetime(),
  created_by: positiveId.nullable(),
  modified_by: positiveId.nullable(),
  version: z.int().positive(),
  created_audit_id: positiveId.nullable(),
  modified_audit_id: positiveId.nullable(),
  live_status: z.literal(1),
  validated: z.literal(0),
  checksum: checkDigit,
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
  PersonMemberships: z.object({
    '@type': z.literal('PersonMemberships'),
    PersonOrganizations: outputSet('PersonOrganizations'),
    PersonGroups: outputSet('PersonGroups'),
    PersonInitiatives: outputSet('PersonInitiatives'),
    PersonTeams: outputSet('PersonTeams'),
  }),
  SocialAddresses: z.object({ '@type': z.literal('SocialAddresses'), ...nullable(SOCIAL_FIELDS) }),
  CoreMetaData: CoreMetaDataOut.extend({ created_by: positiveId }),
});

export type PersonOut = z.output<typeof PersonOut>;
