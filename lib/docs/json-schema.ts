/**
 * zod to JSON Schema 2020-12 with zod's own `z.toJSONSchema`, plus the two places where the wire reads
 * a value differently from what the zod schema's type says, so the documents tell clients the truth.
 */
import * as z from 'zod';

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

const requestOverrides: Override = (context) => {
  jsonLdKeywordsAllowed(context);
  formatOfCleanedText(context);
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

/** One schema as a JSON Schema 2020-12 document of its own. */
export const jsonSchemaDocument = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema =>
  z.toJSONSchema(schema, {
    target: TARGET,
    io,
    ...(io === 'input' ? { override: requestOverrides } : {}),
  });

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
    ...(io === 'input' ? { override: requestOverrides } : {}),
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema)]));
};

/** The schema of one query parameter, as the client sends it. */
export const queryParameterSchema = (schema: z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema, { target: TARGET, io: 'input', override: textNumbersAsNumbers }));

/** The schema of a value inside another document (a path parameter, a header). */
export const valueSchema = (schema: z.ZodType): JsonSchema =>
  withoutDialect(z.toJSONSchema(schema, { target: TARGET, io: 'output' }));
