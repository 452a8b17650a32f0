/**
 * JSON Schemas of the Reconciliation API 0.2 answers (and of the query batch a client sends), written from the specification's text
 * (reconciliation-api/specs, 0.2/index.html: "Service manifest", "Reconciliation queries",
 * "Suggest services", "Data extension") and checked against the published schemas' reading, not
 * copied from them. Where OpenRefine 3.6 needs more than the spec says (issue #37), the schema asks
 * for it too and says so: candidate `type` an array, suggest `service_url` absolute, `preview` with
 * `url`, `width` and `height`, `extend` present.
 */
import { schemaValidator } from './json-schema';

const ABSOLUTE_URL = { type: 'string', format: 'uri', pattern: '^https?://' };
const ID_TEMPLATE = { type: 'string', pattern: '\\{\\{id\\}\\}' };

/** A type given by id (and name), or by its id alone. */
const TYPE = {
  oneOf: [
    {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, name: { type: 'string' } },
    },
    { type: 'string' },
  ],
};

const SERVICE = {
  type: 'object',
  required: ['service_url'],
  properties: { service_url: ABSOLUTE_URL, service_path: { type: 'string' } },
};

export const MANIFEST = {
  $id: 'urn:reconcile:manifest',
  type: 'object',
  required: ['versions', 'name', 'identifierSpace', 'schemaSpace', 'view', 'preview', 'suggest', 'extend'],
  properties: {
    versions: { type: 'array', items: { type: 'string' }, contains: { const: '0.2' } },
    name: { type: 'string', minLength: 1 },
    identifierSpace: ABSOLUTE_URL,
    schemaSpace: ABSOLUTE_URL,
    documentation: ABSOLUTE_URL,
    defaultTypes: { type: 'array', items: TYPE, uniqueItems: true },
    view: { type: 'object', required: ['url'], properties: { url: ID_TEMPLATE } },
    preview: {
      type: 'object',
      required: ['url', 'width', 'height'],
      properties: { url: ID_TEMPLATE, width: { type: 'integer' }, height: { type: 'integer' } },
    },
    suggest: {
      type: 'object',
      properties: { entity: SERVICE, property: SERVICE, type: SERVICE },
    },
    extend: {
      type: 'object',
      properties: {
        propose_properties: SERVICE,
        property_settings: {
          type: 'array',
          items: {
            type: 'object',
            required: ['type', 'label', 'name'],
            properties: {
              type: { enum: ['number', 'text', 'checkbox', 'select'] },
              label: { type: 'string' },
              name: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const FEATURE = {
  type: 'object',
  required: ['id', 'value'],
  properties: { id: { type: 'string' }, value: { type: ['number', 'boolean'] } },
};

const CANDIDATE = {
  type: 'object',
  required: ['id', 'name', 'score', 'type', 'match'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    score: { type: 'number' },
    match: { type: 'boolean' },
    // OpenRefine 3.6 drops the whole job when `type` is an object: an array, always.
    type: { type: 'array', items: TYPE },
    features: { type: 'array', items: FEATURE },
  },
};

export const RESULT_BATCH = {
  $id: 'urn:reconcile:result-batch',
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['result'],
    properties: { result: { type: 'array', items: CANDIDATE } },
  },
};

/** A property value of a query: text, a number, a boolean, or an entity by its id. */
const PROPERTY_VALUE = {
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, name: { type: 'string' } },
    },
  ],
};

/**
 * A batch of queries, what a client sends (the spec's "Reconciliation queries" and its
 * reconciliation-query-batch.json): an object of query objects, each with `query` or a non-empty
 * `properties` (each `pid` and `v`), and no members but the five the spec defines.
 */
export const QUERY_BATCH = {
  $id: 'urn:reconcile:query-batch',
  type: 'object',
  additionalProperties: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      type: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
      limit: { type: 'number' },
      properties: {
        type: 'array',
        items: {
          type: 'object',
          required: ['pid', 'v'],
          properties: {
            pid: { type: 'string' },
            v: { oneOf: [PROPERTY_VALUE, { type: 'array', items: PROPERTY_VALUE }] },
          },
        },
      },
      type_strict: { enum: ['any', 'should', 'all'] },
    },
    anyOf: [
      { required: ['query'], properties: { query: { type: 'string' } } },
      { required: ['properties'], properties: { properties: { type: 'array', minItems: 1 } } },
    ],
    additionalProperties: false,
  },
};

const SUGGESTION = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    notable: { type: 'array', items: TYPE },
  },
};

export const SUGGEST_RESPONSE = {
  $id: 'urn:reconcile:suggest',
  type: 'object',
  required: ['result'],
  properties: { result: { type: 'array', items: SUGGESTION } },
};

export const PROPOSE_PROPERTIES = {
  $id: 'urn:reconcile:propose-properties',
  type: 'object',
  required: ['properties'],
  properties: {
    type: { type: 'string' },
    limit: { type: 'integer' },
    properties: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: 'string' } },
      },
    },
  },
};

/** A cell: nothing, an entity, a string, a float, an int or a date (the spec's "property values"). */
const CELL = {
  oneOf: [
    { type: 'object', additionalProperties: false },
    {
      type: 'object',
      required: ['id', 'name'],
      properties: { id: { type: 'string' }, name: { type: 'string' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['str'],
      properties: { str: { type: 'string' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['float'],
      properties: { float: { type: 'number' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['int'],
      properties: { int: { type: 'integer' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      required: ['date'],
      properties: { date: { type: 'string' } },
      additionalProperties: false,
    },
  ],
};

export const EXTEND_RESPONSE = {
  $id: 'urn:reconcile:extend',
  type: 'object',
  required: ['meta', 'rows'],
  properties: {
    meta: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name'],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          type: {
            type: 'object',
            required: ['id'],
            properties: { id: { type: 'string' }, name: { type: 'string' } },
          },
          service: ABSOLUTE_URL,
        },
      },
    },
    rows: {
      type: 'object',
      additionalProperties: { type: 'object', additionalProperties: { type: 'array', items: CELL } },
    },
  },
};

const ajv = schemaValidator({ strict: true, strictTypes: false, allErrors: true });
for (const schema of [
  MANIFEST,
  QUERY_BATCH,
  RESULT_BATCH,
  SUGGEST_RESPONSE,
  PROPOSE_PROPERTIES,
  EXTEND_RESPONSE,
])
  ajv.addSchema(schema);

export type ReconcileSchema =
  | 'manifest'
  | 'query-batch'
  | 'result-batch'
  | 'suggest'
  | 'propose-properties'
  | 'extend';

/** The schema's errors for the value (none: it is valid). */
export const reconcileErrors = (schema: ReconcileSchema, value: unknown) => {
  const validate = ajv.getSchema(`urn:reconcile:${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  return validate(value) ? [] : (validate.errors ?? []);
};
