import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold, fullnameOf, isBlank, isStructuredName } from '../../../lib/domain/text';

describe('fold', () => {
  it.each([
    ['upper case', 'JOHN SMITH', 'john smith'],
    ['mixed case', 'McDonald', 'mcdonald'],
    ['an acute accent', 'José', 'jose'],
    ['several accents', 'Zoë Ångström-Müller', 'zoe angstrom-muller'],
    ['a decomposed accent', 'Jose\u0301', 'jose'],
    ['a compatibility form', 'Ｊｏｓé', 'jose'],
    ['runs of white space', 'John   Q.\t\nSmith', 'john q. smith'],
    ['leading and trailing white space', '  John Smith  ', 'john smith'],
    ['letters Unicode does not decompose', 'Søren Łukasz Straße Æsir', 'soren lukasz strasse aesir'],
    ['a zero-width space', 'Jo\u200bhn X', 'john x'],
    ['a soft hyphen', 'Jo\u00adhn X', 'john x'],
    ['a left-to-right mark', '\u200eJohn X', 'john x'],
    ['a right-to-left override', 'John\u202e X', 'john x'],
    ['a word joiner and a byte order mark', '\ufeffJo\u2060hn X', 'john x'],
    ['a Hangul filler (its compatibility form is ignorable too)', 'John\u3164 X', 'john x'],
  ])('folds %s', (_, text, folded) => {
    expect(fold(text)).toBe(folded);
  });

  it('makes names that differ only in case, accents and spacing compare equal', () => {
    expect(fold('  José   SMITH ')).toBe(fold('jose smith'));
  });

  it('lower-cases words of printable ASCII between single spaces, as the whole fold does', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[!-~]{1,8}$/), { maxLength: 5 }), (words) => {
        const plain = words.join(' ');
        expect(fold(plain)).toBe(plain.toLowerCase());
        // With a letter past ASCII the whole fold runs: the same, and the é an e.
        expect(fold(`${plain}é`)).toBe(`${plain.toLowerCase()}e`);
      }),
      { numRuns: 2_000 },
    );
    // ASCII that is not such words still has its white space collapsed and trimmed.
    expect([' Ann', 'Ann ', 'Ann  Lee', 'Ann\tLee', 'Ann\u0000Lee', ''].map(fold)).toEqual([
      'ann',
      'ann',
      'ann lee',
      'ann lee',
      'ann\u0000lee',
      '',
    ]);
  });

  it('keeps names that differ in letters apart', () => {
    expect(fold('José Smith')).not.toBe(fold('Josh Smith'));
  });
});

describe('isBlank', () => {
  it.each([
    [null, true],
    [undefined, true],
    ['', true],
    ['  \t\n', true],
    ['a', false],
    ['  a  ', false],
  ])('treats %j as blank: %s', (text, blank) => {
    expect(isBlank(text)).toBe(blank);
  });
});

describe('isStructuredName', () => {
  it.each([
    [{ first_name: 'John', last_name: 'Smith' }, true],
    [{ first_name: 'John', last_name: 'Smith', freeform_name: 'Johnny' }, true],
    [{ first_name: 'John' }, false],
    [{ last_name: 'Smith' }, false],
    [{ first_name: 'John', last_name: '   ' }, false],
    [{ first_name: null, last_name: 'Smith' }, false],
    [{ freeform_name: 'Cher' }, false],
  ])('needs both first_name and last_name non-blank: %j is %s', (name, structured) => {
    expect(isStructuredName(name)).toBe(structured);
  });
});

describe('fullnameOf', () => {
  it.each([
    ['first and last', { first_name: 'John', last_name: 'Smith' }, 'John Smith'],
    [
      'first, middle and last',
      { first_name: 'John', middle_initial: 'Q.', last_name: 'Smith' },
      'John Q. Smith',
    ],
    ['a null middle initial', { first_name: 'John', middle_initial: null, last_name: 'Smith' }, 'John Smith'],
    [
      'a blank middle initial',
      { first_name: 'John', middle_initial: '  ', last_name: 'Smith' },
      'John Smith',
    ],
    [
      'parts with extra white space',
      { first_name: '  John ', middle_initial: ' Q. ', last_name: 'van   der  Berg ' },
      'John Q. van der Berg',
    ],
  ])('joins the structured parts by single spaces: %s', (_, name, fullname) => {
    expect(fullnameOf(name)).toBe(fullname);
  });

  it('uses freeform_name when the Name has no structured parts', () => {
    expect(fullnameOf({ freeform_name: 'Cher' })).toBe('Cher');
    expect(fullnameOf({ first_name: null, last_name: null, freeform_name: 'Prince Rogers Nelson' })).toBe(
      'Prince Rogers Nelson',
    );
  });

  it('collapses white space in freeform_name', () => {
    expect(fullnameOf({ freeform_name: '  Prince   Rogers\tNelson ' })).toBe('Prince Rogers Nelson');
  });

  it('prefers the structured parts when both forms are given', () => {
    expect(fullnameOf({ first_name: 'John', last_name: 'Smith', freeform_name: 'Johnny S.' })).toBe(
      'John Smith',
    );
  });

  it('is empty for a Name with nothing in it', () => {
    expect(fullnameOf({})).toBe('');
  });
});
