/**
 * GRC's record checksum (`proposal-of-a-checksum-for-restful-record-validation.md`): the Verhoeff check
 * digit of the record's `date_modified`, `id` and `live_status`, so a reader can tell that the record of
 * that id was last changed at that time and has that live status. Verhoeff catches every single-digit
 * error and every swap of adjacent digits.
 */

/** Multiplication table of the dihedral group D5. */
const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
/** The permutation applied to a digit by its position from the right, repeating every 8 positions. */
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 7, 6, 8, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
const INVERSE = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];

const at = (table: number[][], row: number, column: number) => table[row]?.[column] as number;

/** The check digit to append to `digits` (a string of 0-9) so that the whole validates. */
export const verhoeffCheckDigit = (digits: string): number => {
  if (!/^\d*$/.test(digits)) throw new Error('Verhoeff works on decimal digits only');
  let check = 0;
  const reversed = [...digits].reverse();
  reversed.forEach((digit, index) => {
    check = at(D, check, at(P, (index + 1) % 8, Number(digit)));
  });
  return INVERSE[check] as number;
};

/**
 * The digit string a record's checksum covers: the digits of `date_modified` (every other character
 * dropped: `2026-11-21T15:04:05.123Z` gives `20261121150405123`), then the decimal `id`, then
 * `live_status`.
 */
export const checksumDigits = (dateModified: string, id: number, liveStatus: number): string =>
  `${dateModified.replace(/\D/g, '')}${id}${liveStatus}`;

export const recordChecksum = (dateModified: string, id: number, liveStatus: number): number =>
  verhoeffCheckDigit(checksumDigits(dateModified, id, liveStatus));
