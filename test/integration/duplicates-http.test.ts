/**
 * Duplicates under review from outside (API.md 12.1, issue #57), over HTTP against `npm start`, written
 * from the contract's text: persons with planted duplicates are created, the queue lists their pairs
 * with grades within 60 seconds, highest score first; a pair reads alone; a decision `not-duplicate`
 * sticks and a second decision is 409 `pair-decided`; a decision `merge` merges (the source answers
 * 301) and the pair is `merged`, open again once the merge is undone; each new pair is a
 * `duplicate.detected` event of the feed.
 */
import { describe, expect, it } from 'vitest';
import { uniqueEmail, uniqueTag } from '../support/api';
import { request } from '../support/http';
import { serverSuite } from '../support/server-suite';

const server = serverSuite({ env: { ENRICHMENT: 'off' } });

interface Pair {
  id: string;
  persons: [number, number];
  score: number;
  grade: string;
  status: string;
  features: { id: string; value: number | boolean }[];
  decided_by?: number;
  decided?: string;
}
interface Page {
  '@type': 'DuplicatePage';
  pairs: Pair[];
  next: string | null;
}

/** A family name of letters only, this run's own: no other file's persons are namesakes. */
const family = (label: string) =>
  `${label}${uniqueTag('').replace(/\d/g, (digit) => 'abcdefghij'[Number(digit)] as string)}`;

const create = async (
  first: string,
  last: string,
  { email, phone }: { email?: string; phone?: string } = {},
) => {
  const response = await request(server, 'POST', '/Person', {
    requester: 0,
    body: {
      Names: { '@set': [{ first_name: first, last_name: last }] },
      ...(email ? { Emails: { '@set': [{ email }] } } : {}),
      ...(phone ? { PhoneNumbers: { '@set': [{ phone_number: phone }] } } : {}),
    },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
};

const getJson = async <T>(path: string, status = 200) => {
  const response = await fetch(`${server.url}${path}`);
  expect(response.status, path).toBe(status);
  return (await response.json()) as T;
};

/** The pairs of a person once the detector has written them, waited for at most 60 s (API.md 12.1). */
const pairsOf = async (person: number, expected: number, status = 'open') => {
  const started = Date.now();
  for (;;) {
    const page = await getJson<Page>(`/duplicates?person=${person}&status=${status}`);
    if (page.pairs.length >= expected) return { pairs: page.pairs, seconds: (Date.now() - started) / 1000 };
    if (Date.now() - started > 60_000) throw new Error(`No ${expected} pair(s) of person ${person} in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

const decide = (pairId: string, body: unknown, requester: number) =>
  request(server, 'POST', `/duplicates/${pairId}/decision`, { body, requester });

describe('the duplicates queue over HTTP', () => {
  it('lists planted duplicates with grades within 60 s, best first, and no pair of persons not alike', async () => {
    const last = family('Lovelace');
    const ada = await create('Ada', last, { email: uniqueEmail('ada'), phone: '+44 20 7946 0958' });
    const again = await create('Ada', last, { phone: '020 7946 0958' });
    const namesake = await create('Ada', last, { email: uniqueEmail('other') });
    const stranger = await create('Charles', family('Babbage'));
    const { pairs, seconds } = await pairsOf(ada, 2);
    expect(seconds).toBeLessThan(60);
    const byId = new Map(pairs.map((pair) => [pair.id, pair]));
    const certain = byId.get(`${Math.min(ada, again)}-${Math.max(ada, again)}`);
    expect(certain).toMatchObject({
      grade: 'certain',
      status: 'open',
      persons: [Math.min(ada, again), Math.max(ada, again)],
    });
    expect(certain?.features).toContainEqual({ id: 'phones', value: true });
    // Namesakes who each hold an email of their own, nothing else shared: never certain.
    const namesakes = byId.get(`${Math.min(ada, namesake)}-${Math.max(ada, namesake)}`);
    expect(namesakes?.grade).not.toBe('certain');
    // Best first, then by id.
    const scores = pairs.map(({ score }) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect((await getJson<Page>(`/duplicates?person=${stranger}`)).pairs).toEqual([]);
    // One pair alone, and the whole queue by grade, a page at a time with its cursor.
    expect(await getJson<Pair>(`/duplicates/${certain?.id}`)).toEqual(certain);
    const first = await getJson<Page>('/duplicates?grade=certain&limit=1');
    expect(first).toMatchObject({ '@type': 'DuplicatePage' });
    expect(first.pairs.every(({ grade }) => grade === 'certain')).toBe(true);
    if (first.next) {
      const second = await getJson<Page>(`/duplicates?grade=certain&limit=1&after=${first.next}`);
      expect(second.pairs.map(({ id }) => id)).not.toContain(first.pairs[0]?.id);
    }
  });

  it('keeps a not-duplicate decision, refuses a second one (409 pair-decided), and merges on a merge decision', async () => {
    const last = family('Hopper');
    const grace = await create('Grace', last, { email: uniqueEmail('grace'), phone: '+1 212 555 0100' });
    const twin = await create('Grace', last, { phone: '(212) 555-0100' });
    const namesake = await create('Grace', last, { email: uniqueEmail('namesake') });
    const { pairs } = await pairsOf(grace, 2);
    const pairWith = (other: number) => pairs.find(({ persons }) => persons.includes(other)) as Pair;

    const notDuplicate = await decide(pairWith(namesake).id, { decision: 'not-duplicate' }, grace);
    expect(notDuplicate.status).toBe(200);
    expect(await notDuplicate.json()).toMatchObject({ status: 'not-duplicate', decided_by: grace });
    const again = await decide(pairWith(namesake).id, { decision: 'merge', survivor: grace }, grace);
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(await again.json()).toMatchObject({ type: expect.stringContaining('pair-decided') });
    expect((await getJson<Page>(`/duplicates?person=${namesake}&status=not-duplicate`)).pairs).toHaveLength(
      1,
    );

    // Refused bodies change nothing: a survivor of neither person, an unknown decision.
    const certain = pairWith(twin);
    expect((await decide(certain.id, { decision: 'merge', survivor: 1 }, grace)).status).toBe(400);
    expect((await decide(certain.id, { decision: 'maybe' }, grace)).status).toBe(400);
    expect((await getJson<Pair>(`/duplicates/${certain.id}`)).status).toBe('open');

    const merged = await decide(certain.id, { decision: 'merge', survivor: grace }, grace);
    expect(merged.status).toBe(200);
    expect(await merged.json()).toMatchObject({ status: 'merged', decided_by: grace });
    const source = await fetch(`${server.url}/Person/${twin}`, { redirect: 'manual' });
    expect(source.status).toBe(301);
    expect((await getJson<Pair>(`/duplicates/${certain.id}`)).status).toBe('merged');

    // The merge undone (an unmerge is a change that is checked, API.md 12.1 and 13.1): the two are
    // found again, and their pair is open again within 60 s.
    const undone = await request(server, 'POST', `/Person/${grace}/unmerge`, {
      body: { source: twin },
      requester: grace,
    });
    expect(undone.status).toBe(200);
    const started = Date.now();
    let back = await getJson<Pair>(`/duplicates/${certain.id}`);
    while (back.status !== 'open' && Date.now() - started < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      back = await getJson<Pair>(`/duplicates/${certain.id}`);
    }
    expect(back).toMatchObject({ status: 'open', grade: 'certain', persons: certain.persons });
    expect(back).not.toHaveProperty('decided_by');
  });

  it('answers 404 for a pair it does not hold and 400 for a query or cursor it does not take', async () => {
    await getJson('/duplicates/1-999999999', 404);
    await getJson('/duplicates/not-a-pair', 404);
    for (const query of [
      'after=made-up',
      'status=closed',
      'grade=sure',
      'limit=0',
      'limit=101',
      'person=0',
      'colour=red',
    ])
      await getJson(`/duplicates?${query}`, 400);
  });

  it('puts each new pair in the change feed as duplicate.detected', async () => {
    const last = family('Curie');
    const marie = await create('Marie', last, { email: uniqueEmail('marie'), phone: '+33 1 23 45 67 89' });
    const twin = await create('Marie', last, { phone: '01 23 45 67 89' });
    const [pair] = (await pairsOf(marie, 1)).pairs;
    const subject = `duplicates/${pair?.id}`;
    const started = Date.now();
    interface Event {
      type: string;
      subject: string;
      data: { id: string; persons: number[]; grade: string; score: number };
    }
    let event: Event | undefined;
    for (let after = ''; !event && Date.now() - started < 30_000; ) {
      const page = await getJson<{ events: Event[]; next: string }>(
        `/events?limit=500${after ? `&after=${after}` : ''}`,
      );
      event = page.events.find((candidate) => candidate.subject === subject);
      if (page.events.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
      after = page.next;
    }
    expect(event).toMatchObject({
      type: 'duplicate.detected',
      data: {
        id: pair?.id,
        persons: [Math.min(marie, twin), Math.max(marie, twin)],
        grade: pair?.grade,
        score: pair?.score,
      },
    });
  });
});
