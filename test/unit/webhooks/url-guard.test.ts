/**
 * The SSRF guard of webhooks (API.md 16, "No internal targets"): which addresses are refused and why,
 * and which URLs a subscription may name, with a test resolver standing in for DNS.
 */
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { WebhookUrlRefused } from '../../../lib/domain/errors';
import { checkWebhookUrl, forbiddenReason, type Resolve } from '../../../lib/webhooks/url-guard';

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
