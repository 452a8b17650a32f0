/**
 * `npm run capacity [-- --persons N --mix FILE --json]`: what a population and a traffic mix cost a
 * month and which limit they meet first, from the capacity model (lib/capacity/). Without `--mix`,
 * the default profile (DEFAULT_PROFILE), named in the answer. Bad arguments exit 2 with what was wrong.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_THROTTLE } from '../../infra/config';
import { Mix } from '../capacity/mix';
import { capacity } from '../capacity/model';
import { renderAnswer } from '../capacity/report';

/** The profile `npm run capacity` answers without `--mix`: the smallest of the three, on the stack's defaults. */
export const DEFAULT_PROFILE = 'lib/capacity/profiles/institution-1m.json';

const ROOT = join(import.meta.dirname, '../..');

const USAGE = `usage: npm run capacity [-- --persons N --mix FILE --json] (--mix: ${DEFAULT_PROFILE} by default)`;

const fail = (message: string): never => {
  process.stderr.write(`capacity: ${message}\n${USAGE}\n`);
  process.exit(2);
};

const args = (() => {
  try {
    return parseArgs({
      options: {
        persons: { type: 'string' },
        mix: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
})();

const profile = args.mix ?? DEFAULT_PROFILE;
const mixFile = args.mix ?? join(ROOT, DEFAULT_PROFILE);
const text = (() => {
  try {
    return readFileSync(mixFile, 'utf8');
  } catch (error) {
    return fail(`cannot read ${profile}: ${(error as Error).message}`);
  }
})();
const parsed = (() => {
  try {
    return Mix.safeParse(JSON.parse(text));
  } catch (error) {
    return fail(`${profile} is not JSON: ${(error as Error).message}`);
  }
})();
if (!parsed.success)
  fail(
    `${profile}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
  );
const mix = parsed.data as Mix;
const persons = args.persons === undefined ? mix.persons : Number(args.persons);
if (persons === undefined) fail('--persons N is required (the mix names none)');
if (!Number.isSafeInteger(persons) || (persons as number) < 1)
  fail(`--persons must be a whole number ≥ 1, not ${args.persons}`);

const answer = capacity(mix, { persons: persons as number, defaultThrottleRate: DEFAULT_THROTTLE.rateLimit });
const named = args.mix
  ? ''
  : `Profile: ${DEFAULT_PROFILE}, the default (--mix FILE for another; profiles in lib/capacity/profiles/).\n\n`;
process.stdout.write(
  args.json ? `${JSON.stringify({ profile, ...answer }, null, 2)}\n` : `${named}${renderAnswer(answer)}`,
);
