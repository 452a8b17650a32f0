/**
 * The SSRF guard of webhooks (API.md 16, "No internal targets"): which addresses are refused and why,
 * which URLs a subscription may name, and one delivery against real HTTP servers on loopback, with a
 * test resolver standing in for DNS.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookUrlRefused } from '../../../lib/domain/errors';
import { checkWebhookUrl, deliver, forbiddenReason, type Resolve } from '../../../lib/webhooks/url-guard';

const PUBLIC_V4 = '93.184.216.34';

/** A resolver that answers each call with the next list of `answers` (the last one from then on). */
const resolver = (...answers: string[][]) => {
  const calls: string[] = [];
  const resolve: Resolve = async (hostname) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    return answer.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
};

/** A resolver that must not be asked: an IP literal is checked as it is. */
const noLookup: Resolve = async (hostname) => {
  throw new Error(`looked up ${hostname}`);
};

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => {
      expect(error).toBeInstanceOf(WebhookUrlRefused);
      return (error as WebhookUrlRefused).reason;
    },
  );

describe('forbiddenReason: only public unicast addresses are targets', () => {
  it.each<[string, string, RegExp]>([
    ['private 10/8', '10.0.0.7', /private/],
    ['private 172.16/12', '172.16.5.4', /private/],
    ['private 192.168/16', '192.168.1.1', /private/],
    ['loopback', '127.0.0.1', /loopback/],
    ['loopback, elsewhere in 127/8', '127.255.0.9', /loopback/],
    ['cloud metadata (AWS, GCP, Azure)', '169.254.169.254', /metadata/],
    ['ECS task metadata', '169.254.170.2', /metadata/],
    ['link-local', '169.254.1.1', /link-local/],
    ['carrier-grade NAT', '100.64.0.1', /carrier-grade NAT/],
    ['multicast', '224.0.0.1', /multicast/],
    ['broadcast', '255.255.255.255', /broadcast/],
    ['unspecified', '0.0.0.0', /unspecified/],
    ['"this network" 0/8', '0.1.2.3', /unspecified/],
    ['reserved 240/4', '240.0.0.1', /reserved/],
    ['documentation (TEST-NET-1)', '192.0.2.1', /reserved/],
    ['benchmarking 198.18/15', '198.18.0.1', /reserved/],
  ])('refuses IPv4 %s (%s)', (_, address, reason) => {
    expect(forbiddenReason(address)).toMatch(reason);
    expect(forbiddenReason(address)).toContain(address);
  });

  it.each<[string, string, RegExp]>([
    ['loopback', '::1', /loopback/],
    ['unspecified', '::', /unspecified/],
    ['link-local', 'fe80::1', /link-local/],
    ['link-local with a zone', 'fe80::1%eth0', /link-local/],
    ['unique-local fc00::/7', 'fd12:3456::1', /unique-local/],
    ['unique-local fc00::', 'fc00::1', /unique-local/],
    ['AWS metadata over IPv6', 'fd00:ec2::254', /metadata/],
    ['multicast', 'ff02::1', /multicast/],
    ['documentation 2001:db8::/32', '2001:db8::1', /reserved/],
    ['site-local (deprecated)', 'fec0::1', /site-local/],
    ['discard-only', '100::1', /discard/],
    ['outside 2000::/3', '4000::1', /global unicast/],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', /IPv4-mapped address of 127\.0\.0\.1, a loopback/],
    [
      'IPv4-mapped metadata',
      '::ffff:169.254.169.254',
      /IPv4-mapped address of 169\.254\.169\.254, the cloud/,
    ],
    ['IPv4-mapped private, in hex', '::ffff:a00:1', /IPv4-mapped address of 10\.0\.0\.1, a private/],
    ['IPv4-compatible loopback', '::127.0.0.1', /IPv4-compatible address of 127\.0\.0\.1/],
    ['IPv4-translated (RFC 6145) private', '::ffff:0:a00:1', /IPv4-translated address .*of 10\.0\.0\.1/],
    ['NAT64 of a private address', '64:ff9b::10.0.0.1', /NAT64 address .*of 10\.0\.0\.1, a private/],
    ['NAT64 of the metadata address', '64:ff9b::a9fe:a9fe', /NAT64 .*the cloud/],
    ['local-use NAT64', '64:ff9b:1::a00:1', /local-use NAT64/],
    ['6to4 of a private address', '2002:a00:1::1', /6to4 address of 10\.0\.0\.1/],
    ['6to4 of loopback', '2002:7f00:1::', /6to4 address of 127\.0\.0\.1, a loopback/],
    ['Teredo, its client private', '2001:0:4136:e378:8000:63bf:f5ff:fffe', /Teredo address of 10\.0\.0\.1/],
    ['Teredo, its server private', '2001:0:a00:1::1', /Teredo address of 10\.0\.0\.1/],
  ])('refuses IPv6 %s (%s)', (_, address, reason) => {
    expect(forbiddenReason(address)).toMatch(reason);
  });

  it.each(['example.com', '', '1.2.3.4.5', '::ffff::1', 'http://8.8.8.8/'])(
    'refuses what is not an IP address (%j)',
    (text) => {
      expect(forbiddenReason(text)).toMatch(/not an IP address/);
    },
  );

  it.each([
    PUBLIC_V4,
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('passes the public address %s', (address) => {
    expect(forbiddenReason(address)).toBeNull();
  });

  it('passes loopback, as itself or IPv4-mapped, only with loopback allowed, and nothing else internal', () => {
    for (const address of ['127.0.0.1', '::1', '::ffff:127.0.0.1'])
      expect({ address, reason: forbiddenReason(address, { allowLoopback: true }) }).toEqual({
        address,
        reason: null,
      });
    for (const address of [
      '10.0.0.7',
      '169.254.169.254',
      'fd00:ec2::254',
      '0.0.0.0',
      '2002:7f00:1::',
      '::127.0.0.1',
    ])
      expect(forbiddenReason(address, { allowLoopback: true })).not.toBeNull();
  });
});

describe('checkWebhookUrl: the URL a subscription names', () => {
  it('takes a public https URL, its name resolved once, and answers the URL and its addresses', async () => {
    const { resolve, calls } = resolver([PUBLIC_V4, '2606:4700:4700::1111']);

    const checked = await checkWebhookUrl('https://hooks.example.test/in?x=1', { resolve });

    expect(checked.url.href).toBe('https://hooks.example.test/in?x=1');
    expect(checked.addresses).toEqual([PUBLIC_V4, '2606:4700:4700::1111']);
    expect(calls).toEqual(['hooks.example.test']);
  });

  it('takes a public IP literal as it is, without a lookup', async () => {
    expect((await checkWebhookUrl(`https://${PUBLIC_V4}/`, { resolve: noLookup })).addresses).toEqual([
      PUBLIC_V4,
    ]);
  });

  it.each([
    'https://2130706433/',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0x7f000001/',
    'https://0251.0376.0251.0376/',
    'https://169.254.43518/',
    'https://[::ffff:7f00:1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::127.0.0.1]/',
    'https://[0:0:0:0:0:0:0:1]/',
    'https://[fd00:ec2::254]/latest/meta-data/',
  ])('refuses the odd spelling %s of an internal address, without a lookup', async (url) => {
    expect(await refusal(checkWebhookUrl(url, { resolve: noLookup }))).toMatch(
      /loopback|metadata|link-local/,
    );
  });

  it.each<[string, RegExp]>([
    ['http://127.0.0.1:8080/', /only https/],
    [`http://${PUBLIC_V4}/`, /only https/],
    ['ftp://hooks.example.test/', /only https URLs are taken, not ftp/],
    ['file:///etc/passwd', /only https URLs are taken, not file/],
    ['gopher://127.0.0.1:6379/', /only https URLs are taken, not gopher/],
    ['https://user:secret@hooks.example.test/', /user name or password/],
    ['https://user@hooks.example.test/', /user name or password/],
    ['hooks.example.test/in', /not an absolute URL/],
    ['', /not an absolute URL/],
  ])('refuses %j', async (url, reason) => {
    expect(await refusal(checkWebhookUrl(url, { resolve: noLookup }))).toMatch(reason);
  });

  it('takes http to loopback or localhost only with loopback allowed, and then only to loopback', async () => {
    const local = resolver(['127.0.0.1', '::1']);
    await expect(
      checkWebhookUrl('http://127.0.0.1:8080/', { allowLoopback: true, resolve: noLookup }),
    ).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
    await expect(
      checkWebhookUrl('http://[::1]:8080/', { allowLoopback: true, resolve: noLookup }),
    ).resolves.toMatchObject({ addresses: ['::1'] });
    await expect(
      checkWebhookUrl('http://localhost:8080/', { allowLoopback: true, resolve: local.resolve }),
    ).resolves.toMatchObject({ addresses: ['127.0.0.1', '::1'] });

    expect(await refusal(checkWebhookUrl('http://localhost:8080/', { resolve: local.resolve }))).toMatch(
      /only https/,
    );
    expect(
      await refusal(checkWebhookUrl(`http://${PUBLIC_V4}/`, { allowLoopback: true, resolve: noLookup })),
    ).toMatch(/only to a loopback address/);
    expect(
      await refusal(
        checkWebhookUrl('http://hooks.example.test/', {
          allowLoopback: true,
          resolve: resolver(['127.0.0.1']).resolve,
        }),
      ),
    ).toMatch(/only to a loopback address/);
    expect(
      await refusal(
        checkWebhookUrl('http://localhost/', { allowLoopback: true, resolve: resolver([PUBLIC_V4]).resolve }),
      ),
    ).toMatch(/http is taken only to loopback, and 93\.184\.216\.34 is not/);
  });

  it('refuses https to localhost unless loopback is allowed', async () => {
    const { resolve } = resolver(['127.0.0.1']);
    expect(await refusal(checkWebhookUrl('https://localhost/', { resolve }))).toMatch(
      /localhost resolves to an address that may not be a target: 127\.0\.0\.1 is a loopback address/,
    );
    await expect(
      checkWebhookUrl('https://localhost/', { allowLoopback: true, resolve }),
    ).resolves.toBeDefined();
  });

  it('refuses a name that resolves to a private address, or to one among public ones: every address is checked', async () => {
    expect(
      await refusal(
        checkWebhookUrl('https://internal.example.test/', { resolve: resolver(['10.0.0.7']).resolve }),
      ),
    ).toBe(
      'internal.example.test resolves to an address that may not be a target: 10.0.0.7 is a private address (RFC 1918)',
    );
    expect(
      await refusal(
        checkWebhookUrl('https://mixed.example.test/', {
          resolve: resolver([PUBLIC_V4, '2606:4700:4700::1111', 'fd00:ec2::254']).resolve,
        }),
      ),
    ).toMatch(/fd00:ec2::254 is the cloud instance metadata service's address/);
  });

  it('refuses a name that resolves to nothing, or does not resolve', async () => {
    expect(
      await refusal(checkWebhookUrl('https://empty.example.test/', { resolve: resolver([]).resolve })),
    ).toMatch(/resolves to no address/);
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await refusal(checkWebhookUrl('https://nowhere.example.test/', { resolve: failing }))).toMatch(
      /nowhere\.example\.test does not resolve/,
    );
  });
});

/** What a test receiver saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver on loopback whose answer each test sets; it records every request it gets. */
const receiver = () => {
  const seen: Seen[] = [];
  let respond: (response: import('node:http').ServerResponse) => void = (response) => response.end();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      respond(response);
    });
  });
  return {
    server,
    seen,
    answer: (next: typeof respond) => {
      respond = next;
    },
    url: (path = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
  };
};

const listening = <T extends Server | TcpServer>(server: T) =>
  new Promise<T>((done) => server.listen(0, '127.0.0.1', () => done(server)));

const closed = (server: Server | TcpServer) =>
  new Promise<void>((done) => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close(() => done());
  });

describe('deliver: one POST, to the address checked', () => {
  const hook = receiver();
  /** A bare TCP listener that counts connections: whether anything at all reached it. */
  let connections = 0;
  const tcp = createTcpServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  const tcpPort = () => (tcp.address() as AddressInfo).port;

  beforeAll(async () => {
    await listening(hook.server);
    await listening(tcp);
  });

  afterAll(async () => {
    await closed(hook.server);
    await closed(tcp);
  });

  it('answers 200 with the body and headers of the answer, and the receiver gets the body and headers sent', async () => {
    hook.answer((response) => response.writeHead(200, { 'x-receiver': 'yes' }).end('thanks'));
    const before = hook.seen.length;

    const delivery = await deliver(hook.url(), {
      body: '{"type":"person.created"}',
      headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' },
      allowLoopback: true,
    });

    expect(delivery).toMatchObject({
      kind: 'answered',
      status: 200,
      body: 'thanks',
      truncated: false,
      headers: expect.objectContaining({ 'x-receiver': 'yes' }),
    });
    expect(delivery.durationMs).toBeGreaterThanOrEqual(0);
    expect(hook.seen.slice(before)).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hook',
        body: '{"type":"person.created"}',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'webhook-id': 'evt_1',
          'content-length': '25',
        }),
      }),
    ]);
  });

  it('delivers to localhost through the resolver, asked once', async () => {
    hook.answer((response) => response.writeHead(204).end());
    const { resolve, calls } = resolver(['127.0.0.1']);
    const url = hook.url().replace('127.0.0.1', 'localhost');

    expect(await deliver(url, { body: '{}', allowLoopback: true, resolve })).toMatchObject({
      kind: 'answered',
      status: 204,
    });
    expect(calls).toEqual(['localhost']);
  });

  it('follows no redirect: a 302 is the answer, and its Location is never asked', async () => {
    hook.answer((response) => response.writeHead(302, { location: hook.url('/elsewhere') }).end());
    const before = hook.seen.length;

    const delivery = await deliver(hook.url(), { body: '{}', allowLoopback: true });

    expect(delivery).toMatchObject({ kind: 'answered', status: 302 });
    expect(hook.seen.slice(before).map(({ url }) => url)).toEqual(['/hook']);
  });

  it('reads a 1 MiB answer to 64 KiB and no further', async () => {
    hook.answer((response) => response.writeHead(200).end('x'.repeat(1024 * 1024)));

    const delivery = await deliver(hook.url(), { body: '{}', allowLoopback: true });

    expect(delivery).toMatchObject({ kind: 'answered', status: 200, truncated: true });
    expect(delivery.kind === 'answered' && delivery.body.length).toBe(65_536);
  });

  it('reads an answer of exactly the limit whole', async () => {
    hook.answer((response) => response.writeHead(200).end('y'.repeat(1000)));

    expect(await deliver(hook.url(), { body: '{}', allowLoopback: true, maxBodyBytes: 1000 })).toMatchObject({
      kind: 'answered',
      truncated: false,
      body: 'y'.repeat(1000),
    });
  });

  it('gives up on a receiver that never answers: timeout', async () => {
    hook.answer(() => {});

    const delivery = await deliver(hook.url(), { body: '{}', allowLoopback: true, timeoutMs: 200 });

    expect(delivery).toMatchObject({ kind: 'timeout' });
    expect(delivery.durationMs).toBeGreaterThanOrEqual(190);
    expect(delivery.durationMs).toBeLessThan(5_000);
  });

  it('gives up on an answer that does not end in time: timeout', async () => {
    hook.answer((response) => response.writeHead(200).write('partial'));

    expect(await deliver(hook.url(), { body: '{}', allowLoopback: true, timeoutMs: 200 })).toMatchObject({
      kind: 'timeout',
    });
  });

  it('answers refused for a closed port', async () => {
    const gone = await listening(createTcpServer());
    const port = (gone.address() as AddressInfo).port;
    await closed(gone);

    expect(await deliver(`http://127.0.0.1:${port}/hook`, { body: '{}', allowLoopback: true })).toMatchObject(
      {
        kind: 'refused',
        reason: expect.stringContaining('ECONNREFUSED'),
      },
    );
  });

  it('refuses, sending nothing, a name that answered a public address at registration and a private one at delivery', async () => {
    const { resolve, calls } = resolver([PUBLIC_V4], ['127.0.0.1', '10.0.0.7']);
    const url = `https://rebind.example.test:${tcpPort()}/hook`;
    const before = connections;

    await expect(checkWebhookUrl(url, { allowLoopback: true, resolve })).resolves.toMatchObject({
      addresses: [PUBLIC_V4],
    });
    const delivery = await deliver(url, { body: '{}', allowLoopback: true, resolve });

    expect(delivery).toMatchObject({
      kind: 'forbidden',
      reason:
        'rebind.example.test resolves to an address that may not be a target: 10.0.0.7 is a private address (RFC 1918)',
    });
    expect(calls).toEqual(['rebind.example.test', 'rebind.example.test']);
    expect(connections).toBe(before);
  });

  it('refuses, sending nothing, a name that resolves to loopback at delivery when loopback is not allowed', async () => {
    const { resolve } = resolver([PUBLIC_V4], ['127.0.0.1']);
    const url = `https://rebind.example.test:${tcpPort()}/hook`;
    const before = connections;

    await checkWebhookUrl(url, { resolve });
    expect(await deliver(url, { body: '{}', resolve })).toMatchObject({
      kind: 'forbidden',
      reason: expect.stringContaining('127.0.0.1 is a loopback address'),
    });
    expect(connections).toBe(before);
  });

  it('connects to the address it checked: the same name answering loopback, allowed, reaches the listener', async () => {
    // The control of the two tests above: the listener would have seen those connections.
    const { resolve, calls } = resolver(['127.0.0.1']);
    const before = connections;

    const delivery = await deliver(`https://rebind.example.test:${tcpPort()}/hook`, {
      body: '{}',
      allowLoopback: true,
      resolve,
    });

    expect(delivery.kind).not.toBe('forbidden');
    expect(delivery.kind).not.toBe('answered');
    expect(calls).toEqual(['rebind.example.test']);
    expect(connections).toBe(before + 1);
  });

  it.each([
    ['an internal IP literal', 'https://169.254.169.254/latest/meta-data/', true, /metadata/],
    ['an odd spelling of loopback', 'https://2130706433/', false, /loopback/],
    ['plain http without loopback allowed', 'http://127.0.0.1/', false, /only https/],
    ['credentials', 'https://user:pw@hooks.example.test/', true, /user name or password/],
  ])('refuses at delivery %s, looking nothing up', async (_, url, allowLoopback, reason) => {
    expect(await deliver(url, { body: '{}', allowLoopback, resolve: noLookup })).toMatchObject({
      kind: 'forbidden',
      reason: expect.stringMatching(reason),
    });
  });

  it('answers failed, not forbidden, for a name that does not resolve at delivery', async () => {
    const failing: Resolve = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.example.test'), { code: 'ENOTFOUND' });
    };
    expect(await deliver('https://gone.example.test/', { body: '{}', resolve: failing })).toMatchObject({
      kind: 'failed',
      reason: expect.stringContaining('ENOTFOUND'),
    });
  });
});
