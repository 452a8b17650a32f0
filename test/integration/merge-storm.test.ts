/**
 * A merge in a storm of PATCHes of both persons (API.md 13 "Concurrency", 5.4, issue #39 step 4): each
 * request in a container of its own, as Lambda runs them, so no in-process queue orders them and they
 * meet only at the version checks and the claims. The merge answers 200; no request answers 5xx; every
 * PATCH of the survivor answers 200 and is in it; every PATCH of the source answers 200 and is in the
 * survivor (it was on the source before the merge moved it) or answers 409 `merged` naming the
 * survivor, as every one sent after the merge answered must; the invariant checker finds nothing and no
 * claim names the merged person.
 */
import { describe, expect, it } from 'vitest';
import { type Json, personApi, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { checkInvariants, scanAll } from '../support/invariants';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const BASE = 'https://api.example.test';
const ROUNDS = 5;
const PATCHES = 30;
/** The PATCHes go out this far apart; the merge goes out in the middle of them. */
const STAGGER_MS = 10;

/** A container of its own: its own repository, no queue shared with any other request. */
const container = () => personApi(testRepository(suite.table));

type Kind = 'PhoneNumbers' | 'Emails' | 'PersonRoles' | 'PostalAddresses' | 'SocialAddresses';
const KINDS: Kind[] = ['PhoneNumbers', 'Emails', 'PersonRoles', 'PostalAddresses'];

/** PATCH `n` of a round: what it adds (marked `storm-<round>-<n>`), or the one social field it sets. */
const change = (round: number, n: number, kind: Kind, social: string) => {
  const mark = `storm-${round}-${n}`;
  switch (kind) {
    case 'PhoneNumbers':
      return {
        PhoneNumbers: { '@set': [{ phone_number: `+1 777 ${round}${n}`, local_reference_id: mark }] },
      };
    case 'Emails':
      return { Emails: { '@set': [{ email: uniqueEmail(`storm${n}`), local_reference_id: mark }] } };
    case 'PersonRoles':
      return { PersonRoles: { '@set': [{ name: `Role ${mark}`, local_reference_id: mark }] } };
    case 'PostalAddresses':
      return { PostalAddresses: { '@set': [{ address1: `${n} Storm Road`, local_reference_id: mark }] } };
    case 'SocialAddresses':
      return { SocialAddresses: { [social]: mark } };
  }
};

type Item = Json & { id: number | null; local_reference_id: string | null };
const marksOf = (person: Json) =>
  new Set(
    KINDS.flatMap((set) =>
      ((person[set] as { '@set': Item[] })['@set'] ?? []).map((item) => item.local_reference_id),
    ),
  );

interface Sent {
  n: number;
  target: 'survivor' | 'source';
  kind: Kind;
  social: string;
  sentAt: number;
  status: number;
  body: Json;
}

const later = (ms: number) => new Promise((settle) => setTimeout(settle, ms));

const round = async (r: number) => {
  const tag = uniqueTag('storm');
  const made = async (first: string) => {
    const { status, body } = await container().post({
      Names: { '@set': [{ first_name: first, last_name: tag }] },
      Emails: { '@set': [{ email: uniqueEmail(first.toLowerCase()) }] },
      PhoneNumbers: { '@set': [{ phone_number: `+1 888 ${r}` }] },
    });
    expect(status).toBe(201);
    return body as Json & { id: number; CoreMetaData: { version: number } };
  };
  const survivor = await made('Kept');
  const source = await made('Dupe');

  // Even PATCHes go to the survivor, odd ones to the source; one of each sets a social field of its own.
  const plans = Array.from({ length: PATCHES }, (_, n) => {
    const target = n % 2 === 0 ? ('survivor' as const) : ('source' as const);
    const social = target === 'survivor' ? 'facebook' : 'linkedin';
    const kind = n < 2 ? 'SocialAddresses' : (KINDS[Math.floor(n / 2) % KINDS.length] as Kind);
    return { n, target, kind, social };
  });
  const patches = plans.map(async (plan): Promise<Sent> => {
    await later(plan.n * STAGGER_MS);
    const id = plan.target === 'survivor' ? survivor.id : source.id;
    const sentAt = Date.now();
    const { status, body } = await container().patch(id, change(r, plan.n, plan.kind, plan.social));
    return { ...plan, sentAt, status, body: body as Json };
  });
  const merging = (async () => {
    await later((PATCHES / 2) * STAGGER_MS);
    const answer = await container().merge(survivor.id, { source: source.id });
    return { ...answer, answeredAt: Date.now() };
  })();
  const [merged, ...storm] = await Promise.all([merging, ...patches]);
  // And one more of each once the merge has answered: the source's must find it merged.
  const sent = [
    ...storm,
    ...(await Promise.all(
      (['survivor', 'source'] as const).map(async (target, i): Promise<Sent> => {
        const plan = { n: PATCHES + i, target, kind: 'PhoneNumbers' as const, social: '' };
        const sentAt = Date.now();
        const id = target === 'survivor' ? survivor.id : source.id;
        const { status, body } = await container().patch(id, change(r, plan.n, plan.kind, plan.social));
        return { ...plan, sentAt, status, body: body as Json };
      }),
    )),
  ];

  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  for (const patch of sent) {
    const label = `PATCH ${patch.n} of the ${patch.target}: ${patch.status} ${JSON.stringify(patch.body)}`;
    if (patch.target === 'survivor') expect(patch.status, label).toBe(200);
    else if (patch.status !== 200) {
      expect(patch.status, label).toBe(409);
      expect(patch.body, label).toMatchObject({
        type: '/problems/merged',
        errors: [{ existing: `${BASE}/Person/${survivor.id}` }],
      });
    }
    // Sent after the merge answered, a PATCH of the source finds it merged.
    if (patch.target === 'source' && patch.sentAt > merged.answeredAt) expect(patch.status, label).toBe(409);
  }

  const after = (await container().get(survivor.id)).body as Json & {
    SocialAddresses: Record<string, string | null>;
    CoreMetaData: { version: number };
  };
  const marks = marksOf(after);
  const landed = sent.filter((patch) => patch.status === 200);
  for (const patch of landed) {
    const mark = `storm-${r}-${patch.n}`;
    const label = `PATCH ${patch.n} of the ${patch.target} answered 200`;
    if (patch.kind === 'SocialAddresses') expect(after.SocialAddresses[patch.social], label).toBe(mark);
    else expect(marks.has(mark), label).toBe(true);
  }
  // Nothing else: no PATCH refused left a trace.
  const refused = sent.filter((patch) => patch.status !== 200).map((patch) => `storm-${r}-${patch.n}`);
  expect(refused.filter((mark) => marks.has(mark))).toEqual([]);
  // One version per PATCH of the survivor, and one for the merge.
  const ofSurvivor = landed.filter((patch) => patch.target === 'survivor').length;
  expect(after.CoreMetaData.version).toBe(survivor.CoreMetaData.version + ofSurvivor + 1);

  const gone = await container().get(source.id);
  expect(gone.status).toBe(301);
  expect(gone.headers.location).toBe(`${BASE}/Person/${survivor.id}`);

  const claimsOfSource = (await scanAll(suite.table)).filter(
    (item) => item.type === 'Claim' && item.personId === source.id,
  );
  expect(claimsOfSource).toEqual([]);
  expect(await checkInvariants(suite.table)).toEqual([]);
};

describe('a merge in a storm of PATCHes of both persons (API.md 13)', () => {
  it(`serializes with ${PATCHES} concurrent PATCHes from as many containers, ${ROUNDS} rounds: every PATCH that answered 200 is in the survivor`, {
    timeout: 180_000,
  }, async () => {
    for (let r = 0; r < ROUNDS; r++) await round(r);
  });
});
