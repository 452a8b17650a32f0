import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_EMAILS } from '../../lib/local/fixture-provider';
import { personBody, uniqueEmail, uniqueTag } from '../support/api';
import { type RequestOptions, request } from '../support/http';
import { type ServerProcess, startServer } from '../support/server';

/** How long a newcomer may wait for SocialAddresses to appear after a create. */
const FILL_WITHIN_MS = 20_000;
/** How long a disabled enrichment is given to prove it writes nothing. */
const QUIET_FOR_MS = 3_000;

const EMPTY = { '@type': 'SocialAddresses', twitter: null, facebook: null, linkedin: null, youtube: null };

interface Reply {
  status: number;
  etag: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by the assertions themselves
  body: Record<string, any>;
}

const call = async (
  server: ServerProcess,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> => {
  const response = await request(server, method, path, options);
  return {
    status: response.status,
    etag: response.headers.get('etag'),
    body: (await response.json()) as Reply['body'],
  };
};

const post = (server: ServerProcess, body: object) => call(server, 'POST', '/Person', { body, requester: 0 });

const get = (server: ServerProcess, id: number) => call(server, 'GET', `/Person/${id}`);

/** GET until the person is at `version`, for at most FILL_WITHIN_MS. */
const enriched = async (server: ServerProcess, id: number, version = 2) => {
  const deadline = Date.now() + FILL_WITHIN_MS;
  for (;;) {
    const reply = await get(server, id);
    if (reply.body.CoreMetaData?.version >= version) return reply;
    if (Date.now() > deadline)
      throw new Error(`Person ${id} was not enriched within ${FILL_WITHIN_MS} ms:\n${server.output()}`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
};

const createWith = async (server: ServerProcess, email: string, extra: Record<string, unknown> = {}) => {
  const created = await post(server, { ...personBody('Local', uniqueTag('Person'), email), ...extra });
  expect(created.status).toBe(201);
  return created.body;
};

let server: ServerProcess;
let disabled: ServerProcess;
beforeAll(async () => {
  // Without ENRICHMENT_URL the local fixture provider answers, whatever the shell running the tests says.
  [server, disabled] = await Promise.all([
    startServer({ env: { ENRICHMENT_URL: '', ENRICHMENT: '' } }),
    startServer({ env: { ENRICHMENT_URL: '', ENRICHMENT: 'off' } }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.stop(), disabled?.stop()]);
});

describe('npm start: enrichment from the local fixture provider', () => {
  it('ships fixtures for the emails this file relies on', () => {
    expect(FIXTURE_EMAILS).toEqual(
      expect.arrayContaining(['ada@example.org', 'grace@example.org', 'alan@example.org']),
    );
    expect(server.output()).toContain('local fixture provider');
  });

  it(
    'answers a create at once with empty SocialAddresses, then fills them from the fixtures',
    async () => {
      const created = await createWith(server, 'ada@example.org');
      expect(created.SocialAddresses).toEqual(EMPTY);
      expect(created.CoreMetaData.version).toBe(1);

      const { body, etag } = await enriched(server, created.id);

      expect(body.SocialAddresses).toEqual({
        '@type': 'SocialAddresses',
        twitter: 'https://x.com/adalovelace',
        facebook: 'https://www.facebook.com/ada.lovelace',
        linkedin: 'https://www.linkedin.com/in/ada-lovelace',
        youtube: null,
      });
      expect(body.CoreMetaData).toMatchObject({ version: 2, modified_by: null });
      expect(etag).toBe('"2"');
    },
    FILL_WITHIN_MS + 10_000,
  );

  it(
    'keeps a value the client set, fills the rest, and records an enrich AuditEntry with requester null',
    async () => {
      const created = await createWith(server, 'grace@example.org', {
        SocialAddresses: { twitter: 'https://x.com/own' },
      });

      const { body } = await enriched(server, created.id);

      expect(body.SocialAddresses).toEqual({
        '@type': 'SocialAddresses',
        twitter: 'https://x.com/own',
        facebook: null,
        linkedin: 'https://www.linkedin.com/in/grace-hopper',
        youtube: 'https://www.youtube.com/@gracehopper',
      });
      const history = await call(server, 'GET', `/Person/${created.id}/audit`);
      expect(history.status).toBe(200);
      expect(history.body.items).toEqual([
        expect.objectContaining({ action: 'enrich', requester: null, changed: ['/SocialAddresses'] }),
        expect.objectContaining({ action: 'create' }),
      ]);
    },
    FILL_WITHIN_MS + 10_000,
  );

  it(
    'leaves the SocialAddresses of an email the fixtures do not know null',
    async () => {
      const unknown = await createWith(server, uniqueEmail('unknown'));
      // The stream delivers in order: once the next person is enriched, the unknown one was looked up.
      const known = await createWith(server, 'alan@example.org');
      await enriched(server, known.id);

      const { body, etag } = await get(server, unknown.id);

      expect(body.SocialAddresses).toEqual(EMPTY);
      expect(body.CoreMetaData.version).toBe(1);
      expect(etag).toBe('"1"');
    },
    FILL_WITHIN_MS + 10_000,
  );
});

describe('npm start with ENRICHMENT=off', () => {
  it('says enrichment is off and fills nothing', async () => {
    expect(disabled.output()).toContain('Enrichment: off');
    const created = await createWith(disabled, 'ada@example.org');

    await new Promise((wait) => setTimeout(wait, QUIET_FOR_MS));

    const { body } = await get(disabled, created.id);
    expect(body.SocialAddresses).toEqual(EMPTY);
    expect(body.CoreMetaData.version).toBe(1);
  });
});
