/**
 * How many runs a property makes: `FUZZ_RUNS` when set (long runs, `npm run reliability`), else the CI
 * share the property asks for, at most `FUZZ_RUNS_MAX` when that is set. `.ci/run`'s second pass sets
 * `FUZZ_RUNS_MAX`, not `FUZZ_RUNS`: it lowers the properties that ask for many runs (100 to 5 000) and
 * leaves the slow ones that ask for few (an erasure race's 5, the change feed's 12) as the first pass
 * runs them, where `FUZZ_RUNS` would raise them.
 */
export const wholeNumber = (name: string): number | undefined => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number, not ${raw}`);
  return value;
};

export const fuzzRuns = (ciRuns: number): number =>
  wholeNumber('FUZZ_RUNS') ?? Math.min(ciRuns, wholeNumber('FUZZ_RUNS_MAX') ?? ciRuns);
