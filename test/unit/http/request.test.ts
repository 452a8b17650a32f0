import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PersonNotFound } from '../../../lib/domain/errors';
import {
  ChangeHistoryQuery,
  ListPersonsQuery,
  listQuery,
  PageQuery,
  vocabularyListQuery,
} from '../../../lib/domain/listing';
import { CreatePersonBody, LIMITS, NAME_REQUIRED, PatchPersonBody } from '../../../lib/domain/schemas';
import { httpConfigFromEnv } from '../../../lib/http/config';
import { HttpProblem } from '../../../lib/http/problems';
import {
  bodyOf,
  headerOf,
  linksFor,
  originOf,
  personIdOf,
  queryOf,
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

const patch = (body: string, contentType = 'application/json'): APIGatewayProxyEventV2 =>
  httpEvent({
    method: 'PATCH',
    route: '/Person/{id}',
    path: '/Person/1',
    pathParameters: { id: '1' },
    requester: 5,
    body,
    headers: { 'content-type': contentType },
  });

/** An event whose body is these bytes, base64-encoded as API Gateway sends a binary body. */
const withBytes = (bytes: Buffer, contentType = 'application/json'): APIGatewayProxyEventV2 => ({
  ...post(bytes.toString('base64'), contentType),
  isBase64Encoded: true,
});

/** The problem a refused body raises. */
const problemOf = (act: () => unknown): HttpProblem => {
  const error = thrownBy(act);
  expect(error).toBeInstanceOf(HttpProblem);
  return error as HttpProblem;
};

/** zod's own words, which no refusal may show a client (API.md 2.1). */
const VALIDATOR_WORDS = /Invalid input|expected \w+, received|Unrecognized key|Too (big|small)/;

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

  it.each(['update', 'delegate'] as const)('refuses 0 on %s as invalid-requester', (rule) => {
    expect(problemTypeOf(() => requesterOf(withRequester('0'), rule))).toBe('invalid-requester');
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

describe('bodyOf: encoding', () => {
  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const person = (firstName: Buffer) =>
    Buffer.concat([
      utf8('{"Names": {"@set": [{"first_name": "'),
      firstName,
      utf8('", "last_name": "Smith"}]}}'),
    ]);

  it.each([
    ['bytes that are no UTF-8 at all (FF FE)', Buffer.from([0x42, 0x61, 0x64, 0xff, 0xfe])],
    ['a lead byte without its continuation (C3 then a quote)', Buffer.from([0x42, 0xc3])],
    ['an overlong encoding of "/" (C0 AF)', Buffer.from([0xc0, 0xaf])],
    ['an encoded surrogate (ED A0 80)', Buffer.from([0xed, 0xa0, 0x80])],
    ['a code point past U+10FFFF (F4 90 80 80)', Buffer.from([0xf4, 0x90, 0x80, 0x80])],
    ['a lone continuation byte (80)', Buffer.from([0x80])],
  ])('refuses %s in a base64 body as validation-error, never reading it with U+FFFD', (_, bad) => {
    const problem = problemOf(() => bodyOf(withBytes(person(bad)), CreatePersonBody));

    expect(problem.type).toBe('validation-error');
    expect(problem.detail).toBe('The body is not valid UTF-8: send JSON text encoded as UTF-8');
  });

  it('refuses a body that ends inside a multi-byte character', () => {
    const cut = utf8('{"Names": {"@set": [{"freeform_name": "€"}]}}').subarray(0, 40);
    expect(problemOf(() => bodyOf(withBytes(cut), CreatePersonBody)).detail).toMatch(/not valid UTF-8/);
  });

  it('refuses a string body holding a lone surrogate, which no UTF-8 encodes', () => {
    const body = '{"Names": {"@set": [{"first_name": "Bad\ud800", "last_name": "Smith"}]}}';
    expect(problemOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody)).detail).toMatch(
      /not valid UTF-8/,
    );
  });

  it('still takes a lone surrogate written as a JSON escape to the schema, which refuses it there', () => {
    const body = '{"Names": {"@set": [{"first_name": "Bad\\ud800", "last_name": "Smith"}]}}';
    expect(schemaErrorsOf(JSON.parse(body))).toEqual([
      { path: '/Names/@set/0/first_name', message: 'Not well-formed Unicode (a lone surrogate)' },
    ]);
    expect(problemOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody)).errors).toHaveLength(1);
  });

  it('reads valid multi-byte UTF-8 (2, 3 and 4 bytes) from the bytes as sent', () => {
    const body = bodyOf(withBytes(person(utf8('Zoë 李 𝄞'))), CreatePersonBody);
    expect(body.Names['@set']?.[0]?.first_name).toBe('Zoë 李 𝄞');
  });

  it('keeps U+FFFD that a client sent on purpose', () => {
    const body = bodyOf(withBytes(person(utf8('\ufffd'))), CreatePersonBody);
    expect(body.Names['@set']?.[0]?.first_name).toBe('\ufffd');
  });

  it.each([
    [
      'a base64 body',
      withBytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(JSON.stringify(validPerson))])),
    ],
    ['a string body', post(`\ufeff${JSON.stringify(validPerson)}`, 'application/json')],
  ])('drops one leading byte order mark in %s (RFC 8259 8.1)', (_, event) => {
    expect(bodyOf(event, CreatePersonBody).Names['@set']).toHaveLength(1);
  });

  it('reads a second byte order mark as text, which is not JSON', () => {
    const event = post(`\ufeff\ufeff${JSON.stringify(validPerson)}`, 'application/json');
    expect(problemOf(() => bodyOf(event, CreatePersonBody)).detail).toBe('The body is not valid JSON');
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

  it.each([
    ['an empty body', ''],
    ['blanks only', '   '],
    ['line breaks and tabs only', '\r\n\t \n'],
    ['a byte order mark only', '\ufeff'],
  ])('says the body is empty for %s', (_, body) => {
    expect(problemOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody)).detail).toBe(
      'The body is empty: send a JSON object',
    );
  });

  it('says the body is empty for a PATCH without one, and for an empty base64 body', () => {
    expect(problemOf(() => bodyOf(patch(''), PatchPersonBody)).detail).toBe(
      'The body is empty: send a JSON object',
    );
    expect(problemOf(() => bodyOf(withBytes(Buffer.alloc(0)), PatchPersonBody)).detail).toBe(
      'The body is empty: send a JSON object',
    );
  });

  it.each([
    ['a truncated object', '{"Names": {', 'The body is not valid JSON at line 1, column 12'],
    ['a trailing comma on the second line', '{"a": 1,\n}', 'The body is not valid JSON at line 2, column 1'],
    ['text after the value', '{"a": 1} x', 'The body is not valid JSON at line 1, column 10'],
    ['a control character in a string', '{"a": "b\u0000"}', 'The body is not valid JSON at line 1, column 9'],
    [
      'an unfinished value',
      '{"a": ',
      'The body is not valid JSON: it ends before the JSON value is complete',
    ],
    ['a trailing comma in an array (no position given)', '[1,]', 'The body is not valid JSON'],
  ])('says where the JSON breaks, when the parser knows: %s', (_, body, detail) => {
    expect(problemOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody)).detail).toBe(detail);
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

describe("bodyOf: media types in the contract's words", () => {
  const accepted = /application\/json or application\/ld\+json/;

  it.each([
    ['application/json-patch+json', /does not take JSON Patch: send the changed object itself/],
    ['application/merge-patch+json', /does not take JSON Merge Patch: send the changed object itself/],
    ['text/plain', /^Send the body as application\/json or application\/ld\+json$/],
    ['application/xml', /^Send the body as /],
    ['application/x-www-form-urlencoded', /^Send the body as /],
  ])('answers %s with 415 naming the accepted media types', (contentType, detail) => {
    const problem = problemOf(() =>
      bodyOf(patch('{"local_reference_id": "x"}', contentType), PatchPersonBody),
    );

    expect(problem.type).toBe('unsupported-media-type');
    expect(problem.detail).toMatch(detail);
    expect(problem.detail).toMatch(accepted);
  });

  it('answers a body without a Content-Type with the media types to send it with', () => {
    expect(problemOf(() => bodyOf(post(JSON.stringify(validPerson)), CreatePersonBody)).detail).toBe(
      'Send the body with Content-Type application/json or application/ld+json',
    );
  });

  it('says Accept-Patch on the 415 of a PATCH (RFC 5789 2.2), not on that of a POST', () => {
    const patched = problemOf(() => bodyOf(patch('{}', 'application/json-patch+json'), PatchPersonBody));
    const posted = problemOf(() => bodyOf(post('{}', 'application/json-patch+json'), CreatePersonBody));

    expect(patched.headers).toEqual({ 'Accept-Patch': 'application/json, application/ld+json' });
    expect(posted.headers).toEqual({});
  });
});

describe('bodyOf: a JSON Patch document sent as JSON', () => {
  const operations = [
    [{ op: 'replace', path: '/Emails/@set/0/email', value: 'new@example.org' }],
    [
      { op: 'add', path: '/Emails/@set/-', value: { email: 'a@example.org' } },
      { op: 'remove', path: '/PhoneNumbers/@set/0' },
      { op: 'test', path: '/id', value: 1 },
    ],
  ];

  it.each(operations)('says this API takes the changed object, not JSON Patch: %j', (...document) => {
    const problem = problemOf(() => bodyOf(patch(JSON.stringify(document)), PatchPersonBody));

    expect(problem.type).toBe('validation-error');
    expect(problem.detail).toMatch(/does not take JSON Patch/);
    expect(problem.detail).toContain('{"Emails": {"@set": [ ... ]}}');
    expect(problem.detail).not.toMatch(VALIDATOR_WORDS);
  });

  it('says the same to a POST', () => {
    const body = JSON.stringify([{ op: 'add', path: '/Names', value: {} }]);
    expect(problemOf(() => bodyOf(post(body, 'application/json'), CreatePersonBody)).detail).toMatch(
      /does not take JSON Patch/,
    );
  });
});

describe('bodyOf: a body that is JSON but not an object', () => {
  it.each([
    ['an empty array', '[]', 'an array'],
    ['an array that is not JSON Patch', '[{"op": "replace"}]', 'an array'],
    ['an array of names', '[{"first_name": "Ada"}]', 'an array'],
    ['a string', '"Person"', 'a string'],
    ['a number', '42', 'the number 42'],
    ['null', 'null', 'null'],
    ['true', 'true', 'true'],
  ])('says a JSON object is expected for %s', (_, body, kind) => {
    const problem = problemOf(() => bodyOf(patch(body), PatchPersonBody));

    expect(problem.detail).toBe(`Expected a JSON object, not ${kind}`);
    expect(problem.errors).toEqual([{ path: '', message: `Expected a JSON object, not ${kind}` }]);
  });
});

describe('bodyOf: schema messages speak the contract, not the validator', () => {
  const john = { first_name: 'John', last_name: 'Smith' };
  const withSet = (set: string, value: unknown) =>
    ['PersonOrganizations', 'PersonGroups', 'PersonInitiatives', 'PersonTeams'].includes(set)
      ? { Names: { '@set': [john] }, PersonMemberships: { [set]: value } }
      : { Names: { '@set': [john] }, [set]: value };
  const pointer = (set: string) =>
    ['PersonOrganizations', 'PersonGroups', 'PersonInitiatives', 'PersonTeams'].includes(set)
      ? `/PersonMemberships/${set}`
      : `/${set}`;
  const SETS = [
    'Emails',
    'PhoneNumbers',
    'PersonRoles',
    'PostalAddresses',
    'PersonOrganizations',
    'PersonGroups',
    'PersonInitiatives',
    'PersonTeams',
  ];

  it.each(SETS.flatMap((set) => [[set, [{}], 'an array'] as const, [set, 'x', 'a string'] as const]))(
    'says %s takes {"@set": [...]} when sent %j',
    (set, value, kind) => {
      expect(schemaErrorsOf(withSet(set, value))).toEqual([
        { path: pointer(set), message: `${set} takes {"@type": "${set}", "@set": [ ... ]}, not ${kind}` },
      ]);
    },
  );

  it.each([
    ['an array', [john], 'an array'],
    ['null', null, 'null'],
    ['a string', 'John Smith', 'a string'],
  ])('says Names takes {"@set": [...]} when sent %s, on POST and PATCH', (_, value, kind) => {
    const message = `Names takes {"@type": "Names", "@set": [ ... ]}, not ${kind}`;
    expect(schemaErrorsOf({ Names: value })).toEqual([{ path: '/Names', message }]);
    expect(schemaErrorsOf({ Names: value }, PatchPersonBody)).toEqual([{ path: '/Names', message }]);
  });

  it.each([
    ['an object', { 0: john }, 'an object'],
    ['a string', 'John Smith', 'a string'],
  ])('says @set takes an array when sent %s', (_, value, kind) => {
    expect(schemaErrorsOf({ Names: { '@set': value } })).toEqual([
      {
        path: '/Names/@set',
        message: `@set takes an array, as in {"@type": "Names", "@set": [ ... ]}, not ${kind}`,
      },
    ]);
  });

  it.each([
    [
      'SocialAddresses',
      { SocialAddresses: [] },
      '/SocialAddresses',
      /^SocialAddresses takes \{"@type": "SocialAddresses", "twitter"/,
    ],
    [
      'PersonMemberships',
      { PersonMemberships: [] },
      '/PersonMemberships',
      /^PersonMemberships takes \{"@type": "PersonMemberships", "PersonOrganizations"/,
    ],
    [
      'CoreMetaData',
      { CoreMetaData: 'x' },
      '/CoreMetaData',
      /^CoreMetaData takes \{"@type": "CoreMetaData", \.\.\.\} as GET shows it, not a string$/,
    ],
    [
      'an item',
      { Names: { '@set': ['John Smith'] } },
      '/Names/@set/0',
      /^Each item of Names is a Name object \(\{"@type": "Name", \.\.\.\}\), not a string$/,
    ],
  ])('says what %s takes when sent something else', (_, body, path, message) => {
    expect(schemaErrorsOf({ Names: { '@set': [john] }, ...body })).toEqual([
      { path, message: expect.stringMatching(message) },
    ]);
  });

  it.each([
    ['an empty object', {}],
    ['only other containers', { Emails: { '@set': [{ email: 'a@example.org' }] } }],
  ])('says a Person needs at least one Name when a POST sends %s, at /Names', (_, body) => {
    expect(schemaErrorsOf(body)).toEqual([{ path: '/Names', message: NAME_REQUIRED }]);
    expect(NAME_REQUIRED).toMatch(/at least one Name: first_name and last_name, or freeform_name/);
  });

  it.each([
    ['a number as first_name', { first_name: 42 }, 'first_name', 'Expected a string, not the number 42'],
    ['true as last_name', { last_name: true }, 'last_name', 'Expected a string, not true'],
    [
      'an object as freeform_name',
      { freeform_name: {} },
      'freeform_name',
      'Expected a string, not an object',
    ],
    [
      'a string as primary',
      { primary: 'yes' },
      'primary',
      'primary must be true, false, 1, 0, or an alias type (2 or 3)',
    ],
    ['a string as id', { id: '12' }, 'id', 'Expected an integer, not a string'],
    ['a fraction as id', { id: 1.5 }, 'id', 'Expected an integer, not the number 1.5'],
    ['zero as id', { id: 0 }, 'id', 'Must be a positive integer'],
    [
      'a string as name_prefix_fk',
      { name_prefix_fk: '3' },
      'name_prefix_fk',
      'Expected an integer, not a string',
    ],
    ['201 characters', { first_name: 'x'.repeat(201) }, 'first_name', 'At most 200 characters'],
    ['another @type', { '@type': 'Email' }, '@type', 'Must be "Name"'],
    [
      'a number as local_reference_id',
      { local_reference_id: 7 },
      'local_reference_id',
      'Expected a string, not the number 7',
    ],
  ])('words %s plainly', (_, change, field, message) => {
    expect(schemaErrorsOf({ Names: { '@set': [{ ...john, ...change }] } })).toEqual([
      { path: `/Names/@set/0/${field}`, message },
    ]);
  });

  it.each([
    [
      'Emails',
      { Emails: { '@set': [{ email: 'a@example.org', primary: 'true' }] } },
      '/Emails/@set/0/primary',
      'primary must be true, false, 1 or 0',
    ],
    [
      'SocialAddresses',
      { SocialAddresses: { twitter: 1 } },
      '/SocialAddresses/twitter',
      'Expected a string, not the number 1',
    ],
    [
      'PersonInitiatives',
      { PersonMemberships: { PersonInitiatives: { '@set': [{ initiative: true }] } } },
      '/PersonMemberships/PersonInitiatives/@set/0/initiative',
      'Expected the id of an initiative (a positive integer) or its name (a string)',
    ],
    ['the Person', { '@type': 'Organization' }, '/@type', 'Must be "Person"'],
    ['a container', { Emails: { '@type': 'Names' } }, '/Emails/@type', 'Must be "Emails"'],
    [
      'Names over the limit',
      { Names: { '@set': Array.from({ length: 21 }, () => john) } },
      '/Names/@set',
      'A person has at most 20 Names',
    ],
  ])('words a wrong value in %s plainly', (_, body, path, message) => {
    expect(schemaErrorsOf({ Names: { '@set': [john] }, ...body })).toEqual([{ path, message }]);
  });

  it('keeps "Unknown property" with the JSON Pointer of each unknown key (API.md 5.2)', () => {
    expect(schemaErrorsOf({ Names: { '@set': [{ ...john, nick: 'J' }] }, shoe_size: 44 })).toEqual([
      { path: '/Names/@set/0/nick', message: 'Unknown property' },
      { path: '/shoe_size', message: 'Unknown property' },
    ]);
  });

  it('shows no validator wording in any of these refusals', () => {
    const bodies = [
      { Names: [john] },
      {},
      { Names: { '@set': {} } },
      { Names: { '@set': [1] } },
      { Names: { '@set': [{ ...john, id: 'x', primary: [] }] }, Emails: 'x', SocialAddresses: 1 },
      { Names: { '@set': [john] }, PersonMemberships: { PersonTeams: { '@set': [{ team_fk: -1 }] } } },
    ];
    for (const body of bodies)
      for (const { message } of schemaErrorsOf(body)) expect(message).not.toMatch(VALIDATOR_WORDS);
  });
});

describe('queryOf: unknown query parameters name the ones the route accepts', () => {
  const list = (query: Record<string, string>) => httpEvent({ method: 'GET', route: '/Person', query });
  const errorsOf = (query: Record<string, string>, schema: z.ZodType) => {
    const problem = problemOf(() => queryOf(list(query), schema));
    expect(problem.type).toBe('validation-error');
    return problem.errors;
  };

  it('answers GET /Person?firstname=ada with the parameters of GET /Person', () => {
    const [error] = errorsOf({ firstname: 'ada' }, ListPersonsQuery);

    expect(error).toEqual({
      path: '/firstname',
      message: `firstname is not a query parameter of this route; it accepts ${Object.keys(ListPersonsQuery.shape).join(', ')}`,
    });
    expect(error?.message).toContain('first_name, last_name, email, search');
    expect(error?.message).toMatch(/sort_dir, limit, offset, page, perPage$/);
  });

  it.each([
    [
      'GET /Person',
      ListPersonsQuery,
      'first_name, last_name, email, search, local_reference_id, sort_dir, limit, offset, page, perPage',
    ],
    ['GET /ChangeHistory', ChangeHistoryQuery, 'endpoint, object_id, sort_dir, limit, offset, page, perPage'],
    [
      'GET /NamePrefix',
      vocabularyListQuery('NamePrefix'),
      'prefix, abbreviation, search, sort_dir, limit, offset, page, perPage',
    ],
    [
      'GET /NameSuffix',
      vocabularyListQuery('NameSuffix'),
      'suffix, abbreviation, search, sort_dir, limit, offset, page, perPage',
    ],
    ['GET /Prefix and the other paged lists', PageQuery, 'page, perPage'],
  ])('names the parameters of %s', (_, schema, accepted) => {
    expect(errorsOf({ per_page: '5' }, schema)).toEqual([
      {
        path: '/per_page',
        message: `per_page is not a query parameter of this route; it accepts ${accepted}`,
      },
    ]);
  });

  it('reads the accepted parameters from the schema: a parameter added to a route is named', () => {
    const [error] = errorsOf({ nope: '1' }, listQuery({ added_here: z.string().optional() }));
    expect(error?.message).toBe(
      'nope is not a query parameter of this route; it accepts added_here, sort_dir, limit, offset, page, perPage',
    );
  });

  it('names every unknown parameter, each at its own path', () => {
    const message = 'firstname and lastname are not query parameters of this route; it accepts page, perPage';
    expect(errorsOf({ firstname: 'a', lastname: 'b' }, PageQuery)).toEqual([
      { path: '/firstname', message },
      { path: '/lastname', message },
    ]);
  });

  it.each([
    ['limit=x', { limit: 'x' }, '/limit', 'Must be a whole number'],
    ['limit=501', { limit: '501' }, '/limit', 'Must be at most 500'],
    ['page=0', { page: '0' }, '/page', 'Must be at least 1'],
    ['sort_dir=2', { sort_dir: '2' }, '/sort_dir', 'Must be 1 (ascending) or 0 (descending)'],
  ])('words a bad value plainly: %s', (_, query, path, message) => {
    expect(errorsOf(query, ListPersonsQuery)).toEqual([{ path, message }]);
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

describe('originOf', () => {
  const withAuthorizer = (authorizer: unknown, headers: Record<string, string> = {}) => {
    const event = httpEvent({ method: 'POST', route: '/Person', headers });
    return { ...event, requestContext: { ...event.requestContext, authorizer } } as APIGatewayProxyEventV2;
  };

  it('names the IAM principal that signed the request', () => {
    const arn = 'arn:aws:sts::123456789012:assumed-role/importer/session';
    const event = withAuthorizer({ iam: { userArn: arn, accessKey: 'AKIAEXAMPLE' } });
    expect(originOf(event)).toEqual({
      request_id: event.requestContext.requestId,
      user_agent: 'vitest',
      caller: arn,
    });
  });

  it('names the subject of a JWT the authorizer accepted, and nothing else of its claims', () => {
    const event = withAuthorizer({ jwt: { claims: { sub: 'user-42', email: 'a@b.c' }, scopes: ['x'] } });
    expect(originOf(event).caller).toBe('user-42');
  });

  it('names no caller without an authorizer, and never reads cookies or authorization headers', () => {
    const event = withAuthorizer(undefined, {
      authorization: 'Bearer secret-token',
      cookie: 'session=secret-cookie',
    });
    const origin = originOf(event);
    expect(origin.caller).toBeNull();
    expect(JSON.stringify(origin)).not.toMatch(/secret/);
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
    expect(originOf(long).user_agent).toHaveLength(512);
  });
});
