/**
 * Getting around uniqueness by spelling (API.md 5.5): invisible characters, a literal value spelled
 * like a hashed claim key, and one email address written in two forms. Each one must be the same
 * value to the service, or a different one that does not collide with what it is not.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildHandler as buildListPersons } from '../../functions/list-persons';
import { personList } from '../../lib/db/person/read/person-list';
import { PersonOut } from '../../lib/domain/schemas';
import { fold } from '../../lib/domain/text';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { httpEvent, invoke } from '../support/events';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

const freeform = (name: string) => ({ Names: { '@set': [{ freeform_name: name }] } });

const refused = async (body: unknown) => {
  const before = await snapshot(suite.table);
  const response = await suite.api.post(body);
  expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

const list = (query: Record<string, string>) =>
  invoke<{ Pagination: { count: number }; '@set': { id: number }[] }>(
    buildListPersons({
      personList: personList({ client: suite.table.client, tableName: suite.table.tableName }),
    }),
    httpEvent({ method: 'GET', route: '/Person', query }),
  );

describe('default-ignorable characters', () => {
  it.each([
    ['a zero-width space', '\u200b'],
    ['a soft hyphen', '\u00ad'],
    ['a left-to-right mark', '\u200e'],
    ['a right-to-left override', '\u202e'],
  ])('do not make a second email-less person of the same name: %s gives 409', async (_, invisible) => {
    const last = uniqueTag('Ignorable');
    expect((await suite.api.post(personBody('John', last))).status).toBe(201);

    const response = await refused(personBody(`Jo${invisible}hn`, last));

    expect(response.status).toBe(409);
    expect(response.body.type).toBe('/problems/duplicate-name');
  });

  it('are ignored by search: "john" finds Jo\\u200bhn, and Jo\\u200bhn finds John', async () => {
    const last = uniqueTag('Hidden');
    const hidden = await suite.api.post(personBody('Jo\u200bhn', last, uniqueEmail('hidden')));
    const plain = await suite.api.post(personBody('John', last, uniqueEmail('plain')));

    for (const first_name of ['john', 'Jo\u200bhn', 'J\u00adohn']) {
      const { body } = await list({ first_name, last_name: last });
      expect(body['@set'].map(({ id }) => id).sort()).toEqual([hidden.body.id, plain.body.id].sort());
    }
  });

  it('are ignored by sorting: \\u200bAdam sorts among the A names, not after Zed', async () => {
    const last = uniqueTag('Sorted');
    const ids = [];
    for (const first of ['Zed', '\u200bAdam', 'Abel'])
      ids.push((await suite.api.post(personBody(first, last, uniqueEmail('sorted')))).body.id);

    const { body } = await list({ last_name: last });

    expect(body['@set'].map(({ id }) => id)).toEqual([ids[2], ids[1], ids[0]]);
  });
});

describe('hashed claim keys', () => {
  it('no literal name equals a long name hashed: no false 409', async () => {
    // U+FDFA folds to 18 letters: 40 of them fold to over 1024 bytes, so the name's claim is hashed.
    const long = '\ufdfa'.repeat(40);
    expect(Buffer.byteLength(fold(long))).toBeGreaterThan(1024);
    expect((await suite.api.post(freeform(long))).status).toBe(201);

    const hex = createHash('sha256').update(fold(long)).digest('hex');
    for (const literal of [`sha256:${hex}`, hex, `HASHED#NAME#${hex}`]) {
      const response = await suite.api.post(freeform(literal));
      expect(response.status, literal).toBe(201);
    }
  });

  it('a long name is still unique: the same long name again gives 409', async () => {
    const long = `${'\ufdfa'.repeat(40)} ${uniqueTag('again')}`;
    expect((await suite.api.post(freeform(long))).status).toBe(201);

    const response = await refused(freeform(long));

    expect(response.status).toBe(409);
    expect(response.body.type).toBe('/problems/duplicate-name');
  });
});

describe('internationalized email addresses (RFC 6531)', () => {
  it('accepts an address in any script and stores it in NFC', async () => {
    const tag = uniqueTag('intl');
    const response = await suite.api.post(
      personBody('José', 'Intl', `jose\u0301.${tag}@bücher.de`, `用户${tag}@例子.广告`),
    );

    expect(response.status).toBe(201);
    const person = PersonOut.parse(response.body);
    expect(person.Emails['@set'].map((item) => ('email' in item ? item.email : null))).toEqual([
      `jos\u00e9.${tag}@bücher.de`,
      `用户${tag}@例子.广告`,
    ]);
  });

  it.each([
    [
      'the punycode form of a Unicode domain',
      (tag: string) => [`${tag}@bücher.de`, `${tag}@xn--bcher-kva.de`],
    ],
    ['the upper-case form of a Unicode domain', (tag: string) => [`${tag}@bücher.de`, `${tag}@BÜCHER.DE`]],
    [
      'the decomposed form of an accented local part',
      (tag: string) => [`jos\u00e9${tag}@x.org`, `JOSE\u0301${tag}@x.org`],
    ],
  ])('treats %s as the same address: 409 duplicate-email', async (_, forms) => {
    const [first, second] = forms(uniqueTag('idna'));
    const holder = await suite.api.post(personBody('First', 'Holder', first as string));
    expect(holder.status).toBe(201);

    const response = await refused(personBody('Second', 'Holder', second as string));

    expect(response.status).toBe(409);
    expect(response.body.type).toBe('/problems/duplicate-email');
    expect(response.body.errors).toEqual([
      expect.objectContaining({ existing: `https://api.example.test/Person/${holder.body.id}` }),
    ]);
  });

  it.each([
    ['a 65-octet local part', `${'a'.repeat(65)}@example.org`],
    ['a local part of 33 two-octet letters', `${'é'.repeat(33)}@example.org`],
    ['a zero-width space in the local part', 'jo\u200bhn@example.org'],
    ['a domain that has no IDNA form', 'john@exa mple.org'],
  ])('refuses %s with 400 and stores nothing', async (_, email) => {
    const response = await refused(personBody('Bad', 'Address', email));

    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ path: '/Emails/@set/0/email' })]);
  });
});
