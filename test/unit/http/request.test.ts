import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PersonNotFound } from '../../../lib/domain/errors';
import { CreatePersonBody, LIMITS, PatchPersonBody } from '../../../lib/domain/schemas';
import { httpConfigFromEnv } from '../../../lib/http/config';
import { HttpProblem } from '../../../lib/http/problems';
import {
  bodyOf,
  headerOf,
  linksFor,
  personIdOf,
  providerDataOf,
  requesterOf,
} from '../../../lib/http/request';
import { httpEvent } from '../../support/events';

const thrownBy = (act: () => unknown): unknown => {
  try {
    act();
  } catch (error) {
    return error;
  }
  throw new Error('Expected a throw');
};

const problemTypeOf = (act: () => unknown) => {
  const error = thrownBy(act);
  expect(error).toBeInstanceOf(HttpProblem);
  return (error as HttpProblem).type;
};

const validPerson = {
  '@type': 'Person',
  Names: { '@type': 'Names', '@set': [{ '@type': 'Name', first_name: 'John', last_name: 'Smith' }] },
  Emails: { '@type': 'Emails', '@set': [{ '@type': 'Email', email: 'jsmith@no-reply.org' }] },
};

const post = (body: string | undefined, contentType?: string): APIGatewayProxyEventV2 =>
  httpEvent({
    method: 'POST',
    route: '/Person',
    requester: 5,
    ...(body === undefined ? {} : { body }),
    ...(contentType === undefined ? {} : { headers: { 'content-type': contentType } }),
  });

const withRequester = (value: string) => httpEvent({ method: 'POST', route: '/Person', requester: value });

const withPathId = (id: string) =>
  httpEvent({ method: 'GET', route: '/Person/{id}', path: `/Person/${id}`, pathParameters: { id } });

const withStage = (event: APIGatewayProxyEventV2, stage: string): APIGatewayProxyEventV2 => ({
  ...event,
  requestContext: { ...event.requestContext, stage },
});

/** The field errors of a body refused by the schema. */
const schemaErrorsOf = (body: unknown, schema: z.ZodType = CreatePersonBody) => {
  const error = thrownBy(() => bodyOf(post(JSON.stringify(body), 'application/json'), schema));
  expect(error).toBeInstanceOf(HttpProblem);
  expect((error as HttpProblem).type).toBe('validation-error');
  return (error as HttpProblem).errors;
};

describe('headerOf', () => {
  it('finds a header whatever its case in the event', () => {
    const event = {
      ...httpEvent({ method: 'GET', route: '/Person' }),
      headers: { 'X-Requester-Person': '12' },
    };
    expect(headerOf(event, 'x-requester-person')).toBe('12');
  });

  it('answers undefined for a header that was not sent', () => {
    expect(headerOf(httpEvent({ method: 'GET', route: '/Person' }), 'if-match')).toBeUndefined();
  });
});

describe('requesterOf', () => {
  it.each(['create', 'update'] as const)('refuses a missing header as missing-requester on %s', (rule) => {
    expect(problemTypeOf(() => requesterOf(httpEvent({ method: 'POST', route: '/Person' }), rule))).toBe(
      'missing-requester',
    );
  });

  it.each([
    ['letters', 'abc'],
    ['a negative number', '-1'],
    ['a fraction', '1.5'],
    ['an empty value', ''],
    ['blanks only', '   '],
    ['an exponent', '1e3'],
    ['a hexadecimal number', '0x10'],
    ['a signed number', '+7'],
    ['40 digits', '1'.repeat(40)],
    ['a number past the safe integers', '9007199254740993'],
    ['two values', '12, 13'],
  ])('refuses %s as invalid-requester', (_, value) => {
    expect(problemTypeOf(() => requesterOf(withRequester(value), 'create'))).toBe('invalid-requester');
  });

  it('accepts 0 on create (self-registration)', () => {
    expect(requesterOf(withRequester('0'), 'create')).toBe(0);
  });

  it('refuses 0 on update as invalid-requester', () => {
    expect(problemTypeOf(() => requesterOf(withRequester('0'), 'update'))).toBe('invalid-requester');
  });

  it('reads a person id, surrounding blanks trimmed', () => {
    expect(requesterOf(withRequester(' 12 '), 'update')).toBe(12);
  });

  it('reads the largest safe integer', () => {
    expect(requesterOf(withRequester(String(Number.MAX_SAFE_INTEGER)), 'create')).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});

describe('personIdOf', () => {
  it.each([
    ['a negative number', '-1'],
    ['zero', '0'],
    ['an exponent', '1e3'],
    ['a hexadecimal number', '0x10'],
    ['an encoded dot-dot', '%2e%2e'],
    ['40 digits', '9'.repeat(40)],
    ['letters', 'abc'],
    ['a fraction', '1.5'],
    ['a leading zero', '012'],
    ['a padded number', ' 12'],
    ['an empty id', ''],
  ])('names no person for %s: PersonNotFound', (_, id) => {
    expect(thrownBy(() => personIdOf(withPathId(id)))).toBeInstanceOf(PersonNotFound);
  });

  it('names no person when the path has no id', () => {
    expect(thrownBy(() => personIdOf(httpEvent({ method: 'GET', route: '/Person/{id}' })))).toBeInstanceOf(
      PersonNotFound,
    );
  });

  it('reads a positive integer id', () => {
    expect(personIdOf(withPathId('12'))).toBe(12);
  });
});

describe('bodyOf: media type', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/ld+json',
    'application/ld+json; charset=UTF-8',
    'Application/JSON',
  ])('accepts %s', (contentType) => {
    const body = bodyOf(post(JSON.stringify(validPerson), contentType), CreatePersonBody);
    expect(body.Names['@set']?.[0]?.first_name).toBe('John');
  });

  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/merge-patch+json',
    'application/xml',
  ])('refuses %s as unsupported-media-type', (contentType) => {
    expect(
      problemTypeOf(() => bodyOf(post(JSON.stringify(validPerson), contentType), CreatePersonBody)),
    ).toBe('unsupported-media-type');
  });

  it('refuses a body without a Content-Type as unsupported-media-type', () => {
    expect(problemTypeOf(() => bodyOf(post(JSON.stringify(validPerson)), CreatePersonBody))).toBe(
      'unsupported-media-type',
    );
  });

  it('reads the Content-Type header whatever its case in the event', () => {
    const event = { ...post(JSON.stringify(validPerson)), headers: { 'Content-Type': 'application/json' } };
    expect(bodyOf(event, CreatePersonBody).Names['@set']).toHaveLength(1);
  });

  it('checks the media type before the size and the syntax', () => {
    const event = post(`{${'x'.repeat(LIMITS.bodyBytes)}`, 'text/plain');
    expect(problemTypeOf(() => bodyOf(event, CreatePersonBody))).toBe('unsupported-media-type');
  });
});

describe('bodyOf: size', () => {
  it('refuses a body over 256 KiB as payload-too-large', () => {
    const body = JSON.stringify({ note: 'x'.repeat(LIMITS.bodyBytes) });
    expect(problemTypeOf(() => bodyOf(post(body, 'application/json'), z.unknown()))).toBe(
      'payload-too-large',
    );
  });

  it('accepts a body of exactly 256 KiB', () => {
    const body = JSON.stringify('x'.repeat(LIMITS.bodyBytes - 2));
    expect(Buffer.byteLength(body)).toBe(256 * 1024);
    expect(bodyOf(post(body, 'application/json'), z.string())).toHaveLength(LIMITS.bodyBytes - 2);
  });

  it('counts the limit in bytes, not characters', () => {
    const body = JSON.stringify('é'.repeat(140_000));
    expect(body.length).toBeLessThan(LIMITS.bodyBytes);
    expect(problemTypeOf(() => bodyOf(post(body, 'application/json'), z.string()))).toBe('payload-too-large');
  });

  it('checks the size before the syntax', () => {
    const body = `{${'x'.repeat(LIMITS.bodyBytes)}`;
    expect(problemTypeOf(() => bodyOf(post(body, 'application/json'), z.unknown()))).toBe(
      'payload-too-large',
    );
  });
});

describe('bodyOf: base64', () => {
  const base64 = (text: string, contentType = 'application/json') => ({
    ...post(Buffer.from(text, 'utf8').toString('base64'), contentType),
    isBase64Encoded: true,
  });

  it('decodes a base64-encoded body', () => {
    expect(bodyOf(base64(JSON.stringify(validPerson)), CreatePersonBody).Emails?.['@set']?.[0]?.email).toBe(
      'jsmith@no-reply.org',
    );
  });

  it('decodes multi-byte text in a base64-encoded body', () => {
    const body = { Names: { '@set': [{ first_name: 'José', last_name: 'Müller' }] } };
    expect(bodyOf(base64(JSON.stringify(body)), CreatePersonBody).Names['@set']?.[0]).toMatchObject({
      first_name: 'José',
      last_name: 'Müller',
    });
  });

  it('applies the size limit to the decoded body, not its base64 form', () => {
    const text = JSON.stringify('x'.repeat(200_000));
    const event = base64(text);
    expect(event.body?.length).toBeGreaterThan(LIMITS.bodyBytes);
    expect(bodyOf(event, z.string())).toHaveLength(200_000);
  });
});

describe('bodyOf: syntax', () => {
  it.each([
    ['a truncated object', '{"Names": {'],
    ['a trailing comma', '{"Names": {},}'],
    ['single quotes', "{'Names': {}}"],
    ['an empty body', ''],
  ])('refuses %s as validation-error', (_, body) => {
    expect(problemTypeOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody))).toBe(
      'validation-error',
    );
  });

  it('does not echo the JSON parser message', () => {
    const error = thrownBy(() => bodyOf(post('{"Names": {', 'application/json'), CreatePersonBody));
    expect((error as HttpProblem).detail).not.toMatch(/position|Unexpected|JSON\.parse/);
  });
});

describe('bodyOf: schema', () => {
  it('reports a wrong type with the JSON Pointer of the field', () => {
    expect(schemaErrorsOf({ Names: { '@set': [{ first_name: 42, last_name: 'Smith' }] } })).toEqual([
      { path: '/Names/@set/0/first_name', message: expect.any(String) },
    ]);
  });

  it('reports an invalid email with the JSON Pointer of the field', () => {
    expect(schemaErrorsOf({ ...validPerson, Emails: { '@set': [{}, { email: 'not-an-email' }] } })).toEqual([
      { path: '/Emails/@set/1/email', message: expect.any(String) },
    ]);
  });

  it('reports a missing required container by its path', () => {
    expect(schemaErrorsOf({ Emails: validPerson.Emails })).toEqual([
      { path: '/Names', message: expect.any(String) },
    ]);
  });

  it('reports each unknown key separately, with the key in the path', () => {
    expect(schemaErrorsOf({ ...validPerson, nickname: 'Jo', shoe_size: 44 })).toEqual([
      { path: '/nickname', message: expect.any(String) },
      { path: '/shoe_size', message: expect.any(String) },
    ]);
  });

  it('reports an unknown key inside a sub-object with its full path', () => {
    const body = {
      Names: { '@set': [{ first_name: 'John', last_name: 'Smith', nickname: 'Jo' }] },
    };
    expect(schemaErrorsOf(body)).toEqual([{ path: '/Names/@set/0/nickname', message: expect.any(String) }]);
  });

  it.each([
    ['a slash', 'a/b', '/a~1b'],
    ['a tilde', 'c~d', '/c~0d'],
    ['a tilde before a one', 'e~1', '/e~01'],
    ['both', '~/', '/~0~1'],
  ])('escapes %s in an unknown key per RFC 6901', (_, key, pointer) => {
    expect(schemaErrorsOf({ ...validPerson, [key]: true })).toEqual([
      { path: pointer, message: expect.any(String) },
    ]);
  });

  it('accepts and ignores JSON-LD keywords', () => {
    const body = {
      ...validPerson,
      '@context': 'https://example.org/context.jsonld',
      '@id': 'https://x/Person/1',
    };
    expect(
      bodyOf(post(JSON.stringify(body), 'application/json'), CreatePersonBody).Names['@set'],
    ).toHaveLength(1);
  });

  it.each([
    ['an array', []],
    ['null', null],
    ['a string', 'Person'],
  ])('points at the whole document ("") when the body is %s', (_, body) => {
    expect(schemaErrorsOf(body, PatchPersonBody)).toEqual([{ path: '', message: expect.any(String) }]);
  });
});

describe('linksFor', () => {
  const event = httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/1' });

  it('builds absolute URLs from the host and x-forwarded-proto', () => {
    const http = httpEvent({ method: 'GET', route: '/Person', headers: { 'x-forwarded-proto': 'http' } });
    expect(linksFor(http, {})).toEqual({
      baseUrl: 'http://api.example.test',
      contextUrl: 'http://api.example.test/context.jsonld',
    });
  });

  it('takes the first scheme of a forwarded list', () => {
    const proxied = httpEvent({
      method: 'GET',
      route: '/Person',
      headers: { 'x-forwarded-proto': 'https, http' },
    });
    expect(linksFor(proxied, {}).baseUrl).toBe('https://api.example.test');
  });

  it.each(['javascript', 'data', 'ftp', 'file', 'https:evil', '', 'HTTP ', 'ws'])(
    'takes only http or https from x-forwarded-proto: %j gives https',
    (proto) => {
      const forged = httpEvent({ method: 'GET', route: '/Person', headers: { 'x-forwarded-proto': proto } });
      expect(linksFor(forged, {}).baseUrl).toBe(
        proto.trim().toLowerCase() === 'http' ? 'http://api.example.test' : 'https://api.example.test',
      );
    },
  );

  it('uses the Host header when the request context carries no domain name', () => {
    const local = httpEvent({ method: 'GET', route: '/Person', headers: { host: '127.0.0.1:3000' } });
    const bare = { ...local, requestContext: { ...local.requestContext, domainName: '' } };
    expect(linksFor(bare, {}).baseUrl).toBe('https://127.0.0.1:3000');
  });

  it('appends a named stage', () => {
    expect(linksFor(withStage(event, 'prod'), {})).toEqual({
      baseUrl: 'https://api.example.test/prod',
      contextUrl: 'https://api.example.test/prod/context.jsonld',
    });
  });

  it('does not append the $default stage', () => {
    expect(linksFor(withStage(event, '$default'), {}).baseUrl).toBe('https://api.example.test');
  });

  it('takes PUBLIC_BASE_URL over the request, stage included, for links and context', () => {
    const config = httpConfigFromEnv({ PUBLIC_BASE_URL: 'https://people.example.org/v1' });
    expect(linksFor(withStage(event, 'prod'), config)).toEqual({
      baseUrl: 'https://people.example.org/v1',
      contextUrl: 'https://people.example.org/v1/context.jsonld',
    });
  });

  it('drops trailing slashes from PUBLIC_BASE_URL', () => {
    const config = httpConfigFromEnv({ PUBLIC_BASE_URL: 'https://people.example.org/' });
    expect(linksFor(event, config).baseUrl).toBe('https://people.example.org');
  });

  it('takes SCHEMA_CONTEXT_URL as the context and keeps the base URL from the request', () => {
    const config = httpConfigFromEnv({ SCHEMA_CONTEXT_URL: 'https://schema.example.org/person.jsonld' });
    expect(linksFor(withStage(event, 'prod'), config)).toEqual({
      baseUrl: 'https://api.example.test/prod',
      contextUrl: 'https://schema.example.org/person.jsonld',
    });
  });

  it('reads no overrides from an environment that sets none', () => {
    expect(httpConfigFromEnv({})).toEqual({});
    expect(httpConfigFromEnv({ PUBLIC_BASE_URL: '', SCHEMA_CONTEXT_URL: '' })).toEqual({});
  });
});

describe('providerDataOf', () => {
  const withAuthorizer = (authorizer: unknown, headers: Record<string, string> = {}) => {
    const event = httpEvent({ method: 'POST', route: '/Person', headers });
    return { ...event, requestContext: { ...event.requestContext, authorizer } } as APIGatewayProxyEventV2;
  };

  it('names the IAM principal that signed the request', () => {
    const arn = 'arn:aws:sts::123456789012:assumed-role/importer/session';
    const event = withAuthorizer({ iam: { userArn: arn, accessKey: 'AKIAEXAMPLE' } });
    expect(providerDataOf(event)).toEqual({
      request_id: event.requestContext.requestId,
      user_agent: 'vitest',
      caller: arn,
    });
  });

  it('names the subject of a JWT the authorizer accepted, and nothing else of its claims', () => {
    const event = withAuthorizer({ jwt: { claims: { sub: 'user-42', email: 'a@b.c' }, scopes: ['x'] } });
    expect(providerDataOf(event).caller).toBe('user-42');
  });

  it('names no caller without an authorizer, and never reads cookies or authorization headers', () => {
    const event = withAuthorizer(undefined, {
      authorization: 'Bearer secret-token',
      cookie: 'session=secret-cookie',
    });
    const data = providerDataOf(event);
    expect(data.caller).toBeNull();
    expect(JSON.stringify(data)).not.toMatch(/secret/);
  });

  it('keeps at most 512 characters of the user agent', () => {
    const event = httpEvent({ method: 'POST', route: '/Person' });
    const long = {
      ...event,
      requestContext: {
        ...event.requestContext,
        http: { ...event.requestContext.http, userAgent: 'u'.repeat(2_000) },
      },
    };
    expect(providerDataOf(long).user_agent).toHaveLength(512);
  });
});
