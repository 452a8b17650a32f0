import { describe, expect, it } from 'vitest';
import { checksumDigits, recordChecksum, verhoeffCheckDigit } from '../../../lib/domain/checksum';

/** A number with its check digit appended validates: the check digit of the whole is 0 after inversion. */
const validates = (digits: string) => {
  // Appending the right check digit makes the checksum over all digits (position 0 included) zero,
  // which is the same as the check digit of everything but the last being that last digit.
  return verhoeffCheckDigit(digits.slice(0, -1)) === Number(digits.at(-1));
};

describe('Verhoeff check digit', () => {
  it.each([
    ['236', 3],
    ['12345', 1],
    ['142857', 0],
    ['', 0],
  ])('of %s is %i (the standard vectors)', (digits, expected) => {
    expect(verhoeffCheckDigit(digits)).toBe(expected);
  });

  it('catches every single-digit error and every adjacent swap of a 12-digit number', () => {
    const base = '202611211504';
    const full = `${base}${verhoeffCheckDigit(base)}`;
    expect(validates(full)).toBe(true);
    for (let position = 0; position < full.length; position++) {
      for (let digit = 0; digit <= 9; digit++) {
        if (String(digit) === full[position]) continue;
        const changed = `${full.slice(0, position)}${digit}${full.slice(position + 1)}`;
        expect(validates(changed)).toBe(false);
      }
      if (position + 1 < full.length && full[position] !== full[position + 1]) {
        const swapped = `${full.slice(0, position)}${full[position + 1]}${full[position]}${full.slice(position + 2)}`;
        expect(validates(swapped)).toBe(false);
      }
    }
  });

  it('refuses anything but digits', () => {
    expect(() => verhoeffCheckDigit('12a')).toThrow();
  });
});

describe('record checksum', () => {
  it('covers the digits of date_modified, then the id, then live_status', () => {
    expect(checksumDigits('2026-11-21T15:04:05.123Z', 30863, 1)).toBe('20261121150405123308631');
    expect(recordChecksum('2026-11-21T15:04:05.123Z', 30863, 1)).toBe(
      verhoeffCheckDigit('20261121150405123308631'),
    );
  });

  it('changes when the modification time, the id or the live status changes', () => {
    const base = recordChecksum('2026-11-21T15:04:05.123Z', 30863, 1);
    expect(recordChecksum('2026-11-21T15:04:05.124Z', 30863, 1)).not.toBe(base);
    expect(recordChecksum('2026-11-21T15:04:05.123Z', 30864, 1)).not.toBe(base);
    expect(recordChecksum('2026-11-21T15:04:05.123Z', 30863, 0)).not.toBe(base);
  });
});
