/**
 * What the fuzzers found, pinned as plain examples so that a fix is proved by name and a regression
 * shows without waiting for the right seed. Each case is the shrunk counterexample or the smallest
 * input found by hand around it.
 */
import { describe, expect, it } from 'vitest';
import { PersonOut } from '../../lib/domain/schemas';
import { uniqueEmail } from '../support/api';
import { snapshot } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();

/** U+FDFA, one character that NFKD (and so the service's folding) turns into 18. */
const LIGATURE = '\ufdfa';

const names = (...items: Record<string, unknown>[]) => ({ Names: { '@set': items } });
const withEmail = (body: Record<string, unknown>) => ({
  ...body,
  Emails: { '@set': [{ email: uniqueEmail('finding') }] },
});

/** POSTs a body; whatever the answer, it is never a 5xx, and a refusal leaves the table as it was. */
const post = async (body: unknown) => {
  const before = await snapshot(suite.table);
  const response = await suite.api.post(body);
  if (response.status >= 400) expect(await snapshot(suite.table)).toEqual(before);
  return response;
};

describe('names within the limits whose stored forms are larger', () => {
  it('stores a 31-character first name that folds to more than the 1 024 bytes of an index key', async () => {
    const response = await post(names({ first_name: LIGATURE.repeat(31), last_name: 'X' }));

    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(PersonOut.parse(response.body).Names['@set'][0]).toMatchObject({
      first_name: LIGATURE.repeat(31),
    });
  });

  it('stores a name of three 200-character CJK parts (1 806 bytes folded)', async () => {
    const part = '李'.repeat(200);
    const response = await post(
      withEmail(names({ first_name: part, middle_initial: part, last_name: part })),
    );

    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  it('renames a person to such a name with PATCH', async () => {
    const created = await post(withEmail(names({ first_name: 'Short', last_name: 'Name' })));
    const nameId = (created.body.Names['@set'][0] as { id: number }).id;
    const before = await snapshot(suite.table);

    const response = await suite.api.patch(
      created.body.id,
      names({ id: nameId, first_name: LIGATURE.repeat(40) }),
    );

    expect(response.status, JSON.stringify(response.body)).toBe(200);
    if (response.status !== 200) expect(await snapshot(suite.table)).toEqual(before);
  });

  it('stores 20 names at the 200-character limit (a 35 KB body) without exceeding the item size', async () => {
    const long = LIGATURE.repeat(200);
    const extra = Array.from({ length: 19 }, () => ({
      first_name: long,
      middle_initial: long,
      last_name: long,
    }));
    const response = await post(
      withEmail(names({ first_name: 'A', last_name: 'B', primary: true }, ...extra)),
    );

    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });
});

describe('lone surrogates in names', () => {
  it('does not let two different email-less names clash because they differ only in a lone surrogate', async () => {
    const first = await post(names({ first_name: 'Ann', last_name: 'Lone\ud800' }));
    expect([201, 400]).toContain(first.status);

    const second = await post(names({ first_name: 'Ann', last_name: 'Lone\ud801' }));

    expect([201, 400], JSON.stringify(second.body)).toContain(second.status);
  });

  it('does not let a lone surrogate clash with a literal question mark', async () => {
    const first = await post(names({ first_name: 'Bea', last_name: 'Mark\udfff' }));
    expect([201, 400]).toContain(first.status);

    const second = await post(names({ first_name: 'Bea', last_name: 'Mark?' }));

    expect(second.status, JSON.stringify(second.body)).toBe(201);
  });
});
