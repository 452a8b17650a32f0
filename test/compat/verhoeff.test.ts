/**
 * The suite's own Verhoeff implementation, checked before it is used to judge the service's
 * `CoreMetaData.checksum` (GRC's `proposal-of-a-checksum-for-restful-record-validation.md`, API.md 11.2).
 */
import { describe, expect, it } from 'vitest';
import { checksumDigits, verhoeffDigit, verhoeffValid } from './support';

const STANDARD_VECTORS = [
  { digits: '236', check: 3 },
  { digits: '12345', check: 1 },
  { digits: '142857', check: 0 },
  { digits: '123456789012', check: 0 },
  { digits: '8473643095483728456789', check: 2 },
];

describe('the Verhoeff check digit of the test suite', () => {
  it.each(STANDARD_VECTORS)('gives $check for $digits', ({ digits, check }) => {
    expect(verhoeffDigit(digits)).toBe(check);
  });

  it.each(STANDARD_VECTORS)('accepts $digits followed by its check digit', ({ digits, check }) => {
    expect(verhoeffValid(`${digits}${check}`)).toBe(true);
  });

  it('detects every single-digit error and every adjacent transposition of a checked number', () => {
    // The property the scheme exists for: a wrong entry in any table would let some error through.
    const checked = '20261121150405123308631';
    const protectedNumber = `${checked}${verhoeffDigit(checked)}`;
    const undetected: string[] = [];
    for (let at = 0; at < protectedNumber.length; at++) {
      for (let digit = 0; digit <= 9; digit++) {
        const typo = `${protectedNumber.slice(0, at)}${digit}${protectedNumber.slice(at + 1)}`;
        if (typo !== protectedNumber && verhoeffValid(typo)) undetected.push(typo);
      }
      const left = protectedNumber[at] as string;
      const right = protectedNumber[at + 1];
      if (right !== undefined && right !== left) {
        const swapped = `${protectedNumber.slice(0, at)}${right}${left}${protectedNumber.slice(at + 2)}`;
        if (verhoeffValid(swapped)) undetected.push(swapped);
      }
    }

    expect(verhoeffValid(protectedNumber)).toBe(true);
    expect(undetected).toEqual([]);
  });

  it("builds API.md 11.2's digit string from date_modified's digits, the id and live_status", () => {
    expect(checksumDigits('2026-11-21T15:04:05.123Z', 30863, 1)).toBe('20261121150405123308631');
  });
});
