/**
 * Requester binding (API.md 9.1, issue #40) in the handlers, against DynamoDB Local: the caller is
 * what API Gateway's authorizer put in the request context (a JWT's claims, or the IAM caller), as
 * deployed. With binding on: no caller is 401; a self-registration binds the caller to the new person
 * in the create's own transaction, and a second one is 409 `principal-already-bound`; ten concurrent
 * self-registrations by one principal make exactly one person; a write naming another person is 403
 * `requester-mismatch` and writes nothing; a delegate (scope or listed ARN) writes as anyone, its
 * principal in `provider_data.caller`; a requester merged into another acts as its survivor. With
 * binding off, nothing changes.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildHandler as buildOwnPerson } from '../../functions/get-own-person';
import { changeHistory } from '../../lib/db/history/change-history';
import { personPrincipalKey, principalKey } from '../../lib/db/table/keys';
import { DELEGATE_SCOPE, principalName } from '../../lib/domain/principal';
import type { HttpConfig } from '../../lib/http/config';
import { type CallOptions, personApi, personBody, uniqueEmail, uniqueTag } from '../support/api';
import { testRepository } from '../support/dynamo';
import { httpEvent, invoke } from '../support/events';
import { integrationSuite } from '../support/suite';

const suite = integrationSuite();
const ISSUER = 'https://issuer.example.test';
const IMPORTER = 'arn:aws:iam::123456789012:role/importer';
const BOUND: HttpConfig = { requesterBinding: true, delegates: [IMPORTER] };

type Authorizer = NonNullable<Parameters<typeof httpEvent>[0]['authorizer']>;
const jwt = (subject: string, scope?: string): Authorizer => ({
  jwt: { claims: { iss: ISSUER, sub: subject, ...(scope ? { scope } : {}) } },
});
const iam = (arn: string): Authorizer => ({ iam: { userArn: arn } });

interface Call extends CallOptions {
  config?: HttpConfig;
}

/** The handlers as deployed with `config`: requester binding on, unless said. */
const api = (config: HttpConfig = BOUND) => personApi(testRepository(suite.table), config);
const post = (body: unknown, { config, ...call }: Call = {}) => api(config).post(body, call);
const patch = (id: number, body: unknown, { config, ...call }: Call = {}) =>
  api(config).patch(id, body, call);
const merge = (id: number, source: number, { config, ...call }: Call = {}) =>
  api(config).merge(id, { source }, call);

/** GET /Person/me as `authorizer`'s caller. */
const ownOf = (authorizer: Authorizer) =>
  invoke(
    buildOwnPerson({ persons: testRepository(suite.table) }),
    httpEvent({ method: 'GET', route: '/Person/me', authorizer }),
  );

/** A person registered by the JWT subject `subject`, and so bound to it. */
const registered = async (subject: string) => {
  const created = await post(personBody('Self', uniqueTag(subject), uniqueEmail(subject)), {
    authorizer: jwt(subject),
  });
  expect(created.status).toBe(201);
  return created.body;
};

describe('requester binding on (API.md 9.1)', () => {
  it('answers a write without an authenticated caller 401, before anything else, writing nothing', async () => {
    const refused = await suite.unchangedBy(() => post(personBody('No', 'Token'), { requester: null }));
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.body).toMatchObject({ type: '/problems/unauthorized', status: 401 });
  });

  it('binds a self-registration to its caller; a second one by that caller is 409 naming its person', async () => {
    const subject = uniqueTag('ada');
    const ada = await registered(subject);
    expect(ada.CoreMetaData.created_by).toBe(ada.id);
    const again = await suite.unchangedBy(() =>
      post(personBody('Ada', 'Again', uniqueEmail()), { authorizer: jwt(subject) }),
    );
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      type: '/problems/principal-already-bound',
      errors: [{ existing: `https://api.example.test/Person/${ada.id}` }],
    });
  });

  it('makes exactly one person of ten concurrent self-registrations by one principal', async () => {
    const subject = uniqueTag('racer');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        post(personBody('Racer', `${subject}n${n}`, uniqueEmail()), { authorizer: jwt(subject) }),
      ),
    );
    expect(answers.map(({ status }) => status).sort()).toEqual([201, ...Array(9).fill(409)]);
  });

  it('lets a bound caller write as its own person, and refuses any other requester 403, writing nothing', async () => {
    const subject = uniqueTag('grace');
    const grace = await registered(subject);
    const other = await registered(uniqueTag('other'));
    const own = await patch(grace.id, { local_reference_id: 'mine' }, { authorizer: jwt(subject) });
    expect(own.status).toBe(200);
    // Binding is about who is named as requester, not which person is written: Grace may change
    // another person, as herself.
    const asHerself = await patch(
      other.id,
      { local_reference_id: 'by-grace' },
      { requester: grace.id, authorizer: jwt(subject) },
    );
    expect(asHerself.status).toBe(200);
    expect(asHerself.body.CoreMetaData.modified_by).toBe(grace.id);
    for (const refused of [
      await suite.unchangedBy(() =>
        patch(other.id, { local_reference_id: 'x' }, { requester: other.id, authorizer: jwt(subject) }),
      ),
      await suite.unchangedBy(() =>
        post(personBody('By', 'Grace', uniqueEmail()), { requester: other.id, authorizer: jwt(subject) }),
      ),
      // A change of nothing is refused too: the caller proves nothing by changing nothing.
      await suite.unchangedBy(() => patch(other.id, {}, { requester: other.id, authorizer: jwt(subject) })),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ type: '/problems/requester-mismatch' });
    }
    // An unbound caller may only register itself.
    const stranger = await suite.unchangedBy(() =>
      patch(
        grace.id,
        { local_reference_id: 'y' },
        { requester: grace.id, authorizer: jwt(uniqueTag('stranger')) },
      ),
    );
    expect(stranger.status).toBe(403);
  });

  it('lets a delegate write as any person, by its scope or its listed ARN, naming it in provider_data.caller', async () => {
    const grace = await registered(uniqueTag('grace'));
    const byScope = await post(personBody('Imported', uniqueTag('Scope'), uniqueEmail()), {
      requester: grace.id,
      authorizer: jwt('importer-service', `openid ${DELEGATE_SCOPE}`),
    });
    expect(byScope.status).toBe(201);
    expect(byScope.body.CoreMetaData.created_by).toBe(grace.id);
    const byArn = await patch(grace.id, { local_reference_id: 'imported' }, { authorizer: iam(IMPORTER) });
    expect(byArn.status).toBe(200);
    const page = await changeHistory(suite.table).entriesOf('Person', grace.id, { offset: 0, limit: 1 });
    expect(page?.changes[0]?.provider_data.caller).toBe(IMPORTER);
    // A delegate's requester 0 registers the new person without binding the delegate to it.
    const first = await post(personBody('Self', uniqueTag('ByDelegate'), uniqueEmail()), {
      authorizer: iam(IMPORTER),
    });
    const second = await post(personBody('Self', uniqueTag('ByDelegate'), uniqueEmail()), {
      authorizer: iam(IMPORTER),
    });
    expect([first.status, second.status]).toEqual([201, 201]);
    // An IAM caller not listed is bound like any other.
    const listed = await patch(grace.id, {}, { authorizer: iam(`${IMPORTER}-2`) });
    expect(listed.status).toBe(403);
  });

  it('leaves a merge to delegates: any other caller, its own person the survivor or not, preview or not, is 403, writing nothing', async () => {
    const subject = uniqueTag('keeper');
    const keeper = await registered(subject);
    const dupe = await post(personBody('Dupe', uniqueTag('Of'), uniqueEmail()), {
      requester: keeper.id,
      authorizer: jwt(subject),
    });
    const stranger = await registered(uniqueTag('stranger'));
    for (const [requester, body] of [
      [keeper.id, { source: dupe.body.id }],
      [keeper.id, { source: dupe.body.id, preview: true }],
      [stranger.id, { source: dupe.body.id }],
    ] as const) {
      const refused = await suite.unchangedBy(() =>
        api().merge(keeper.id, body, { requester, authorizer: jwt(subject) }),
      );
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(refused.body).toMatchObject({ type: '/problems/delegate-required', status: 403 });
    }
    // An IAM caller not listed as a delegate is refused the same; a listed one merges.
    expect(
      (await suite.unchangedBy(() => merge(keeper.id, dupe.body.id, { authorizer: iam(`${IMPORTER}-2`) })))
        .status,
    ).toBe(403);
    expect((await merge(keeper.id, dupe.body.id, { authorizer: iam(IMPORTER) })).status).toBe(200);
  });

  it('refuses the probe’s merges (issue #53): Bob’s person into an unbound one, or Erin’s own into any', async () => {
    const [aliceSubject, bobSubject, erinSubject] = [uniqueTag('alice'), uniqueTag('bob'), uniqueTag('erin')];
    const [alice, bob, erin] = [
      await registered(aliceSubject),
      await registered(bobSubject),
      await registered(erinSubject),
    ];
    const unbound = (
      await post(personBody('Unbound', uniqueTag('Target'), uniqueEmail()), { authorizer: iam(IMPORTER) })
    ).body;
    for (const refused of [
      await suite.unchangedBy(() =>
        merge(unbound.id, bob.id, { requester: alice.id, authorizer: jwt(aliceSubject) }),
      ),
      await suite.unchangedBy(() =>
        merge(unbound.id, erin.id, { requester: erin.id, authorizer: jwt(erinSubject) }),
      ),
    ]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ type: '/problems/delegate-required' });
    }
    // Bob is still Bob's, Erin still Erin's.
    expect((await ownOf(jwt(bobSubject))).headers.location).toBe(`https://api.example.test/Person/${bob.id}`);
    expect((await ownOf(jwt(erinSubject))).headers.location).toBe(
      `https://api.example.test/Person/${erin.id}`,
    );
  });
});

describe('GET /Person/me (API.md 9.1)', () => {
  const me = (authorizer?: Authorizer) =>
    invoke(
      buildOwnPerson({ persons: testRepository(suite.table) }),
      httpEvent({ method: 'GET', route: '/Person/me', ...(authorizer ? { authorizer } : {}) }),
    );

  it("answers 303 to the caller's own person, 404 to a caller bound to none, 401 to no caller", async () => {
    const subject = uniqueTag('me');
    const own = await registered(subject);
    const found = await me(jwt(subject));
    expect(found.status).toBe(303);
    expect(found.headers.location).toBe(`https://api.example.test/Person/${own.id}`);
    const unbound = await me(jwt(uniqueTag('nobody')));
    expect(unbound.status).toBe(404);
    expect(unbound.body).toMatchObject({ type: '/problems/not-found' });
    const none = await me();
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ type: '/problems/unauthorized' });
  });
});

describe('a merge of bound persons (API.md 9.1 and 13)', () => {
  it('moves the source’s binding to an unbound survivor: its principal then writes as the survivor', async () => {
    const subject = uniqueTag('moved');
    const source = await registered(subject);
    const survivor = (
      await post(personBody('Survivor', uniqueTag('Unbound'), uniqueEmail()), { authorizer: iam(IMPORTER) })
    ).body;
    const merged = await merge(survivor.id, source.id, { requester: survivor.id, authorizer: iam(IMPORTER) });
    expect(merged.status).toBe(200);
    // Named as itself (merged) or as the survivor, the principal's write is the survivor's.
    for (const requester of [survivor.id, source.id]) {
      const written = await patch(
        survivor.id,
        { local_reference_id: `by-${requester}` },
        { requester, authorizer: jwt(subject) },
      );
      expect(written.status, String(requester)).toBe(200);
      expect(written.body.CoreMetaData.modified_by).toBe(survivor.id);
    }
    // And it is bound still: a self-registration is 409, naming the survivor.
    const again = await post(personBody('Once', uniqueTag('More'), uniqueEmail()), {
      authorizer: jwt(subject),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      errors: [{ existing: `https://api.example.test/Person/${survivor.id}` }],
    });
  });

  it('gives the source its binding back when the merge is undone (API.md 13.1): GET /Person/me names it again', async () => {
    const subject = uniqueTag('returns');
    const source = await registered(subject);
    const survivor = (
      await post(personBody('Survivor', uniqueTag('Lender'), uniqueEmail()), { authorizer: iam(IMPORTER) })
    ).body;
    expect(
      (await merge(survivor.id, source.id, { requester: survivor.id, authorizer: iam(IMPORTER) })).status,
    ).toBe(200);
    expect((await ownOf(jwt(subject))).headers.location).toMatch(new RegExp(`/Person/${survivor.id}$`));
    // The unmerge is a delegate's, as the merge is; the caller itself is refused.
    const refused = await suite.unchangedBy(() =>
      api().unmerge(survivor.id, { source: source.id }, { requester: survivor.id, authorizer: jwt(subject) }),
    );
    expect(refused.status).toBe(403);
    const undone = await api().unmerge(
      survivor.id,
      { source: source.id },
      { requester: survivor.id, authorizer: iam(IMPORTER) },
    );
    expect(undone.status).toBe(200);
    expect((await ownOf(jwt(subject))).headers.location).toMatch(new RegExp(`/Person/${source.id}$`));
    const own = await patch(
      source.id,
      { local_reference_id: 'mine-again' },
      { requester: source.id, authorizer: jwt(subject) },
    );
    expect(own.status).toBe(200);
    const notTheSurvivors = await patch(
      survivor.id,
      { local_reference_id: 'not-mine' },
      { requester: survivor.id, authorizer: jwt(subject) },
    );
    expect(notTheSurvivors.status).toBe(403);
  });

  it('refuses a merge of two persons bound to different principals with 409, writing nothing', async () => {
    const [first, second] = [await registered(uniqueTag('one')), await registered(uniqueTag('two'))];
    const refused = await suite.unchangedBy(() =>
      merge(first.id, second.id, { requester: first.id, authorizer: iam(IMPORTER) }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ type: '/problems/principal-already-bound' });
  });
});

describe('PUT and DELETE /Person/{id}/principal (API.md 9.1)', () => {
  const DELEGATE = jwt('admin-tool', DELEGATE_SCOPE);
  const bind = (id: number | string, body: unknown, authorizer: Authorizer = DELEGATE, config = BOUND) =>
    api(config).bind(id, body, { authorizer });
  const unbind = (id: number | string, authorizer: Authorizer = DELEGATE) => api().unbind(id, { authorizer });
  /** A person no principal is bound to (created by a delegate). */
  const unboundPerson = async () =>
    (await post(personBody('Unbound', uniqueTag('Person'), uniqueEmail()), { authorizer: iam(IMPORTER) }))
      .body;

  it('lets a delegate bind a principal to a person: that principal then writes as the person', async () => {
    const person = await unboundPerson();
    const subject = uniqueTag('joiner');
    const bound = await bind(person.id, { issuer: ISSUER, subject });
    expect(bound.status).toBe(204);
    expect(bound.body).toBeUndefined();
    expect((await ownOf(jwt(subject))).headers.location).toBe(`https://api.example.test/Person/${person.id}`);
    // Both sides keep which delegate bound them, and when.
    for (const Key of [
      personPrincipalKey(person.id),
      principalKey(principalName({ kind: 'jwt', issuer: ISSUER, subject })),
    ]) {
      const { Item } = await suite.table.client.send(
        new GetCommand({ TableName: suite.table.tableName, Key }),
      );
      expect(Item).toMatchObject({
        boundBy: { kind: 'jwt', issuer: ISSUER, subject: 'admin-tool' },
        boundAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
    }
    const written = await patch(person.id, { local_reference_id: 'own' }, { authorizer: jwt(subject) });
    expect(written.status).toBe(200);
    expect(written.body.CoreMetaData.modified_by).toBe(person.id);
    // Bound now: it registers no other person.
    const register = await post(personBody('Another', uniqueTag('Self'), uniqueEmail()), {
      authorizer: jwt(subject),
    });
    expect(register.status).toBe(409);
    // The same binding sent again is no change.
    expect((await suite.unchangedBy(() => bind(person.id, { issuer: ISSUER, subject }))).status).toBe(204);
  });

  it('binds an IAM principal by its arn, by a delegate listed by ARN', async () => {
    const person = await unboundPerson();
    const arn = `arn:aws:sts::123456789012:assumed-role/clerk/${uniqueTag('session')}`;
    expect((await bind(person.id, { arn }, iam(IMPORTER))).status).toBe(204);
    const written = await patch(person.id, { local_reference_id: 'by-arn' }, { authorizer: iam(arn) });
    expect(written.status).toBe(200);
  });

  it('binds before binding is turned on: a delegate by scope may, whatever the option says', async () => {
    const person = await unboundPerson();
    const subject = uniqueTag('early');
    expect((await bind(person.id, { issuer: ISSUER, subject }, DELEGATE, {})).status).toBe(204);
    expect((await ownOf(jwt(subject))).status).toBe(303);
  });

  it('refuses 409 a principal bound elsewhere (naming its person) and a person bound to another, writing nothing', async () => {
    const subject = uniqueTag('taken');
    const owner = await registered(subject);
    const person = await unboundPerson();
    const principalTaken = await suite.unchangedBy(() => bind(person.id, { issuer: ISSUER, subject }));
    expect(principalTaken.status).toBe(409);
    expect(principalTaken.body).toMatchObject({
      type: '/problems/principal-already-bound',
      errors: [{ existing: `https://api.example.test/Person/${owner.id}` }],
    });
    const personTaken = await suite.unchangedBy(() =>
      bind(owner.id, { issuer: ISSUER, subject: uniqueTag('new') }),
    );
    expect(personTaken.status).toBe(409);
    expect(personTaken.body).toMatchObject({ type: '/problems/principal-already-bound' });
  });

  it('binds one principal of ten sent at once to a person, and one person of ten to a principal', async () => {
    const person = await unboundPerson();
    const toOnePerson = await Promise.all(
      Array.from({ length: 10 }, () => bind(person.id, { issuer: ISSUER, subject: uniqueTag('rival') })),
    );
    expect(toOnePerson.map(({ status }) => status).sort()).toEqual([204, ...Array(9).fill(409)]);
    const subject = uniqueTag('wanted');
    const persons = await Promise.all(Array.from({ length: 10 }, unboundPerson));
    const oneSubject = await Promise.all(persons.map(({ id }) => bind(id, { issuer: ISSUER, subject })));
    expect(oneSubject.map(({ status }) => status).sort()).toEqual([204, ...Array(9).fill(409)]);
    const winner = persons[oneSubject.findIndex(({ status }) => status === 204)];
    expect((await ownOf(jwt(subject))).headers.location).toBe(
      `https://api.example.test/Person/${winner?.id}`,
    );
  });

  it('is for delegates only: 403 delegate-required to any other caller, 401 to none, writing nothing', async () => {
    const subject = uniqueTag('self');
    const own = await registered(subject);
    const person = await unboundPerson();
    for (const [authorizer, status] of [
      [jwt(subject), 403],
      [jwt(uniqueTag('unbound')), 403],
      [iam(`${IMPORTER}-2`), 403],
      [{}, 401],
    ] as const) {
      const binding = await suite.unchangedBy(() =>
        bind(person.id, { issuer: ISSUER, subject: 'x' }, authorizer),
      );
      const unbinding = await suite.unchangedBy(() => unbind(own.id, authorizer));
      for (const refused of [binding, unbinding]) {
        expect(refused.status).toBe(status);
        expect(refused.body).toMatchObject({
          type: status === 401 ? '/problems/unauthorized' : '/problems/delegate-required',
        });
      }
    }
  });

  it('refuses 400 a body that names no principal, or two, and 415 one that is not JSON, writing nothing', async () => {
    const person = await unboundPerson();
    for (const [body, path] of [
      [{}, '/issuer'],
      [{ issuer: ISSUER }, '/subject'],
      [{ subject: 'ada' }, '/issuer'],
      [{ issuer: ISSUER, subject: '  ' }, '/subject'],
      [{ issuer: ISSUER, subject: 7 }, '/subject'],
      [{ issuer: ISSUER, subject: 'ada', arn: IMPORTER }, ''],
      [{ arn: 'arn:aws:s3:::bucket' }, '/arn'],
      [{ issuer: ISSUER, subject: 'ada', role: 'admin' }, '/role'],
      [{ issuer: ISSUER, subject: 'x'.repeat(1025) }, '/subject'],
      [[], ''],
    ] as const) {
      const refused = await suite.unchangedBy(() => bind(person.id, body));
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body).toMatchObject({ type: '/problems/validation-error', errors: [{ path }] });
    }
    const notJson = await suite.unchangedBy(() =>
      api().bind(person.id, 'issuer=x&subject=y', {
        authorizer: DELEGATE,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(notJson.status).toBe(415);
  });

  it('answers 404 for no such person and 409 merged for a merged one, on both', async () => {
    const [survivor, source] = [await unboundPerson(), await unboundPerson()];
    expect((await merge(survivor.id, source.id, { authorizer: iam(IMPORTER) })).status).toBe(200);
    for (const request of [
      () => bind(source.id, { issuer: ISSUER, subject: uniqueTag('late') }),
      () => unbind(source.id),
    ]) {
      const refused = await suite.unchangedBy(request);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        type: '/problems/merged',
        errors: [{ existing: `https://api.example.test/Person/${survivor.id}` }],
      });
    }
    for (const id of [999_999_999, 'abc']) {
      expect((await suite.unchangedBy(() => bind(id, { issuer: ISSUER, subject: 'x' }))).status).toBe(404);
      expect((await suite.unchangedBy(() => unbind(id))).status).toBe(404);
    }
  });

  it('unbinds: the principal then writes as no one and may register itself; sent again, no change', async () => {
    const subject = uniqueTag('leaver');
    const person = await registered(subject);
    const unbound = await unbind(person.id);
    expect(unbound.status).toBe(204);
    expect((await ownOf(jwt(subject))).status).toBe(404);
    const refused = await suite.unchangedBy(() =>
      patch(person.id, { local_reference_id: 'gone' }, { authorizer: jwt(subject) }),
    );
    expect(refused.status).toBe(403);
    expect((await suite.unchangedBy(() => unbind(person.id))).status).toBe(204);
    // Both sides are free: the person takes another principal, the principal another person.
    expect((await bind(person.id, { issuer: ISSUER, subject: uniqueTag('successor') })).status).toBe(204);
    expect((await registered(subject)).id).not.toBe(person.id);
  });
});

describe('requester binding off (the default)', () => {
  it('lets any caller, or none, write as any person', async () => {
    const grace = await registered(uniqueTag('grace'));
    const open = { config: {} };
    expect(
      (await post(personBody('Open', uniqueTag('Door'), uniqueEmail()), { ...open, requester: grace.id }))
        .status,
    ).toBe(201);
    expect(
      (await patch(grace.id, { local_reference_id: 'open' }, { ...open, authorizer: jwt(uniqueTag('x')) }))
        .status,
    ).toBe(200);
  });

  it('lets any caller, or none, merge as before: a merge is a delegate’s only with binding on', async () => {
    const open = { config: {} };
    const survivor = (await post(personBody('Open', uniqueTag('Survivor'), uniqueEmail()), open)).body;
    const source = (await post(personBody('Open', uniqueTag('Source'), uniqueEmail()), open)).body;
    const previewed = await api({}).merge(
      survivor.id,
      { source: source.id, preview: true },
      { authorizer: jwt(uniqueTag('anyone')) },
    );
    expect(previewed.status).toBe(200);
    expect(
      (await merge(survivor.id, source.id, { ...open, authorizer: jwt(uniqueTag('anyone')) })).status,
    ).toBe(200);
    // Sent again with no caller at all: the same merge, answered again.
    expect((await merge(survivor.id, source.id, open)).status).toBe(200);
  });
});
