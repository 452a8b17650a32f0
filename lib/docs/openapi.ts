/**
 * The OpenAPI 3.1 document of the API, built by walking the route table (lib/api/routes.ts) and
 * generating every schema from zod, so a route, a parameter bound or a field cannot be documented
 * differently from how the service behaves, nor be left out.
 */
import type { z } from 'zod';
import { PROBLEM_TYPE_NAMES, PROBLEM_TYPES, type ProblemType, problemTypeUri } from '../api/problems';
import { ROUTES, type Route } from '../api/routes';
import { checksumDigits, recordChecksum } from '../domain/checksum';
import { DecisionBody } from '../domain/duplicates';
import {
  CreatePersonBody,
  MergePersonBody,
  PatchPersonBody,
  PersonOut,
  PrincipalBody,
  UnmergePersonBody,
} from '../domain/schemas';
import { ReplayBody, SubscriptionBody, SubscriptionPatch } from '../domain/subscriptions';
import { vocabularyBody } from '../domain/vocabulary';
import { contentExample, responseExample } from './examples';
import { namedJsonSchemas, queryParameterSchema, valueSchema } from './json-schema';
import {
  OPERATIONS,
  type OperationDoc,
  PATH_PARAMETERS,
  QUERY_PARAMETERS,
  type RequestSchemaName,
  type ResponseHeader,
  type SuccessDoc,
  TAGS,
} from './operations';
import { RESPONSE_SCHEMAS } from './response-schemas';

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, Record<string, unknown>>;
};

export type OpenApiOperation = Record<string, unknown> & {
  operationId: string;
  parameters?: Record<string, unknown>[];
  responses: Record<string, Record<string, unknown>>;
};

/** The media types a JSON response is negotiated between (API.md 2). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/ld+json'] as const;
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

const schemaRef = (name: string) => `#/components/schemas/${name}`;
const ref = (name: string) => ({ $ref: schemaRef(name) });

const REQUEST_SCHEMAS: Record<RequestSchemaName, z.ZodType> = {
  PersonCreate: CreatePersonBody,
  PersonPatch: PatchPersonBody,
  PersonMerge: MergePersonBody,
  PersonUnmerge: UnmergePersonBody,
  PrincipalBinding: PrincipalBody,
  DuplicateDecision: DecisionBody,
  SubscriptionCreate: SubscriptionBody,
  SubscriptionPatch: SubscriptionPatch,
  SubscriptionReplay: ReplayBody,
  NamePrefixCreate: vocabularyBody('NamePrefix', true),
  NamePrefixPatch: vocabularyBody('NamePrefix', false),
  NameSuffixCreate: vocabularyBody('NameSuffix', true),
  NameSuffixPatch: vocabularyBody('NameSuffix', false),
};

const HEADERS: Record<ResponseHeader | 'Retry-After' | 'Allow', Record<string, unknown>> = {
  ETag: {
    description: 'The version of the object (its `CoreMetaData.version`) as a strong ETag, `"<version>"`',
    required: true,
    schema: { type: 'string', pattern: '^"[1-9][0-9]*"$' },
  },
  Location: {
    description: 'The URL of the created resource',
    required: true,
    schema: { type: 'string', format: 'uri' },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  Allow: {
    description: 'The methods the resource allows',
    required: true,
    schema: { type: 'string' },
  },
};

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Headers a problem of each status carries besides its body. */
const PROBLEM_HEADERS: Partial<Record<number, (keyof typeof HEADERS)[]>> = {
  405: ['Allow'],
  412: ['ETag'],
  503: ['Retry-After'],
};

const problemExample = (type: ProblemType, instance: string) => ({
  summary: PROBLEM_TYPES[type].title,
  value: {
    type: problemTypeUri(type),
    title: PROBLEM_TYPES[type].title,
    status: PROBLEM_TYPES[type].status,
    detail: PROBLEM_TYPES[type].title,
    instance,
  },
});

/** Headers a problem of one type carries, where others of its status do not. */
const PROBLEM_TYPE_HEADERS: Partial<Record<ProblemType, (keyof typeof HEADERS)[]>> = {
  'request-in-progress': ['Retry-After'],
};

/** A header only some of a response's problem types carry: not required, and it says which. */
const headerOfSome = (name: keyof typeof HEADERS, types: ProblemType[]) => ({
  ...HEADERS[name],
  description: `${HEADERS[name].description} (with ${types.map(problemTypeUri).join(', ')})`,
  required: false,
});

/** One problem+json response for all the problem types an operation can answer with one status. */
const problemResponse = (status: number, types: ProblemType[], instance: string) => {
  const always = PROBLEM_HEADERS[status] ?? [];
  const some = [...new Set(types.flatMap((type) => PROBLEM_TYPE_HEADERS[type] ?? []))].filter(
    (name) => !always.includes(name),
  );
  const headers = {
    ...Object.fromEntries(always.map((name) => [name, headerRef(name)])),
    ...Object.fromEntries(
      some.map((name) => [
        name,
        types.every((type) => PROBLEM_TYPE_HEADERS[type]?.includes(name))
          ? headerRef(name)
          : headerOfSome(
              name,
              types.filter((type) => PROBLEM_TYPE_HEADERS[type]?.includes(name)),
            ),
      ]),
    ),
  };
  return {
    description: types.map((type) => PROBLEM_TYPES[type].title).join('; '),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: {
          allOf: [ref('Problem')],
          properties: { type: { enum: types.map(problemTypeUri) }, status: { const: status } },
        },
        examples: Object.fromEntries(types.map((type) => [type, problemExample(type, instance)])),
      },
    },
  };
};

const problemResponses = (types: ProblemType[], instance: string) => {
  const byStatus = new Map<number, ProblemType[]>();
  for (const type of types) {
    const { status } = PROBLEM_TYPES[type];
    byStatus.set(status, [...(byStatus.get(status) ?? []), type]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, grouped]) => [String(status), problemResponse(status, grouped, instance)]),
  );
};

/** A response with its JSON body's schema and, beside it, an example of each schema it may be. */
const successResponse = (operationId: string, { description, json, content, headers = [] }: SuccessDoc) => {
  const names = json === undefined ? [] : Array.isArray(json) ? json : [json];
  const jsonSchema = names.length === 1 ? ref(names[0] as string) : { oneOf: names.map(ref) };
  const examples = Object.fromEntries(
    names.flatMap((name) => {
      const example = responseExample(operationId, name);
      return example ? [[name, example]] : [];
    }),
  );
  const media = {
    ...(names.length > 0
      ? Object.fromEntries(JSON_MEDIA_TYPES.map((type) => [type, { schema: jsonSchema, examples }]))
      : {}),
    ...Object.fromEntries(
      Object.entries(content ?? {}).map(([type, schema]) => {
        const example = contentExample(operationId, type);
        return [type, { schema, ...(example ? { examples: { example } } : {}) }];
      }),
    ),
  };
  return {
    description,
    ...(headers.length > 0
      ? { headers: Object.fromEntries(headers.map((name) => [name, headerRef(name)])) }
      : {}),
    ...(Object.keys(media).length > 0 ? { content: media } : {}),
  };
};

const pathParameterNames = (path: string) =>
  [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);

const pathParameters = (path: string) => {
  const resource = path.split('/')[1];
  return pathParameterNames(path).map((name) => {
    const known = PATH_PARAMETERS[name];
    if (!known) throw new Error(`No description of the path parameter {${name}} of ${path} in lib/docs`);
    return {
      name,
      in: 'path',
      required: true,
      description: name === 'id' ? `${known.description} of the ${resource}` : known.description,
      schema: known.schema ?? valueSchema(PersonOut.shape.id),
    };
  });
};

const queryParameters = (key: string, { query, parameters }: OperationDoc) =>
  Object.entries(query?.shape ?? {}).map(([name, schema]) => {
    const known = parameters?.[name] ?? QUERY_PARAMETERS[name];
    if (!known) throw new Error(`No description of the query parameter ${name} of ${key} in lib/docs`);
    return {
      name,
      in: 'query',
      required: false,
      description: known.description,
      schema: {
        ...queryParameterSchema(schema as z.ZodType),
        ...(known.default === undefined ? {} : { default: known.default }),
      },
    };
  });

/** The conditional headers of reads and of writes, with what each means there (API.md 2.1). */
const CONDITIONAL_HEADERS = {
  read: {
    'If-Match':
      'Answer only if this is `*` or lists the current ETag, compared strongly (a weak tag never matches), ' +
      'else 412; evaluated before If-None-Match, and not on a 404 or a 301',
    'If-None-Match':
      'Answer 304 without a body when this names the current ETag (`*`: any); `W/"3"` names "3"',
  },
  write: {
    'If-Match':
      'Apply the change only if this is `*` or lists the current ETag, compared strongly (a weak tag never ' +
      'matches), else 412',
    'If-None-Match':
      'Refuse the change (412) when this is `*` or names the current ETag (`W/"3"` names "3"): the object exists',
  },
  erase: {
    'If-Match':
      'Erase only if this is `*` or lists the current ETag, compared strongly (a weak tag never matches), ' +
      'else 412',
  },
} as const;

/** API.md 5.6: every write takes a key, and its retries are answered once. */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A key of your choosing for this request (a UUID, say) that makes it safe to send again: the same ' +
    'key from the same requester (and authenticated caller) with the same method, path and body within ' +
    '24 hours is answered with the first answer again (status, headers and body, a 4xx refusal too) ' +
    'and writes nothing. The key sent with another method, path or body is 422 ' +
    '`idempotency-key-reused`; while its first request is still running, 409 `request-in-progress` ' +
    'with `Retry-After`. A 5xx is not remembered: a retry runs again. 1 to 255 visible ASCII ' +
    'characters, else 400',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
};

const headerParameters = ({ requester, idempotencyKey, conditional }: OperationDoc) => [
  ...(requester && idempotencyKey !== false ? [IDEMPOTENCY_KEY] : []),
  ...(requester
    ? [
        {
          name: 'x-requester-person',
          in: 'header',
          required: true,
          description:
            requester === 'create'
              ? 'Id of the person making the request (403 when it is no person); 0 when a person registers itself'
              : requester === 'delegate'
                ? 'Id of the existing person making the request (403 when it is no person); 0 is refused ' +
                  '(400). With requester binding on, only a delegate may send this request (else 403 ' +
                  '`delegate-required`), naming any person'
                : 'Id of the existing person making the request (403 when it is no person); 0 is refused (400)',
          schema: requester === 'create' ? { type: 'integer', minimum: 0 } : { type: 'integer', minimum: 1 },
        },
      ]
    : []),
  ...Object.entries(conditional ? CONDITIONAL_HEADERS[conditional] : {}).map(([name, description]) => ({
    name,
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  })),
];

const operation = (route: Route, doc: OperationDoc): OpenApiOperation => {
  const key = `${route.method} ${route.path}`;
  const parameters = [...pathParameters(route.path), ...queryParameters(key, doc), ...headerParameters(doc)];
  return {
    operationId: route.operation,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body
      ? {
          requestBody: {
            required: true,
            description: doc.body.description,
            content: Object.fromEntries(
              JSON_MEDIA_TYPES.map((type) => [
                type,
                {
                  schema: ref(doc.body?.schema as string),
                  examples: { example: { value: doc.body?.example } },
                },
              ]),
            ),
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        doc.success.map((success) => [String(success.status), successResponse(route.operation, success)]),
      ),
      ...problemResponses(doc.problems, route.path.replace(/\{id\}/, '12')),
    },
    ...(route.public ? { security: [] } : {}),
  };
};

/** An example of the checksum, from the code itself, so the description cannot disagree with it. */
const CHECKSUM_EXAMPLE = {
  digits: checksumDigits('2026-11-21T15:04:05.123Z', 30863, 1),
  checksum: recordChecksum('2026-11-21T15:04:05.123Z', 30863, 1),
};

const DESCRIPTION = `The authoritative store of Person records, wire-compatible with the GRC Schema Person API.

- Bodies are JSON (\`application/json\`, or \`application/ld+json\` when \`Accept\` prefers it); every
  resource names its JSON-LD context in \`@context\`, which maps its terms to schema.org.
- Every path also answers with one trailing slash (\`/Person/\` is \`/Person\`, \`/NamePrefix/21/\` is
  \`/NamePrefix/21\`), as GRC's documents write them. Deployed, such a request that API Gateway does not
  route itself (its routes cannot end in \`/\`) is answered with a 308 redirect to the path without the
  slash, which clients repeat with the same method and body.
- Every GET also answers HEAD: the same status and headers, without the body. OPTIONS on a path
  answers 204 with the path's methods in \`Allow\`.
- Errors are RFC 9457 \`application/problem+json\`. A path no route matches is 404; a method a path
  does not allow is 405 with an \`Allow\` header.
- Writes name the requesting person in \`x-requester-person\`; each stored change of a Person, NamePrefix
  or NameSuffix is a ChangeHistory entry, whose id the object's \`CoreMetaData.created_audit_id\` and
  \`modified_audit_id\` name.
- \`CoreMetaData.checksum\` is the Verhoeff check digit (GRC's checksum proposal) of the digits of
  \`date_modified\`, then \`id\`, then \`live_status\`: for \`2026-11-21T15:04:05.123Z\`, id 30863 and live
  status 1, the digits are \`${CHECKSUM_EXAMPLE.digits}\` and the checksum ${CHECKSUM_EXAMPLE.checksum}.
- Deployed, every route but the self-description ones needs AWS IAM (SigV4) authorization.`;

/**
 * The document without `servers`, the same for every request: built once per container, then
 * `withServer` adds the base URL of the request at hand.
 */
export const openApiDocument = (
  routes: readonly Route[] = ROUTES,
  operations: Partial<Record<string, OperationDoc>> = OPERATIONS,
): OpenApiDocument => {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const doc = operations[route.operation];
    if (!doc)
      throw new Error(`The route ${route.method} ${route.path} has no description in lib/docs/operations.ts`);
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route, doc) };
  }

  const usedProblems = new Set(Object.values(operations).flatMap((doc) => doc?.problems ?? []));
  const otherProblems = PROBLEM_TYPE_NAMES.filter((type) => !usedProblems.has(type));
  return {
    openapi: '3.1.1',
    info: {
      title: 'Authority Person Service',
      version: '1.0.0',
      description: DESCRIPTION,
    },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ sigv4: [] }],
    paths,
    components: {
      schemas: {
        ...namedJsonSchemas(RESPONSE_SCHEMAS, 'output', schemaRef),
        ...namedJsonSchemas(REQUEST_SCHEMAS, 'input', schemaRef),
      },
      // Problems no operation answers itself: the router's own (405 for a method a path lacks).
      responses: Object.fromEntries(
        otherProblems.map((type) => [type, problemResponse(PROBLEM_TYPES[type].status, [type], '/Person')]),
      ),
      headers: HEADERS,
      securitySchemes: {
        sigv4: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'AWS Signature Version 4 (IAM authorization of API Gateway)',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
      },
    },
  };
};

/** The document for one request: `servers` names the base URL the request reached the API at. */
export const withServer = (document: OpenApiDocument, baseUrl: string): OpenApiDocument => ({
  ...document,
  servers: [{ url: baseUrl }],
});
