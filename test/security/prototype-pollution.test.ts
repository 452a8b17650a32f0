/**
 * No prototype pollution from request input. `JSON.parse` makes `__proto__` an own property, so the
 * danger is code that copies keys it did not choose; the schema refuses unknown keys wherever they
 * are, and the few places that take any value (read-only fields) must store and echo nothing of it.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildList } from '../../functions/list-persons';
import { personList } from '../../lib/db/person/read/person-list';
import { PersonOut } from '../../lib/domain/schemas';
import { call, expectProblem, prototypeGuard } from '../fuzz/harness';
import { personBody, uniqueEmail } from '../support/api';
import { httpEvent } from '../support/events';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const pollution = prototypeGuard();
let target = 0;

beforeAll(async () => {
  target = (await suite.api.post(personBody('Proto', 'Target', uniqueEmail('proto')))).body.id;
});

afterEach(() => {
  pollution.check();
});

/** Objects that pollute a naive deep merge, as JSON text (so `__proto__` is a key like any other). */
const PROTO = '{"__proto__":{"polluted":"yes","isAdmin":true}}';
const CONSTRUCTOR = '{"constructor":{"prototype":{"polluted":"yes"}}}';
const PROTOTYPE = '{"prototype":{"polluted":"yes"}}';
const POLLUTERS: [string, string][] = [
  ['__proto__', PROTO],
  ['constructor', CONSTRUCTOR],
  ['prototype', PROTOTYPE],
];

/** The body text of a valid person with `payload` spliced in at `place` (a JSON object's interior). */
const NAME = '{"first_name":"Proto","last_name":"Type"}';
const places = (payload: string): [string, string][] => {
  const inner = payload.slice(1, -1);
  return [
    ['the root', `{"Names":{"@set":[${NAME}]},${inner}}`],
    ['a set container', `{"Names":{"@set":[${NAME}],${inner}}}`],
    ['a set item', `{"Names":{"@set":[{"first_name":"Proto","last_name":"Type",${inner}}]}}`],
    ['SocialAddresses', `{"Names":{"@set":[${NAME}]},"SocialAddresses":{${inner}}}`],
    ['CoreMetaData', `{"Names":{"@set":[${NAME}]},"CoreMetaData":{${inner}}}`],
  ];
};

const headers = (requester: number) => ({
  'content-type': 'application/json',
  'x-requester-person': String(requester),
});

describe('prototype keys in POST and PATCH bodies', () => {
  for (const [key, payload] of POLLUTERS) {
    it.each(places(payload))(
      `refuses a "${key}" key in %s with 400 naming it, and pollutes nothing`,
      async (_, text) => {
        for (const send of [
          () => suite.api.post(text, { headers: headers(0) }),
          () => suite.api.patch(target, text, { headers: headers(target) }),
        ]) {
          const before = await snapshot(suite.table);
          const response = await send();

          expect(response.status).toBe(400);
          expect(response.body.type).toBe('/problems/validation-error');
          const paths = (response.body.errors as { path: string }[]).map((error) => error.path);
          expect(paths.some((path) => path.endsWith(`/${key}`))).toBe(true);
          expect(await snapshot(suite.table)).toEqual(before);
          pollution.check();
        }
      },
    );
  }

  it('takes prototype keys inside read-only fields without storing, echoing or polluting anything', async () => {
    const readOnly = PROTO;
    const text = `{"id":${readOnly},"fullname":${readOnly},"email":${CONSTRUCTOR},"Names":{"@set":[${NAME}]},"Emails":{"@set":[{"email":"${uniqueEmail('ro')}"}]},"CoreMetaData":{"version":${readOnly},"created_by":${PROTOTYPE}}}`;

    const response = await suite.api.post(text, { headers: headers(0) });

    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const person = PersonOut.parse(response.body);
    expect(person.CoreMetaData.version).toBe(1);
    expect(JSON.stringify(response.body)).not.toContain('polluted');
    const stored = await suite.api.get(person.id);
    expect(JSON.stringify(stored.body)).not.toContain('polluted');
  });

  it('drops prototype keys under JSON-LD keywords (@context, @id) without polluting', async () => {
    const text = `{"@context":${PROTO},"@id":${CONSTRUCTOR},"Names":{"@set":[${NAME}]},"Emails":{"@set":[{"email":"${uniqueEmail('ld')}"}]}}`;

    const response = await suite.api.post(text, { headers: headers(0) });

    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(JSON.stringify(response.body)).not.toContain('polluted');
  });
});

describe('prototype keys in query strings', () => {
  it.each([
    '__proto__',
    '__proto__[polluted]',
    'constructor',
    'constructor[prototype][polluted]',
    'prototype',
  ])('refuses the query parameter %s on GET /Person with 400 and pollutes nothing', async (name) => {
    const list = buildList({ personList: personList(suite.table) });
    const query = Object.fromEntries([[name, 'yes']]) as Record<string, string>;

    const response = await call(list, httpEvent({ method: 'GET', route: '/Person', query }));

    expect(response.status).toBe(400);
    expectProblem(response);
  });
});
