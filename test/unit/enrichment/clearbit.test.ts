import { describe, expect, it } from 'vitest';
import { fillSocialAddresses } from '../../../lib/domain/enrichment';
import { emptyPerson, type Person } from '../../../lib/domain/person';
import { profilesOf, retryAfterMs } from '../../../lib/enrichment/clearbit';

type ProviderPerson = Parameters<typeof profilesOf>[0];

const CREATED_AT = '2026-11-21T15:04:05.123Z';
const ENRICHED_AT = '2026-11-21T15:04:09.000Z';
const CHANNEL_ID = 'UCabcdefghijklmnopqrstuv';

describe('profilesOf: provider handles become full profile URLs', () => {
  it.each([
    ['twitter', 'jsmith', 'https://x.com/jsmith'],
    ['twitter', '@jsmith', 'https://x.com/jsmith'],
    ['facebook', 'jsmith', 'https://www.facebook.com/jsmith'],
    ['facebook', 'ada.lovelace', 'https://www.facebook.com/ada.lovelace'],
    ['linkedin', 'in/jsmith', 'https://www.linkedin.com/in/jsmith'],
    ['youtube', 'jsmith', 'https://www.youtube.com/@jsmith'],
    ['youtube', '@jsmith', 'https://www.youtube.com/@jsmith'],
    ['youtube', CHANNEL_ID, `https://www.youtube.com/channel/${CHANNEL_ID}`],
  ] as const)('maps a %s handle %j to %s', (field, handle, url) => {
    expect(profilesOf({ [field]: { handle } })).toEqual({ [field]: url });
  });

  it('maps the example answer of API.md 8 and leaves out the null GitHub handle', () => {
    const answer = {
      id: 'd54c54ad-40be-4305-8a34-0ab44710b90d',
      email: 'jsmith@example.org',
      twitter: { handle: 'jsmith' },
      facebook: { handle: 'jsmith' },
      linkedin: { handle: 'in/jsmith' },
      github: { handle: null },
    } satisfies ProviderPerson;
    expect(profilesOf(answer)).toEqual({
      twitter: 'https://x.com/jsmith',
      facebook: 'https://www.facebook.com/jsmith',
      linkedin: 'https://www.linkedin.com/in/jsmith',
    });
  });

  it('leaves out profiles the provider has no handle for', () => {
    expect(
      profilesOf({ twitter: { handle: null }, facebook: null, linkedin: {}, youtube: { handle: '' } }),
    ).toEqual({});
  });

  it.each([
    ['a script URL', 'javascript:alert(1)'],
    ['a full URL to another site', 'https://evil.example/jsmith'],
    ['a query string', 'jsmith?next=https://evil.example'],
    ['a fragment', 'jsmith#top'],
    ['markup', '<script>alert(1)</script>'],
    ['a space', 'j smith'],
    ['a percent escape', 'j%2Fsmith'],
    ['a handle of 151 characters', 'j'.repeat(151)],
  ])('drops a handle containing %s and keeps the safe ones', (_, unsafe) => {
    expect(
      profilesOf({
        twitter: { handle: unsafe },
        facebook: { handle: unsafe },
        linkedin: { handle: 'in/ok' },
      }),
    ).toEqual({ linkedin: 'https://www.linkedin.com/in/ok' });
  });

  it.each([
    ['twitter', '../settings'],
    ['facebook', '../../evil'],
    ['linkedin', 'in/../../evil'],
    ['youtube', 'x/../../evil'],
  ] as const)(
    'drops a %s handle %j with dot segments, which would leave the profile path',
    (field, handle) => {
      expect(profilesOf({ [field]: { handle } })).toEqual({});
    },
  );
});

describe('retryAfterMs: Retry-After in milliseconds', () => {
  const NOW = Date.parse('2026-11-21T15:04:05.000Z');

  it.each([
    ['0', 0],
    ['1', 1_000],
    ['120', 120_000],
  ])('reads delay-seconds %j as %d ms', (header, ms) => {
    expect(retryAfterMs(header, NOW)).toBe(ms);
  });

  it('reads an HTTP-date as the time left until then', () => {
    expect(retryAfterMs(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000);
  });

  it('reads an HTTP-date in the past as no wait', () => {
    expect(retryAfterMs(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0);
  });

  it.each([
    ['no header', null],
    ['an empty header', ''],
    ['a word', 'soon'],
    ['negative seconds', '-5'],
  ])('says nothing for %s, so the caller backs off on its own', (_, header) => {
    expect(retryAfterMs(header, NOW)).toBeUndefined();
  });
});

describe('fillSocialAddresses: enrichment fills only empty fields', () => {
  const stored = (social: Partial<Person['SocialAddresses']> = {}): Person => {
    const person = emptyPerson(7);
    return {
      ...person,
      SocialAddresses: { ...person.SocialAddresses, ...social },
      CoreMetaData: {
        date_created: CREATED_AT,
        date_modified: CREATED_AT,
        created_by: 3,
        modified_by: null,
        version: 1,
      },
    };
  };

  it('fills null fields and reports which', () => {
    const { person, filled } = fillSocialAddresses(
      stored(),
      { twitter: 'https://x.com/jsmith', linkedin: 'https://www.linkedin.com/in/jsmith' },
      ENRICHED_AT,
    );
    expect(person.SocialAddresses).toEqual({
      twitter: 'https://x.com/jsmith',
      facebook: null,
      linkedin: 'https://www.linkedin.com/in/jsmith',
      youtube: null,
    });
    expect(filled.sort()).toEqual(['linkedin', 'twitter']);
  });

  it('never overwrites a value a client set', () => {
    const { person, filled } = fillSocialAddresses(
      stored({ twitter: 'https://x.com/own' }),
      { twitter: 'https://x.com/jsmith', facebook: 'https://www.facebook.com/jsmith' },
      ENRICHED_AT,
    );
    expect(person.SocialAddresses).toMatchObject({
      twitter: 'https://x.com/own',
      facebook: 'https://www.facebook.com/jsmith',
    });
    expect(filled).toEqual(['facebook']);
  });

  it('bumps the version and date_modified by one change, keeping who created and modified it', () => {
    const before = stored();
    const { person } = fillSocialAddresses(
      before,
      { youtube: 'https://www.youtube.com/@jsmith' },
      ENRICHED_AT,
    );
    expect(person.CoreMetaData).toEqual({ ...before.CoreMetaData, date_modified: ENRICHED_AT, version: 2 });
  });

  it('changes nothing else of the person', () => {
    const before = stored();
    const { person } = fillSocialAddresses(before, { twitter: 'https://x.com/jsmith' }, ENRICHED_AT);
    const { SocialAddresses: _, CoreMetaData: __, ...rest } = person;
    const { SocialAddresses: ___, CoreMetaData: ____, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
  });

  it.each([
    ['the provider knows nothing', {}, {}],
    [
      'every field it knows is set already',
      { twitter: 'https://x.com/own' },
      { twitter: 'https://x.com/jsmith' },
    ],
    ['it sends empty values only', {}, { twitter: '', facebook: '' }],
  ])('changes nothing, not even the version, when %s', (_, social, profiles) => {
    const before = stored(social);
    const { person, filled } = fillSocialAddresses(before, profiles, ENRICHED_AT);
    expect(filled).toEqual([]);
    expect(person).toEqual(before);
  });
});
