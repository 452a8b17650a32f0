/**
 * zod to JSON Schema 2020-12 with zod's own `z.toJSONSchema`, plus the places where the wire reads a
 * value differently from what the zod schema's type says, so the documents tell clients the truth.
 */
import * as z from 'zod';
import { ITEM_TYPES, NAME_ALIAS_TYPES, type NameAliasType, type SetName } from '../domain/schemas';

export type JsonSchema = z.core.JSONSchema.BaseSchema;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

type Override = NonNullable<z.core.ToJSONSchemaParams['override']>;

const TARGET = 'draft-2020-12';

/** Replaces a generated schema in place: zod's `override` hands out the object it will emit. */
const replace = (target: JsonSchema, source: JsonSchema) => {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
};

const withoutDialect = ({ $schema: _dialect, $id: _id, ...schema }: JsonSchema): JsonSchema => schema;

/**
 * Request bodies refuse unknown keys but let JSON-LD keywords (`@context`, `@id`, ...) through unread
 * (lib/domain/schemas.ts `closedObject`); zod can only say `additionalProperties: false`, which would
 * tell clients that the body GET returned cannot be sent back.
 */
const jsonLdKeywordsAllowed: Override = ({ zodSchema, jsonSchema }) => {
  const { def } = zodSchema._zod;
  if (def.type === 'object' && def.catchall?._zod.def.type === 'never')
    jsonSchema.patternProperties = { '^@': {} };
};

/**
 * A value cleaned before it is checked (an email is trimmed, then must be an email) is described by
 * zod's input alone, which drops the check; the format it must end up in is what clients need to know.
 */
const formatOfCleanedText: Override = ({ zodSchema, jsonSchema }) => {
  const { def } = zodSchema._zod;
  if (def.type !== 'pipe' || jsonSchema.type !== 'string' || jsonSchema.format) return;
  const { format } = z.toJSONSchema(def.out, { target: TARGET, unrepresentable: 'any' });
  if (format) jsonSchema.format = format;
};

/** The `primary` of each kind of sub-object the schemas hold, by its set. */
type Primaries = ReadonlyMap<z.core.$ZodType, SetName>;

const SET_OF_ITEM_TYPE = new Map(
  Object.entries(ITEM_TYPES).map(([set, type]) => [type as string, set as SetName]),
);

/** The set whose items an object schema describes, by the `@type` literal it requires or allows. */
const itemSetOf = (typeSchema: z.core.$ZodType | undefined): SetName | undefined => {
  const def = (typeSchema as z.core.$ZodTypes | undefined)?._zod.def;
  if (def?.type === 'optional') return itemSetOf(def.innerType);
  return def?.type === 'literal' ? SET_OF_ITEM_TYPE.get(String(def.values[0])) : undefined;
};

/** The schemas a schema is made of, as far as the Person's bodies go. */
const partsOf = (schema: z.core.$ZodType): readonly z.core.$ZodType[] => {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'object':
      return Object.values(def.shape);
    case 'optional':
    case 'nullable':
      return [def.innerType];
    case 'pipe':
      return [def.in, def.out];
    case 'array':
      return [def.element];
    case 'union':
      return def.options;
    default:
      return [];
  }
};

/**
 * Every `primary` of a sub-object within the schemas (the property as its item holds it, wrappers and
 * all), by the set the item's `@type` names: the overrides below key on these zod schemas themselves,
 * wherever they sit, in requests and responses alike.
 */
const primariesIn = (roots: readonly z.core.$ZodType[]): Primaries => {
  const found = new Map<z.core.$ZodType, SetName>();
  const visited = new Set<z.core.$ZodType>();
  const pending = [...roots];
  for (let schema = pending.pop(); schema; schema = pending.pop()) {
    if (visited.has(schema)) continue;
    visited.add(schema);
    const def = (schema as z.core.$ZodTypes)._zod.def;
    if (def.type === 'object') {
      const set = itemSetOf(def.shape['@type']);
      if (set && def.shape.primary) found.set(def.shape.primary, set);
    }
    pending.push(...partsOf(schema));
  }
  return found;
};

const ALIAS_MEANINGS: Record<NameAliasType, string> = {
  2: 'disambiguated system name',
  3: 'previous system name',
};
const aliases = NAME_ALIAS_TYPES.map((type) => `\`${type}\` (${ALIAS_MEANINGS[type]})`).join(' or ');

/** What `primary` is answered as and what a request may send (API.md 5.2, 11.1), the same in every document. */
export const primaryDescription = (set: SetName): string =>
  `Answered: \`true\` on the person's primary ${ITEM_TYPES[set]}, \`false\` on the others` +
  (set === 'Names' ? `, or GRC's alias type ${aliases}, which is not primary and is kept as sent` : '') +
  ". Accepted also: GRC's `1` for `true` and `0` for `false`.";

/** The values of `primary` a request takes: the answered ones, and GRC's integers. */
const acceptedPrimaryValues = (set: SetName): JsonSchema[] => [
  { type: 'boolean' },
  {
    type: 'integer',
    enum: [1, 0],
    description: "GRC's 1 and 0: accepted, answered as `true` and `false`",
  },
  ...(set === 'Names'
    ? [
        {
          type: 'integer' as const,
          enum: [...NAME_ALIAS_TYPES],
          description: "GRC's alias types: accepted, and answered as sent",
        },
      ]
    : []),
];

/** Each `primary` says what it is answered as and what it accepts. */
const describedPrimary =
  (primaries: Primaries): Override =>
  ({ zodSchema, jsonSchema }) => {
    const set = primaries.get(zodSchema);
    if (set) jsonSchema.description = primaryDescription(set);
  };

/**
 * Each `primary` admits what a request takes besides what the response holds (GRC's 1 and 0, API.md
 * 11.1): for a document that clients check both what they read and what they send back with.
 */
const acceptedPrimary =
  (primaries: Primaries): Override =>
  ({ zodSchema, jsonSchema }) => {
    const set = primaries.get(zodSchema);
    if (!set) return;
    const nullable = z.safeParse(zodSchema, null).success;
    replace(jsonSchema, {
      description: primaryDescription(set),
      anyOf: [...acceptedPrimaryValues(set), ...(nullable ? [{ type: 'null' as const }] : [])],
    });
  };

/**
 * The overrides of a conversion of these schemas. Requests and responses each describe `primary` as it
 * is; a document of its own (`standalone`, e.g. `/schema/Person`) is one that clients check both what
 * they read and what they send back with (a PATCH takes the object GET answered), so its `primary`
 * also admits what a request takes.
 */
const overridesFor = (
  schemas: readonly z.core.$ZodType[],
  io: 'input' | 'output',
  standalone: boolean,
): Override => {
  const primaries = primariesIn(schemas);
  const primary = io === 'output' && standalone ? acceptedPrimary(primaries) : describedPrimary(primaries);
  return (context) => {
    if (io === 'input') {
      jsonLdKeywordsAllowed(context);
      formatOfCleanedText(context);
    }
    primary(context);
  };
};

/**
 * Query values arrive as text, so the listing schemas read digits and turn them into a bounded
 * integer; OpenAPI serializes a query parameter itself, so the parameter is the integer with its
 * bounds.
 */
const textNumbersAsNumbers: Override = ({ zodSchema, jsonSchema }) => {
  const { def } = zodSchema._zod;
  if (def.type === 'pipe' && def.out._zod.def.type === 'number')
    replace(jsonSchema, withoutDialect(z.toJSONSchema(def.out, { target: TARGET })));
};

/**
 * One schema as a JSON Schema 2020-12 document of its own. Clients check what they send back with a
 * response's document too, so an output document admits the values a request takes besides those
 * answered (each `primary`: GRC's 1 and 0).
 */
export const jsonSchemaDocument = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema =>
  z.toJSONSchema(schema, { target: TARGET, io, override: overridesFor([schema], io, true) });

/**
 * Named schemas converted together, so a schema that holds another named one refers to it with
 * `uri(name)` instead of a copy. Request bodies are converted as zod's input, responses as its output.
 */
export const namedJsonSchemas = (
  named: Record<string, z.ZodType>,
  io: 'input' | 'output',
  uri: (name: string) => string,
): Record<string, JsonSchema> => {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: TARGET,
    io,
    uri,
    override: overridesFor(Object.values(named), io, false),
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema)]));
};

/** The schema of one query parameter, as the client sends it. */
export const queryParameterSchema = (schema: z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema, { target: TARGET, io: 'input', override: textNumbersAsNumbers }));

/** The schema of a value inside another document (a path parameter, a header). */
export const valueSchema = (schema: z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema, { target: TARGET, io: 'output' }));
