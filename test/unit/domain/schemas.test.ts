import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CreatePersonBody,
  kindOf,
  LIMITS,
  NAME_REQUIRED,
  PatchPersonBody,
  SET_NAMES,
  setPointer,
  wireErrors,
} from '../../../lib/domain/schemas';
import { answeredName, JOHN_SMITH, JOHN_SMITH_NAME, NO_SOCIAL_ADDRESSES } from '../../support/persons';

type Body = Record<string, unknown>;

const john = { '@type': 'Name', ...JOHN_SMITH_NAME };
const minimal = (extra: Body = {}): Body => ({ Names: { '@type': 'Names', '@set': [john] }, ...extra });

/** The full Person of API.md 3, as a client gets it from GET and sends it back in a PATCH. */
const fullPerson = {
  '@context': 'http://127.0.0.1:3000/context.jsonld',
  '@type': 'Person',
  '@id': 'http://127.0.0.1:3000/Person/30863',
  id: 30863,
  fullname: JOHN_SMITH.fullname,
  email: JOHN_SMITH.email,
  local_reference_id: JOHN_SMITH.local_reference_id,
  Names: {
    '@type': 'Names',
    '@set': [answeredName(30863, { ...JOHN_SMITH_NAME, id: 689, local_reference_id: 'name-1' })],
  },
  Emails: {
    '@type': 'Emails',
    '@set': [
      {
        '@type': 'Email',
        id: 610,
        email: 'jsmith@no-reply.org',
        primary: true,
        person_fk: 30863,
        local_reference_id: null,
      },
    ],
  },
  PhoneNumbers: {
    '@type': 'PhoneNumbers',
    '@set': [
      {
        '@type': 'PhoneNumber',
        id: null,
        phone_number: null,
        primary: null,
        person_fk: null,
        local_reference_id: null,
      },
    ],
  },
  PersonRoles: {
    '@type': 'PersonRoles',
    '@set': [
      {
        '@type': 'PersonRole',
        id: null,
        name: null,
        role_fk: null,
        person_fk: null,
        local_reference_id: null,
      },
    ],
  },
  PostalAddresses: {
    '@type': 'PostalAddresses',
    '@set': [
      {
        '@type': 'PostalAddress',
        id: null,
        address1: null,
        address2: null,
        city: null,
        state_territory_province: null,
        postal_code: null,
        country: null,
        country_code: null,
        primary: null,
        person_fk: null,
        local_reference_id: null,
      },
    ],
  },
  SocialAddresses: NO_SOCIAL_ADDRESSES,
  CoreMetaData: {
    '@type': 'CoreMetaData',
    date_created: '2026-11-21T15:04:05.123Z',
    date_modified: '2026-11-21T15:04:05.123Z',
    created_by: 30863,
    modified_by: null,
    version: 1,
  },
};

const schemas = [
  ['CreatePersonBody', CreatePersonBody],
  ['PatchPersonBody', PatchPersonBody],
] as const;

const issuesOf = (result: z.ZodSafeParseResult<unknown>) => result.error?.issues ?? [];

const expectRejected = (result: z.ZodSafeParseResult<unknown>, path: (string | number)[]) => {
  expect(result.success).toBe(false);
  expect(issuesOf(result).map((issue) => issue.path)).toContainEqual(path);
};

/** A valid body whose `set` holds one item with the given properties (beside a valid Name). */
const withItem = (set: string, item: Body): Body =>
  set === 'Names' ? { Names: { '@set': [{ ...john, ...item }] } } : minimal({ [set]: { '@set': [item] } });

const sampleItem = (set: string, index: number): Body => {
  switch (set) {
    case 'Names':
      return { first_name: `First${index}`, last_name: 'Smith' };
    case 'Emails':
      return { email: `person${index}@example.org` };
    case 'PhoneNumbers':
      return { phone_number: `+1 555 ${String(index).padStart(4, '0')}` };
    case 'PersonRoles':
      return { name: `Role ${index}` };
    default:
      return { city: `City ${index}` };
  }
};

const withItems = (set: string, count: number): Body => {
  const items = Array.from({ length: count }, (_, index) => sampleItem(set, index));
  return set === 'Names' ? { Names: { '@set': items } } : minimal({ [set]: { '@set': items } });
};

describe.each(schemas)('%s', (_, schema) => {
  it('accepts the full Person as GET returns it', () => {
    const result = schema.safeParse(fullPerson);
    expect(issuesOf(result)).toEqual([]);
  });

  it('accepts a body of one structured Name', () => {
    expect(schema.safeParse(minimal()).success).toBe(true);
  });

  it('accepts a freeform Name', () => {
    expect(schema.safeParse({ Names: { '@set': [{ freeform_name: 'Cher' }] } }).success).toBe(true);
  });

  it.each([
    ['the root', minimal({ nickname: 'Jo' }), [], 'nickname'],
    ['a Name', { Names: { '@set': [{ ...john, nickname: 'Jo' }] } }, ['Names', '@set', 0], 'nickname'],
    [
      'the second Email',
      minimal({
        Emails: { '@set': [{ email: 'a@example.org' }, { email: 'b@example.org', verified: true }] },
      }),
      ['Emails', '@set', 1],
      'verified',
    ],
    [
      'a PhoneNumber',
      minimal({ PhoneNumbers: { '@set': [{ phone_number: '1', ext: '2' }] } }),
      ['PhoneNumbers', '@set', 0],
      'ext',
    ],
    [
      'a PersonRole',
      minimal({ PersonRoles: { '@set': [{ name: 'Chair', since: 2020 }] } }),
      ['PersonRoles', '@set', 0],
      'since',
    ],
    [
      'a PostalAddress',
      minimal({ PostalAddresses: { '@set': [{ city: 'Bern', zip: '3000' }] } }),
      ['PostalAddresses', '@set', 0],
      'zip',
    ],
    [
      'SocialAddresses',
      minimal({ SocialAddresses: { instagram: 'jsmith' } }),
      ['SocialAddresses'],
      'instagram',
    ],
    ['CoreMetaData', minimal({ CoreMetaData: { etag: '"1"' } }), ['CoreMetaData'], 'etag'],
    ['a container', minimal({ Emails: { '@set': [], items: [] } }), ['Emails'], 'items'],
  ])('rejects an unknown key in %s, naming the key and its path', (_, body, path, key) => {
    const result = schema.safeParse(body);
    expect(result.success).toBe(false);
    expect(issuesOf(result)).toContainEqual(
      expect.objectContaining({ code: 'unrecognized_keys', keys: [key], path }),
    );
  });

  it.each([
    'Names',
    'Emails',
    'PhoneNumbers',
    'PersonRoles',
    'PostalAddresses',
    'SocialAddresses',
    'CoreMetaData',
  ])('rejects local_reference_id on the %s container', (container) => {
    const body =
      container === 'Names'
        ? { Names: { '@set': [john], local_reference_id: 'x' } }
        : minimal({ [container]: { local_reference_id: 'x' } });
    const result = schema.safeParse(body);
    expect(issuesOf(result)).toContainEqual(
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['local_reference_id'], path: [container] }),
    );
  });

  it('accepts local_reference_id on the Person and on items', () => {
    const body = minimal({
      local_reference_id: 'person-1',
      Emails: { '@set': [{ email: 'a@example.org', local_reference_id: 'email-1' }] },
    });
    expect(schema.safeParse(body).success).toBe(true);
  });

  it('accepts JSON-LD keywords at the root, on containers and on items', () => {
    const body = {
      '@context': 'https://example.org/context.jsonld',
      '@id': 'https://example.org/Person/1',
      '@type': 'Person',
      Names: { '@type': 'Names', '@id': '_:names', '@set': [{ ...john, '@id': '_:n1', '@context': {} }] },
      Emails: { '@set': [{ '@type': 'Email', '@id': '_:e1', email: 'a@example.org' }] },
      SocialAddresses: { '@id': '_:social', twitter: 'https://x.com/jsmith' },
    };
    expect(issuesOf(schema.safeParse(body))).toEqual([]);
  });

  it.each([
    ['the Person', { ...minimal(), '@type': 'Organization' }, ['@type']],
    ['a container', { Names: { '@type': 'Emails', '@set': [john] } }, ['Names', '@type']],
    ['an item', { Names: { '@set': [{ ...john, '@type': 'Email' }] } }, ['Names', '@set', 0, '@type']],
  ])('rejects a wrong @type on %s', (_, body, path) => {
    expectRejected(schema.safeParse(body), path);
  });

  it('rejects a __proto__ key as an unknown key', () => {
    const atRoot = JSON.parse(
      '{"Names":{"@set":[{"first_name":"John","last_name":"Smith"}]},"__proto__":{"x":1}}',
    );
    const inItem = JSON.parse(
      '{"Names":{"@set":[{"first_name":"John","last_name":"Smith","__proto__":{"x":1}}]}}',
    );
    expect(issuesOf(schema.safeParse(atRoot))).toContainEqual(
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['__proto__'], path: [] }),
    );
    expect(issuesOf(schema.safeParse(inItem))).toContainEqual(
      expect.objectContaining({ code: 'unrecognized_keys', keys: ['__proto__'], path: ['Names', '@set', 0] }),
    );
  });

  it.each([
    ['Names', 'first_name'],
    ['Names', 'last_name'],
    ['Names', 'middle_initial'],
    ['Names', 'freeform_name'],
    ['PhoneNumbers', 'phone_number'],
    ['PersonRoles', 'name'],
    ['PostalAddresses', 'address1'],
    ['PostalAddresses', 'address2'],
    ['PostalAddresses', 'city'],
    ['PostalAddresses', 'state_territory_province'],
    ['PostalAddresses', 'postal_code'],
    ['PostalAddresses', 'country'],
    ['PostalAddresses', 'country_code'],
  ])(`limits %s %s to ${LIMITS.text} characters`, (set, field) => {
    expect(schema.safeParse(withItem(set, { [field]: 'x'.repeat(200) })).success).toBe(true);
    expectRejected(schema.safeParse(withItem(set, { [field]: 'x'.repeat(201) })), [set, '@set', 0, field]);
  });

  it.each(['twitter', 'facebook', 'linkedin', 'youtube'])(
    'limits SocialAddresses %s to 200 characters',
    (field) => {
      expect(schema.safeParse(minimal({ SocialAddresses: { [field]: 'x'.repeat(200) } })).success).toBe(true);
      expectRejected(schema.safeParse(minimal({ SocialAddresses: { [field]: 'x'.repeat(201) } })), [
        'SocialAddresses',
        field,
      ]);
    },
  );

  it('limits email addresses to 254 characters', () => {
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.org`;
    const address = (length: number) => `${'a'.repeat(length - 1 - domain.length)}@${domain}`;
    expect(address(254)).toHaveLength(254);
    expect(schema.safeParse(withItem('Emails', { email: address(254) })).success).toBe(true);
    expectRejected(schema.safeParse(withItem('Emails', { email: address(255) })), [
      'Emails',
      '@set',
      0,
      'email',
    ]);
  });

  it.each([
    ['the Person', (value: string) => minimal({ local_reference_id: value }), ['local_reference_id']],
    [
      'a Name',
      (value: string) => ({ Names: { '@set': [{ ...john, local_reference_id: value }] } }),
      ['Names', '@set', 0, 'local_reference_id'],
    ],
    [
      'an Email',
      (value: string) => withItem('Emails', { email: 'a@example.org', local_reference_id: value }),
      ['Emails', '@set', 0, 'local_reference_id'],
    ],
  ])('limits local_reference_id on %s to 128 characters', (_, bodyWith, path) => {
    expect(schema.safeParse(bodyWith('r'.repeat(128))).success).toBe(true);
    expectRejected(schema.safeParse(bodyWith('r'.repeat(129))), path);
  });

  it.each([
    ['Names', 20],
    ['Emails', 50],
    ['PhoneNumbers', 50],
    ['PersonRoles', 50],
    ['PostalAddresses', 20],
  ] as const)('limits %s to %i items', (set, limit) => {
    expect(LIMITS.sets[set]).toBe(limit);
    expect(issuesOf(schema.safeParse(withItems(set, limit)))).toEqual([]);
    const result = schema.safeParse(withItems(set, limit + 1));
    expect(issuesOf(result)).toContainEqual(
      expect.objectContaining({ code: 'too_big', path: [set, '@set'] }),
    );
  });

  it.each([
    [
      'a number as first_name',
      { Names: { '@set': [{ ...john, first_name: 42 }] } },
      ['Names', '@set', 0, 'first_name'],
    ],
    [
      'a string as primary',
      { Names: { '@set': [{ ...john, primary: 'true' }] } },
      ['Names', '@set', 0, 'primary'],
    ],
    ['a number as email', withItem('Emails', { email: 42 }), ['Emails', '@set', 0, 'email']],
    ['a string as id', withItem('Emails', { id: '12', email: 'a@example.org' }), ['Emails', '@set', 0, 'id']],
    ['a number as local_reference_id', minimal({ local_reference_id: 7 }), ['local_reference_id']],
    ['an array as a container', { Names: [john] }, ['Names']],
    ['an object as @set', { Names: { '@set': { 0: john } } }, ['Names', '@set']],
    ['a string as an item', { Names: { '@set': ['John Smith'] } }, ['Names', '@set', 0]],
    [
      'a boolean as a social address',
      minimal({ SocialAddresses: { twitter: true } }),
      ['SocialAddresses', 'twitter'],
    ],
    [
      'a string as a role_fk',
      withItem('PersonRoles', { role_fk: '3' }),
      ['PersonRoles', '@set', 0, 'role_fk'],
    ],
  ])('rejects %s', (_, body, path) => {
    expectRejected(schema.safeParse(body), path);
  });

  it.each([[null], [[]], ['John Smith'], [42]])('rejects a body that is not an object: %j', (body) => {
    expect(schema.safeParse(body).success).toBe(false);
  });

  it.each(['not-an-email', 'john@', '@example.org', 'john smith@example.org', 'john@example', ''])(
    'rejects the invalid email address %j',
    (email) => {
      expectRejected(schema.safeParse(withItem('Emails', { email })), ['Emails', '@set', 0, 'email']);
    },
  );

  it.each([
    ['id', withItem('Emails', { email: 'a@example.org' }), 'Emails', 'id'],
    ['name_prefix_fk', { Names: { '@set': [john] } }, 'Names', 'name_prefix_fk'],
    ['name_suffix_fk', { Names: { '@set': [john] } }, 'Names', 'name_suffix_fk'],
    ['role_fk', withItem('PersonRoles', { name: 'Chair' }), 'PersonRoles', 'role_fk'],
  ])('takes only positive safe integers as %s', (_, body, set, field) => {
    const withValue = (value: unknown) => {
      const container = body[set] as { '@set': Body[] };
      return { ...body, [set]: { '@set': [{ ...container['@set'][0], [field]: value }] } };
    };
    for (const value of [1, 2 ** 53 - 1]) expect(issuesOf(schema.safeParse(withValue(value)))).toEqual([]);
    for (const value of [0, -1, 1.5, 2 ** 53, Number.MAX_VALUE, '1', true]) {
      expectRejected(schema.safeParse(withValue(value)), [set, '@set', 0, field]);
    }
  });

  it('accepts a null id, the mark of an added item', () => {
    expect(schema.safeParse(withItem('Emails', { id: null, email: 'a@example.org' })).success).toBe(true);
  });

  it('accepts the read-only fields a GET returns', () => {
    const body = minimal({
      id: 12,
      fullname: 'John Smith',
      email: 'jsmith@no-reply.org',
      Emails: { '@set': [{ email: 'a@example.org', person_fk: 12 }] },
      CoreMetaData: { date_created: 'x', date_modified: 'y', created_by: 1, modified_by: null, version: 3 },
    });
    expect(issuesOf(schema.safeParse(body))).toEqual([]);
  });
});

describe('CreatePersonBody', () => {
  it('requires Names', () => {
    const result = CreatePersonBody.safeParse({ Emails: { '@set': [{ email: 'a@example.org' }] } });
    expectRejected(result, ['Names']);
  });
});

describe('PatchPersonBody', () => {
  it('accepts a body without Names', () => {
    expect(PatchPersonBody.safeParse({ Emails: { '@set': [{ email: 'a@example.org' }] } }).success).toBe(
      true,
    );
  });

  it('accepts an empty body', () => {
    expect(PatchPersonBody.safeParse({}).success).toBe(true);
  });
});

/** The messages of a refused body, read as the HTTP edge reads them (with `wireErrors`). */
const messagesOf = (body: unknown, schema: z.ZodType = CreatePersonBody) =>
  issuesOf(schema.safeParse(body, { error: wireErrors })).map(({ path, message }) => [
    path.join('/'),
    message,
  ]);

/** Places a container where a Person body holds it: at the root, or in `PersonMemberships`. */
const withContainer = (set: string, value: unknown): Body => {
  const [, parent, child] = setPointer(set as (typeof SET_NAMES)[number]).split('/');
  const container = child ? { [parent as string]: { [child]: value } } : { [set]: value };
  return set === 'Names' ? container : minimal(container);
};

describe("messages in the contract's words (API.md 2.1)", () => {
  describe.each(schemas)('%s', (_, schema) => {
    it.each(
      SET_NAMES.flatMap((set) => [
        [set, [john], 'an array'],
        [set, 'Names', 'a string'],
        [set, 3, 'the number 3'],
        [set, null, 'null'],
      ]),
    )('%s sent as %j says it takes {"@set": [...]}', (set, value, kind) => {
      const path = setPointer(set as (typeof SET_NAMES)[number]).slice(1);
      expect(messagesOf(withContainer(set as string, value), schema)).toEqual([
        [path, `${set} takes {"@type": "${set}", "@set": [ ... ]}, not ${kind}`],
      ]);
    });

    it.each(SET_NAMES)('@set of %s sent as an object says it takes an array', (set) => {
      const path = `${setPointer(set).slice(1)}/@set`;
      expect(messagesOf(withContainer(set, { '@set': { 0: {} } }), schema)).toEqual([
        [path, `@set takes an array, as in {"@type": "${set}", "@set": [ ... ]}, not an object`],
      ]);
    });

    it("says so even without the HTTP edge's messages: the container's words are its own", () => {
      expect(issuesOf(schema.safeParse({ Names: [john] })).map(({ message }) => message)).toEqual([
        'Names takes {"@type": "Names", "@set": [ ... ]}, not an array',
      ]);
    });

    it.each([
      ['an array', [], 'Expected a JSON object, not an array'],
      ['a string', 'Person', 'Expected a JSON object, not a string'],
      ['a number', 1, 'Expected a JSON object, not the number 1'],
      ['null', null, 'Expected a JSON object, not null'],
    ])('a body that is %s says a JSON object is expected', (_, body, message) => {
      expect(messagesOf(body, schema)).toEqual([['', message]]);
    });

    it.each([
      ['a number as a string', { first_name: 7 }, 'first_name', 'Expected a string, not the number 7'],
      ['a string as an id', { id: 'x' }, 'id', 'Expected an integer, not a string'],
      ['a negative id', { id: -3 }, 'id', 'Must be a positive integer'],
      ['an id past the safe integers', { id: 2 ** 53 }, 'id', 'Must be at most 9007199254740991'],
      [
        'an array as primary',
        { primary: [] },
        'primary',
        'primary must be true, false, 1, 0, or an alias type (2 or 3)',
      ],
      [
        'a long middle_initial',
        { middle_initial: 'x'.repeat(201) },
        'middle_initial',
        'At most 200 characters',
      ],
      ['an unknown property', { nick: 'J' }, '', 'Unknown property'],
    ])('%s reads in plain words', (_, change, field, message) => {
      const path = ['Names', '@set', '0', ...(field ? [field] : [])].join('/');
      expect(messagesOf({ Names: { '@set': [{ ...john, ...change }] } }, schema)).toEqual([[path, message]]);
    });
  });

  it.each([
    ['an empty object', {}],
    ['a Person with an email only', { Emails: { '@set': [{ email: 'a@example.org' }] } }],
    ['only read-only values', { '@type': 'Person', id: 4, fullname: 'Ada Lovelace' }],
  ])('a POST of %s says a Person needs at least one Name, at /Names', (_, body) => {
    expect(messagesOf(body)).toEqual([['Names', NAME_REQUIRED]]);
    expect(issuesOf(CreatePersonBody.safeParse(body)).map(({ message }) => message)).toEqual([NAME_REQUIRED]);
  });

  it("a Person needs a Name in the contract's words: structured or freeform", () => {
    expect(NAME_REQUIRED).toMatch(
      /^A Person needs at least one Name: first_name and last_name, or freeform_name/,
    );
  });

  it.each([
    [undefined, 'missing'],
    [null, 'null'],
    [[], 'an array'],
    [{}, 'an object'],
    ['x', 'a string'],
    [1.5, 'the number 1.5'],
    [true, 'true'],
  ])('names what a client sent: %j is %s', (value, kind) => {
    expect(kindOf(value)).toBe(kind);
  });
});
