import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const PROFILES = join(ROOT, 'lib/capacity/profiles');
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

  it('answers without arguments: the default profile, named in its output, as --mix with it answers', () => {
    const { status, stdout, stderr } = run();
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    const [named, ...rest] = stdout.split('\n');
    expect(named).toBe(
      'Profile: lib/capacity/profiles/institution-1m.json, the default (--mix FILE for another; profiles in lib/capacity/profiles/).',
    );
    expect(rest.join('\n').trimStart()).toBe(run('--mix', join(PROFILES, 'institution-1m.json')).stdout);
    const json = JSON.parse(run('--json', '--persons', '2000').stdout);
    expect({ profile: json.profile, persons: json.persons }).toEqual({
      profile: 'lib/capacity/profiles/institution-1m.json',
      persons: 2_000,
    });
  });

  it.each(profiles)(
    'heads %s with the limit of least headroom of all it prints, design limits included',
    (profile) => {
      const { stdout } = run('--mix', join(PROFILES, profile));
      const tables = stdout.slice(stdout.indexOf('## Limits the load meets'), stdout.indexOf('First limit:'));
      const headrooms = [...tables.matchAll(/ ([\d.,]+)×$/gm)].map(([, value]) =>
        Number(value?.replaceAll(',', '')),
      );
      expect(headrooms.length).toBeGreaterThan(5);
      const headline = /^First limit: .+, headroom ([\d.,]+)×/m.exec(stdout)?.[1];
      expect(Number(headline?.replaceAll(',', ''))).toBe(Math.min(...headrooms));
    },
  );

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
