/**
 * What every query schema of the API shares (API.md 2.1): whole numbers in a range, and an unknown
 * parameter refused naming the ones the route accepts. Its own module, so that any query schema can
 * use it without the list envelopes (lib/domain/listing.ts) and what they import.
 */
import * as z from 'zod';

export const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, 'Must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

/** `a`, `a and b`, `a, b and c`; an empty name shows as `""`. */
const listed = (names: string[]) => {
  const shown = names.map((name) => name || '""');
  return shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}` : (shown[0] ?? '');
};

/**
 * The params of every query object: an unknown parameter is refused naming the parameters the route
 * accepts, read from the object's own shape, so a parameter added to a route is named too (API.md 2.1).
 */
export const unknownParameters: z.core.$ZodObjectParams = {
  error: (issue) => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const accepted = Object.keys((issue.inst as z.core.$ZodObject)._zod.def.shape).join(', ');
    const unknown = issue.keys.length > 1 ? 'are not query parameters' : 'is not a query parameter';
    return `${listed(issue.keys)} ${unknown} of this route; it accepts ${accepted}`;
  },
};
