/**
 * `npm run capacity -- --persons N --mix FILE [--json]`: what a population and a traffic mix cost a
 * month and which limit they meet first, from the capacity model (lib/db/capacity/). Bad arguments
 * exit 2 with what was wrong.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_THROTTLE } from '../../infra/config';
import { Mix } from '../db/capacity/mix';
import { capacity } from '../db/capacity/model';
import { renderAnswer } from '../db/capacity/report';

const USAGE = 'usage: npm run capacity -- --persons N --mix FILE [--json]';

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

if (!args.mix) fail('--mix FILE is required');
const text = (() => {
  try {
    return readFileSync(args.mix as string, 'utf8');
  } catch (error) {
    return fail(`cannot read ${args.mix}: ${(error as Error).message}`);
  }
})();
const parsed = (() => {
  try {
    return Mix.safeParse(JSON.parse(text));
  } catch (error) {
    return fail(`${args.mix} is not JSON: ${(error as Error).message}`);
  }
})();
if (!parsed.success)
  fail(
    `${args.mix}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
  );
const mix = parsed.data as Mix;
const persons = args.persons === undefined ? mix.persons : Number(args.persons);
if (persons === undefined) fail('--persons N is required (the mix names none)');
if (!Number.isSafeInteger(persons) || (persons as number) < 1)
  fail(`--persons must be a whole number ≥ 1, not ${args.persons}`);

const answer = capacity(mix, { persons: persons as number, defaultThrottleRate: DEFAULT_THROTTLE.rateLimit });
process.stdout.write(args.json ? `${JSON.stringify(answer, null, 2)}\n` : renderAnswer(answer));
