import { describe, expect, it } from 'vitest';
import {
  ALL_VISIBLE,
  type CandidateFacts,
  candidateFragments,
  comparableName,
  extensionOf,
  factsOf,
  halvesOf,
  INITIAL_SIMILARITY,
  isCallbackName,
  jsonpOf,
  matchRequestOf,
  NICKNAME_SIMILARITY,
  nameScore,
  nameSimilarity,
  nameVariantsOf,
  phoneDigitsOf,
  previewHtml,
  proposedProperties,
  publicPropertiesFrom,
  queryNameTest,
  RECONCILE_LIMITS,
  rankCandidates,
  resultOf,
  rotationsOf,
  SHARED_PHONE,
  samePhone,
  suggestTerms,
  type Visibility,
  WORDS_WEIGHT,
  wordSimilarity,
  wordsSimilarity,
} from '../../../lib/domain/reconcile';
import { createdPerson } from '../../support/fixtures';

const facts = (
  id: number,
  fullname: string,
  emails: string[] = [],
  phones: string[] = [],
): CandidateFacts => {
  const [first = '', last = ''] = fullname.toLowerCase().split(' ');
  return {
    id,
    fullname,
    names: [fullname.toLowerCase()],
    firstNames: [first],
    lastNames: [last],
    emails,
    phones: phoneDigitsOf(phones),
  };
};

const PUBLIC: Visibility = { publicRead: true, publicProperties: ['fullname'] };

describe('a reconciliation query as a match request', () => {
  it('folds the name, normalises emails and applies the default and largest limits', () => {
    const request = matchRequestOf({
      query: '  José   SMITH ',
      properties: [
        { pid: 'email', v: 'J.Smith@Example.ORG' },
        { pid: 'first_name', v: ['José'] },
        { pid: 'unknown', v: 'x' },
      ],
    });
    expect(request).toMatchObject({
      name: 'jose smith',
      emails: ['j.smith@example.org'],
      firstNames: ['jose'],
      lastNames: [],
      limit: RECONCILE_LIMITS.defaultLimit,
      wantsPersons: true,
    });
    expect(matchRequestOf({ query: 'a', limit: 0 }).limit).toBe(RECONCILE_LIMITS.defaultLimit);
    expect(matchRequestOf({ query: 'a', limit: 1000 }).limit).toBe(RECONCILE_LIMITS.maxLimit);
  });

  it.each([
    [undefined, true],
    ['Person', true],
    [['Q5', 'Person'], true],
    ['http://schema.org/Person', true],
    ['Q5', false],
  ])('type %j wants persons: %s', (type, wants) => {
    expect(matchRequestOf({ query: 'x', ...(type === undefined ? {} : { type }) }).wantsPersons).toBe(wants);
  });

  it('ignores an email property under the public-read option unless email is public', () => {
    const query = { query: 'x', properties: [{ pid: 'email', v: 'a@b.org' }] };
    expect(matchRequestOf(query, PUBLIC).emails).toEqual([]);
    expect(
      matchRequestOf(query, { publicRead: true, publicProperties: ['fullname', 'email'] }).emails,
    ).toEqual(['a@b.org']);
  });

  it('looks candidates up by each form of the whole name and its longest words of 3 or more code points', () => {
    expect(candidateFragments(['jon de smith'])).toEqual({
      whole: ['jon de smith'],
      words: ['smith', 'jon'],
      short: [],
    });
    expect(candidateFragments(['smith'])).toEqual({ whole: ['smith'], words: [], short: [] });
    expect(candidateFragments(['li wei'])).toEqual({ whole: ['li wei'], words: ['wei'], short: [] });
    expect(candidateFragments(nameVariantsOf('lovelace, ada'))).toEqual({
      whole: ['lovelace, ada', 'ada lovelace'],
      words: ['lovelace', 'ada'],
      short: [],
    });
    expect(candidateFragments(['a. lovelace']).words).toEqual(['lovelace']);
  });

  it('reads "Last, First" also as "First Last", and nothing else as another form', () => {
    expect(nameVariantsOf('lovelace, ada')).toEqual(['lovelace, ada', 'ada lovelace']);
    expect(nameVariantsOf('lovelace ada')).toEqual(['lovelace ada']);
    expect(nameVariantsOf('smith, jr., john')).toEqual(['smith, jr., john']);
    expect(nameVariantsOf('smith,')).toEqual(['smith,']);
    expect(nameVariantsOf('')).toEqual([]);
    expect(matchRequestOf({ query: 'Lovelace,  Ada' }).variants).toEqual(['lovelace, ada', 'ada lovelace']);
  });

  it('takes a query text that is an email address as that email, not as a name', () => {
    expect(matchRequestOf({ query: ' Ada@Example.ORG ' })).toMatchObject({
      name: '',
      variants: [],
      emails: ['ada@example.org'],
    });
    expect(
      matchRequestOf({ query: 'ada@example.org', properties: [{ pid: 'email', v: 'ada@example.org' }] })
        .emails,
    ).toEqual(['ada@example.org']);
    // Under the public-read option an email is evidence only when email is public.
    expect(matchRequestOf({ query: 'ada@example.org' }, PUBLIC)).toMatchObject({
      name: 'ada@example.org',
      emails: [],
    });
    expect(matchRequestOf({ query: 'ada at example.org' }).emails).toEqual([]);
  });

  it('splits a misspelt word into halves of 3 or more code points, one of which a typo leaves whole', () => {
    expect(halvesOf('lovelase')).toEqual(['love', 'lase']);
    expect(halvesOf('hopper')).toEqual(['hop', 'per']);
    expect(halvesOf('smoth')).toEqual(['smo', 'oth']);
    expect(halvesOf('adda')).toEqual([]);
  });
});

describe('the score', () => {
  it('is 1 for equal names and lower the more trigrams differ', () => {
    expect(nameSimilarity('john smith', 'john smith')).toBe(1);
    const near = nameSimilarity('jon smith', 'john smith');
    const far = nameSimilarity('jon smith', 'mary jones');
    expect(near).toBeGreaterThan(0.4);
    expect(near).toBeGreaterThan(far);
  });

  it('compares words one by one: initials, nicknames, one typo and any order score high, other words nothing', () => {
    expect(wordSimilarity('a', 'ada')).toBe(INITIAL_SIMILARITY);
    expect(wordSimilarity('b', 'ada')).toBe(0);
    expect(wordSimilarity('bill', 'william')).toBe(NICKNAME_SIMILARITY);
    expect(wordSimilarity('lovelase', 'lovelace')).toBeCloseTo(7 / 8);
    expect(wordSimilarity('ada', 'alan')).toBe(0);
    const ada = ['ada lovelace'];
    for (const query of ['lovelace ada', 'a. lovelace', 'ada lovelase', 'lovelace, ada'])
      expect(nameScore(nameVariantsOf(query), ada), query).toBeGreaterThan(0.8);
    expect(nameScore(['bill gates'], ['william gates'])).toBeGreaterThan(
      nameScore(['bill gates'], ['bill cates']) - 0.05,
    );
    expect(nameScore(['lovelace ada'], ada)).toBe(WORDS_WEIGHT);
    expect(nameScore(nameVariantsOf('lovelace, ada'), ada)).toBe(1);
    // A candidate's word left over counts half against it.
    expect(wordsSimilarity('john smith', 'john smith jr')).toBeCloseTo(9 / 10);
    expect(wordsSimilarity('a. lovelace', 'byron lovelace')).toBeLessThan(0.7);
  });

  it('adds a shared phone number to the score, and holds another number against no one', () => {
    expect(samePhone('442079460958', '02079460958')).toBe(true);
    expect(samePhone('02079460958', '02079460958')).toBe(true);
    expect(samePhone('442079460958', '442079460959')).toBe(false);
    expect(phoneDigitsOf(['+44 20 7946 0958', '123', null])).toEqual(['442079460958']);
    const stored = [
      facts(1, 'Ada Lovelace', [], ['+44 20 7946 0958']),
      facts(2, 'Ada Lovelock', [], ['555 0100 200']),
    ];
    const sent = (phone: string) =>
      rankCandidates(
        matchRequestOf({ query: 'Ada Lovelac', properties: [{ pid: 'phones', v: phone }] }),
        stored,
      );
    const [first, second] = sent('020 7946 0958');
    expect(first?.facts.id).toBe(1);
    expect(first?.features).toContainEqual({ id: 'phones', value: true });
    expect(second?.features).toContainEqual({ id: 'phones', value: false });
    const [alone] = rankCandidates(matchRequestOf({ query: 'Ada Lovelac' }), stored);
    expect(first?.score).toBeCloseTo((alone?.score ?? 0) + SHARED_PHONE, 5);
    // Never certain by a phone: only an email or the name itself is.
    expect(first?.match).toBe(false);
    // Under the public-read option a phone sent is ignored unless phones are public.
    expect(
      matchRequestOf({ query: 'x', properties: [{ pid: 'phones', v: '020 7946 0958' }] }, PUBLIC).phones,
    ).toEqual([]);
  });

  it('does not hold an email at another domain against a candidate with the same mailbox', () => {
    const ada = facts(1, 'Ada Lovelace', ['ada@oldco.example']);
    const moved = rankCandidates(
      matchRequestOf({ query: 'Ada Lovelace', properties: [{ pid: 'email', v: 'ada@newco.example' }] }),
      [ada],
    );
    expect(moved[0]).toMatchObject({ score: 100, match: true, contradicted: false });
    expect(moved[0]?.features).toEqual(
      expect.arrayContaining([
        { id: 'email', value: false },
        { id: 'email_mailbox', value: true },
      ]),
    );
    const other = rankCandidates(
      matchRequestOf({ query: 'Ada Lovelace', properties: [{ pid: 'email', v: 'countess@newco.example' }] }),
      [ada],
    );
    expect(other[0]).toMatchObject({ score: 90, match: false, contradicted: true });
  });

  it('ranks the right person first for a swapped, initialled, nicknamed or misspelt name', () => {
    const stored = [
      facts(1, 'Ada Lovelace'),
      facts(2, 'Byron Lovelace'),
      facts(3, 'Ada Lovelock'),
      facts(4, 'William Gates'),
      facts(5, 'Bill Cates'),
      facts(6, 'Anne Lovelace'),
    ];
    const top = (query: string) => rankCandidates(matchRequestOf({ query }), stored)[0];
    // Family name first without a comma is her name in another order: certain, as "Last, First" is.
    expect(top('Lovelace Ada')).toMatchObject({ facts: { id: 1 }, match: true });
    expect(top('Lovelace, Ada')).toMatchObject({ facts: { id: 1 }, match: true });
    expect(top('Ada Lovelase')?.facts.id).toBe(1);
    expect(top('Bill Gates')?.facts.id).toBe(4);
    expect(top('B. Lovelace')?.facts.id).toBe(2);
    // None of them is certain: only the name itself, or an email, is.
    for (const query of ['Ada Lovelase', 'Bill Gates', 'B. Lovelace'])
      expect(top(query)?.match, query).toBe(false);
  });

  it('marks the one candidate holding the email sent as certain, whatever its name', () => {
    const request = matchRequestOf({
      query: 'J. Smith',
      properties: [{ pid: 'email', v: 'js@example.org' }],
    });
    const ranked = rankCandidates(request, [
      facts(1, 'John Smith'),
      facts(2, 'Jane Smith', ['js@example.org']),
    ]);
    expect(ranked[0]).toMatchObject({ facts: { id: 2 }, score: 100, match: true });
    expect(ranked[1]?.match).toBe(false);
    expect(ranked[0]?.features).toContainEqual({ id: 'email', value: true });
  });

  it('never marks namesakes without an email as certain', () => {
    const ranked = rankCandidates(matchRequestOf({ query: 'John Smith' }), [
      facts(1, 'John Smith'),
      facts(2, 'John Smith'),
    ]);
    expect(ranked.map(({ match }) => match)).toEqual([false, false]);
    expect(ranked.map(({ score }) => score)).toEqual([100, 100]);
  });

  it('marks a unique exact name certain only with no close second and nothing against it', () => {
    const request = matchRequestOf({ query: 'John Smith' });
    expect(rankCandidates(request, [facts(1, 'John Smith'), facts(2, 'Mary Smith')])[0]?.match).toBe(true);
    expect(rankCandidates(request, [facts(1, 'John Smith'), facts(2, 'John Smith Jr')])[0]?.match).toBe(
      false,
    );
    const withOtherEmail = matchRequestOf({
      query: 'John Smith',
      properties: [{ pid: 'email', v: 'x@y.org' }],
    });
    expect(rankCandidates(withOtherEmail, [facts(1, 'John Smith', ['js@example.org'])])[0]?.match).toBe(
      false,
    );
  });

  it('decides certainty on every candidate, then cuts to the limit', () => {
    const request = matchRequestOf({ query: 'John Smith', limit: 1 });
    const ranked = rankCandidates(request, [facts(1, 'John Smith'), facts(2, 'John Smith')]);
    expect(ranked).toHaveLength(1);
    expect(ranked[0]?.match).toBe(false);
  });

  describe('names as people write them (issue #53)', () => {
    const ranked = (query: string, stored: CandidateFacts[]) =>
      rankCandidates(matchRequestOf({ query }), stored).map(({ facts: { id }, score, match }) => ({
        id,
        score,
        match,
      }));

    it('reads a hyphen as a space, both ways', () => {
      expect(comparableName('ngozi okonjo-iweala')).toBe('ngozi okonjo iweala');
      expect(comparableName('jun \u2010 ho park')).toBe('jun ho park');
      expect(
        ranked('Ngozi Okonjo Iweala', [facts(1, 'Ngozi Okonjo-Iweala'), facts(2, 'Ngozi Okafor')])[0],
      ).toEqual({ id: 1, score: 100, match: true });
      expect(ranked('Jun-ho Park', [facts(1, 'Jun Ho Park'), facts(2, 'Min-jun Park')])[0]).toEqual({
        id: 1,
        score: 100,
        match: true,
      });
      // Two persons of the name, one written with a hyphen: namesakes, neither certain.
      expect(
        ranked('Ngozi Okonjo Iweala', [facts(1, 'Ngozi Okonjo-Iweala'), facts(2, 'Ngozi Okonjo Iweala')]).map(
          ({ match }) => match,
        ),
      ).toEqual([false, false]);
    });

    it('makes a unique exact name in another word order certain, as "Last, First" is', () => {
      expect(rotationsOf('park jun ho')).toEqual(['jun ho park', 'ho park jun']);
      expect(rotationsOf('park')).toEqual([]);
      expect(
        ranked('Okonjo-Iweala Ngozi', [facts(1, 'Ngozi Okonjo-Iweala'), facts(2, 'Ngozi Okafor')])[0],
      ).toEqual({ id: 1, score: 100, match: true });
      expect(ranked('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Jun Kim')])[0]).toEqual({
        id: 1,
        score: 100,
        match: true,
      });
      expect(ranked('Kim Min-jun', [facts(1, 'Min-jun Kim')])[0]?.match).toBe(true);
    });

    it('keeps a reordered name uncertain beside a namesake, the name as written, or a close second', () => {
      const none = (query: string, stored: CandidateFacts[]) =>
        expect(
          ranked(query, stored).map(({ match }) => match),
          `${query} among ${stored.map(({ fullname }) => fullname).join(', ')}`,
        ).not.toContain(true);
      none('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Jun Ho Park')]);
      none('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Park Jun Ho')]);
      none('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Ho Park Jun')]);
      none('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Jun Ho Parks')]);
      none('Park Jun Ho', [facts(1, 'Jun Ho Park'), facts(2, 'Jun-Ho Park')]);
      // Another order that is no rotation is another name: José María is not María José.
      none('José María García', [facts(1, 'María José García')]);
    });

    it('keeps every stored name that is the query in some form when it picks the persons to read', () => {
      const isQueryName = queryNameTest(nameVariantsOf('park jun-ho'));
      expect(['park jun ho', 'jun-ho park', 'ho park jun', 'park jun-ho'].every(isQueryName)).toBe(true);
      expect(['jun park ho', 'park jun', 'jun ho parks'].some(isQueryName)).toBe(false);
    });

    it('looks a name whose words are all under 3 code points up by its words of 2', () => {
      expect(candidateFragments(['yu na'])).toEqual({ whole: ['yu na'], words: [], short: ['na', 'yu'] });
      expect(candidateFragments(['x. ma'])).toEqual({ whole: ['x. ma'], words: [], short: ['ma'] });
      expect(candidateFragments(['t ly'])).toEqual({ whole: ['t ly'], words: [], short: ['ly'] });
      expect(candidateFragments(['li'])).toEqual({ whole: [], words: [], short: ['li'] });
      // One word of 3 is looked up instead: its grams find it.
      expect(candidateFragments(['li wei']).short).toEqual([]);
      expect(candidateFragments(['x y']).short).toEqual([]);
      expect(ranked('Ma Yu', [facts(1, 'Yu Ma'), facts(2, 'Yu Li')])[0]).toEqual({
        id: 1,
        score: 100,
        match: true,
      });
      expect(ranked('X. Ma', [facts(1, 'Xiaoming Ma'), facts(2, 'Fatima Sharma')])[0]).toMatchObject({
        id: 1,
        match: false,
      });
    });
  });

  it('answers ids as strings, type as an array, and hides private features under public read', () => {
    const request = matchRequestOf({ query: 'John Smith', properties: [{ pid: 'first_name', v: 'John' }] });
    const ranked = rankCandidates(request, [facts(7, 'John Smith')]);
    expect(resultOf(ranked).result[0]).toEqual({
      id: '7',
      name: 'John Smith',
      type: [{ id: 'Person', name: 'Person' }],
      score: 100,
      match: true,
      features: [
        { id: 'name', value: 1 },
        { id: 'first_name', value: true },
      ],
    });
    expect(resultOf(ranked, PUBLIC).result[0]?.features).toEqual([{ id: 'name', value: 1 }]);
  });
});

describe('the answers', () => {
  const person = createdPerson(
    {
      Names: {
        '@set': [{ first_name: 'Ada', last_name: '<Lovelace>', primary: true }],
      },
      Emails: { '@set': [{ email: 'ada@example.org', primary: true }] },
      PhoneNumbers: { '@set': [{ phone_number: '+44 20 0000', primary: true }] },
    },
    { firstId: 42 },
  );

  it('keys extension rows by the ids exactly as sent, with empty cells for unknown ids', () => {
    const query = {
      ids: ['42', '0042', 'x'],
      properties: [{ id: 'fullname' }, { id: 'email' }, { id: 'nope' }],
    };
    const answer = extensionOf(query, new Map([[42, person]]), ALL_VISIBLE);
    expect(answer.meta.map(({ id }) => id)).toEqual(['fullname', 'email', 'nope']);
    expect(answer.rows['42']).toEqual({
      fullname: [{ str: 'Ada <Lovelace>' }],
      email: [{ str: 'ada@example.org' }],
      nope: [],
    });
    expect(answer.rows['0042']).toEqual({ fullname: [], email: [], nope: [] });
    expect(answer.rows.x).toEqual({ fullname: [], email: [], nope: [] });
  });

  it('shows only the public properties under the public-read option', () => {
    const answer = extensionOf(
      { ids: ['42'], properties: [{ id: 'email' }, { id: 'fullname' }] },
      new Map([[42, person]]),
      PUBLIC,
    );
    expect(answer.rows['42']).toEqual({ email: [], fullname: [{ str: 'Ada <Lovelace>' }] });
    expect(proposedProperties(PUBLIC).properties).toEqual([{ id: 'fullname', name: 'Full name' }]);
    expect(suggestTerms('property', 'em', PUBLIC).result).toEqual([]);
    expect(suggestTerms('property', 'em', ALL_VISIBLE).result.map(({ id }) => id)).toEqual([
      'email',
      'emails',
    ]);
  });

  it('escapes the preview card and leaves private details out', () => {
    const html = previewHtml(person, PUBLIC, 'http://h/Person/42');
    expect(html).toContain('Ada &lt;Lovelace&gt;');
    expect(html).not.toContain('<Lovelace>');
    expect(html).not.toContain('ada@example.org');
    expect(previewHtml(person, ALL_VISIBLE, 'http://h/Person/42')).toContain('ada@example.org');
  });

  it('reads the facts of a stored person', () => {
    expect(factsOf(person)).toMatchObject({
      id: 42,
      names: ['ada <lovelace>'],
      emails: ['ada@example.org'],
      firstNames: ['ada'],
      lastNames: ['<lovelace>'],
    });
  });

  it.each([
    ['jQuery36001_1700000000', true],
    ['a.b.c', true],
    ['alert(1)', false],
    ['a b', false],
    ['', false],
    ['x'.repeat(129), false],
  ])('callback %j is a valid name: %s', (name, valid) => {
    expect(isCallbackName(name)).toBe(valid);
  });

  it('wraps JSONP after a comment', () => {
    expect(jsonpOf('cb', '{"a":1}')).toBe('/**/ cb({"a":1});');
  });

  it('refuses a public property that is no property, and always shows fullname', () => {
    expect(publicPropertiesFrom(undefined)).toEqual(['fullname']);
    expect(publicPropertiesFrom('email, phones')).toEqual(['fullname', 'email', 'phones']);
    expect(() => publicPropertiesFrom('emial')).toThrow(/emial/);
  });
});
