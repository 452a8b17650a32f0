import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../../..');
const PROFILES = join(ROOT, 'lib/db/capacity/profiles');
const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'lib/local/capacity.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });

const profiles = readdirSync(PROFILES).filter((file) => file.endsWith('.json'));

describe('npm run capacity', () => {
  it('ships the three profiles of issue #43', () => {
    expect(profiles.sort()).toEqual([
      'directory-50m-migration.json',
      'institution-1m.json',
      'national-10m.json',
    ]);
  });

  it.each(profiles)('answers %s with every section and a first limit', (profile) => {
    const { status, stdout, stderr } = run('--mix', join(PROFILES, profile));
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    for (const section of [
      '## Operations',
      '## Totals',
      '## Storage',
      '## Lambda, API Gateway, EventBridge',
      '## Monthly',
      '## Limits the load meets',
      '## Limits of the design',
    ])
      expect(stdout).toContain(section);
    expect(stdout).toMatch(/First limit: .+, headroom [\d.,]+×/);
  });

  it('answers in JSON with --json, --persons overriding the mix', () => {
    const { status, stdout } = run(
      '--persons',
      '20000',
      '--mix',
      join(PROFILES, 'institution-1m.json'),
      '--json',
    );
    expect(status).toBe(0);
    const answer = JSON.parse(stdout);
    expect(answer.persons).toBe(20_000);
    expect(answer.rows.map((row: { operation: string }) => row.operation)).toContain('create');
  });

  it.each([
    [['--persons', '10'], '--mix FILE is required'],
    [['--mix', 'no-such-file.json'], 'cannot read no-such-file.json'],
    [
      ['--persons', 'ten', '--mix', join(PROFILES, 'institution-1m.json')],
      '--persons must be a whole number',
    ],
    [['--mix', join(ROOT, 'package.json')], 'package.json: (root): Unrecognized key'],
    [['--mix', join(PROFILES, 'institution-1m.json'), '--bogus'], "Unknown option '--bogus'"],
  ])('refuses %j with exit code 2 and says why', (args, message) => {
    const { status, stderr, stdout } = run(...args);
    expect(status).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain('usage: npm run capacity');
    expect(stdout).toBe('');
  });
});
