/**
 * The SSRF guard of webhooks (API.md 16, "No internal targets"; issue #59 step 3): a webhook URL is a
 * door into the service's network, so a subscriber may name only a public `https` target, and what a
 * name resolves to is checked when the subscription is written and again at every delivery, where the
 * connection is made to the very address checked (a name that answers a public address at registration
 * and a private one later, DNS rebinding, gets nothing).
 *
 * Addresses are classified by ipaddr.js's `range()`, the IANA special-purpose registries as a maintained
 * table, rather than by prefixes written out here; the forms that carry an IPv4 address inside an IPv6
 * one are read back to that address and judged by it.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { WebhookUrlRefused } from '../domain/errors';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

/** How a host name becomes addresses: every address it answers, as `dns.lookup(host, { all: true })`. */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver, the one a connection would use (`/etc/hosts` included). */
export const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true });

/** `npm start`'s switch for receivers on this machine (API.md 16); the stack never sets it. */
export const WEBHOOKS_ALLOW_LOOPBACK_ENV = 'WEBHOOKS_ALLOW_LOOPBACK';

/** Whether this process takes loopback targets: `WEBHOOKS_ALLOW_LOOPBACK=on`, read when asked. */
export const allowsLoopback = (env: NodeJS.ProcessEnv = process.env) =>
  env[WEBHOOKS_ALLOW_LOOPBACK_ENV] === 'on';

export interface GuardOptions {
  /** `http` to a loopback address or `localhost`, and loopback addresses, are taken (`WEBHOOKS_ALLOW_LOOPBACK=on`). */
  allowLoopback?: boolean;
  resolve?: Resolve;
}

/** What each range that is not a target is, as a refusal says it; ipaddr.js's names as keys. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  reserved: 'a reserved address',
  benchmarking: 'a benchmarking address',
  amt: 'an AMT relay address',
  as112: 'an AS112 address',
  as112v6: 'an AS112 address',
  uniqueLocal: 'an IPv6 unique-local address (fc00::/7)',
  deprecatedSiteLocal: 'an IPv6 site-local address (fec0::/10)',
  discard: 'an IPv6 discard-only address (100::/64)',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHID address',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID address',
  segmentRouting: 'an IPv6 segment routing address (5f00::/16)',
};

/** The instance metadata services of the clouds (AWS IMDS and ECS task metadata, GCP, Azure). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', 'fd00:ec2::23']);
const METADATA_NAME = "the cloud instance metadata service's address";

const ipv4Of = (high: number, low: number): IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The last 32 bits of an IPv6 address, as the IPv4 address they are. */
const lastIPv4 = ({ parts }: IPv6) => ipv4Of(parts[6] ?? 0, parts[7] ?? 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the form that carries them: a packet to it reaches,
 * or is translated or tunnelled to, that IPv4 address.
 */
const carried = (address: IPv6, range: string): { form: string; addresses: IPv4[] } | undefined => {
  const { parts } = address;
  switch (range) {
    case 'ipv4Mapped':
      return { form: 'an IPv4-mapped address', addresses: [address.toIPv4Address()] };
    case 'rfc6145':
      return { form: 'an IPv4-translated address (RFC 6145)', addresses: [lastIPv4(address)] };
    case 'rfc6052':
      return { form: 'a NAT64 address (64:ff9b::/96)', addresses: [lastIPv4(address)] };
    case '6to4':
      return { form: 'a 6to4 address', addresses: [ipv4Of(parts[1] ?? 0, parts[2] ?? 0)] };
    case 'teredo':
      return {
        form: 'a Teredo address',
        // The server's address as it is, the client's with every bit inverted (RFC 4380).
        addresses: [
          ipv4Of(parts[2] ?? 0, parts[3] ?? 0),
          ipv4Of(~(parts[6] ?? 0) & 0xffff, ~(parts[7] ?? 0) & 0xffff),
        ],
      };
    default:
      // ::a.b.c.d, the deprecated IPv4-compatible form (:: and ::1 have their own ranges).
      return range === 'unicast' && parts.slice(0, 6).every((part) => part === 0)
        ? { form: 'an IPv4-compatible address', addresses: [lastIPv4(address)] }
        : undefined;
  }
};

const ipv6Reason = (text: string, address: IPv6, allowLoopback: boolean): string | null => {
  if (METADATA.has(address.toRFC5952String())) return `${text} is ${METADATA_NAME}`;
  const range = address.range() as string;
  // 64:ff9b:1::/48 is NAT64 for a network's own use (RFC 8215): where it leads is the operator's choice.
  if (range === 'rfc6052' && address.parts[2] === 1)
    return `${text} is a local-use NAT64 address (64:ff9b:1::/48)`;
  const form = carried(address, range);
  if (form) {
    for (const inner of form.addresses) {
      const reason = ipv4Reason(inner, allowLoopback && range === 'ipv4Mapped');
      if (reason) return `${text} is ${form.form} of ${inner.toString()}, ${reason}`;
    }
    return null;
  }
  if (range === 'unicast') {
    // Every global unicast assignment is in 2000::/3; the rest of the space is unassigned or special.
    const first = address.parts[0] ?? 0;
    return first >= 0x2000 && first < 0x4000 ? null : `${text} is outside IPv6 global unicast (2000::/3)`;
  }
  if (range === 'loopback' && allowLoopback) return null;
  return `${text} is ${RANGE_NAMES[range] ?? `a special-purpose address (${range})`}`;
};

/** Why an IPv4 address is not a target, without the address itself; null when it is one. */
const ipv4Reason = (address: IPv4, allowLoopback: boolean): string | null => {
  if (METADATA.has(address.toString())) return METADATA_NAME;
  const range = address.range() as string;
  if (range === 'unicast' || (range === 'loopback' && allowLoopback)) return null;
  return RANGE_NAMES[range] ?? `a special-purpose address (${range})`;
};

/**
 * ipaddr.js reads `::a.b.c.d` as IPv4-mapped (`::ffff:a.b.c.d`); it is the IPv4-compatible form
 * (RFC 4291 2.5.5.1), read here as written. Resolvers and WHATWG URL never write it (URL writes
 * `::7f00:1`), so only a direct caller meets it.
 */
const parse = (address: string): IPv4 | IPv6 => {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4' || !/^::\d+\.\d+\.\d+\.\d+(%.*)?$/.test(address)) return parsed;
  const parts = [...(parsed as IPv6).parts];
  parts[5] = 0;
  return new ipaddr.IPv6(parts);
};

/**
 * Why an IP address may not be a webhook's target, or null when it may: only public unicast addresses
 * are (and loopback ones with `allowLoopback`). The cloud metadata services are named as such, and an
 * IPv6 address that carries an IPv4 one (IPv4-mapped or -compatible, NAT64, 6to4, Teredo) is judged by
 * the address it carries. Anything that is not an IP address is refused too.
 */
export const forbiddenReason = (address: string, { allowLoopback = false } = {}): string | null => {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = parse(address);
  if (parsed.kind() === 'ipv6') return ipv6Reason(address, parsed as IPv6, allowLoopback);
  const reason = ipv4Reason(parsed as IPv4, allowLoopback);
  return reason && `${address} is ${reason}`;
};

const isLoopback = (address: string) => {
  const parsed = ipaddr.process(address);
  return parsed.range() === 'loopback';
};

/** A webhook URL whose form is checked: where it points, before any name is looked up. */
interface Target {
  url: URL;
  /** The host without the brackets of an IPv6 literal. */
  host: string;
  /** The host is an IP address: checked as it is, never looked up. */
  literal: boolean;
  /** Plain `http`, taken only to loopback: every address must be a loopback one. */
  loopbackOnly: boolean;
}

/** The URL's own form: scheme, credentials, and an IP literal's address. Throws `WebhookUrlRefused`. */
const targetOf = (text: string, allowLoopback: boolean): Target => {
  if (!URL.canParse(text)) throw new WebhookUrlRefused('it is not an absolute URL');
  const url = new URL(text);
  if (url.username !== '' || url.password !== '')
    throw new WebhookUrlRefused('it carries a user name or password');
  // WHATWG URL has already turned every spelling of an IPv4 address (2130706433, 0x7f.1, 0177.0.0.1)
  // into its dotted form, so an IP literal is recognised here whatever its spelling.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) !== 0;
  if (url.protocol === 'http:') {
    if (!allowLoopback) throw new WebhookUrlRefused('only https URLs are taken');
    if (!(host === 'localhost' || (literal && isLoopback(host))))
      throw new WebhookUrlRefused('http is taken only to a loopback address or localhost');
  } else if (url.protocol !== 'https:')
    throw new WebhookUrlRefused(`only https URLs are taken, not ${url.protocol.slice(0, -1)}`);
  if (literal) {
    const reason = forbiddenReason(host, { allowLoopback });
    if (reason) throw new WebhookUrlRefused(reason);
  }
  return { url, host, literal, loopbackOnly: url.protocol === 'http:' };
};

/** The refusal of a name's address, or null when every address the name answered is a target. */
const addressReason = (
  host: string,
  addresses: readonly LookupAddress[],
  target: Target,
  allowLoopback: boolean,
) => {
  if (addresses.length === 0) return `${host} resolves to no address`;
  for (const { address } of addresses) {
    const reason =
      forbiddenReason(address, { allowLoopback }) ??
      (target.loopbackOnly && !isLoopback(address)
        ? `http is taken only to loopback, and ${address} is not`
        : null);
    if (reason) return `${host} resolves to an address that may not be a target: ${reason}`;
  }
  return null;
};

export interface CheckedUrl {
  /** The URL as WHATWG URL writes it: the form to store. */
  url: URL;
  /** The addresses checked: the literal itself, or every address the name resolved to. */
  addresses: string[];
}

/**
 * Checks a subscription's URL at registration: `https` only (and `http` to loopback when
 * `allowLoopback`), no credentials, and every address its host is or resolves to a public one. A check
 * at registration alone proves nothing about later (DNS answers change), so `deliver` checks again.
 * Throws `WebhookUrlRefused` (400 `webhook-url-refused`) saying why.
 */
export const checkWebhookUrl = async (
  text: string,
  { allowLoopback = false, resolve = systemResolve }: GuardOptions = {},
): Promise<CheckedUrl> => {
  const target = targetOf(text, allowLoopback);
  if (target.literal) return { url: target.url, addresses: [target.host] };
  const addresses = await resolve(target.host).catch((error: unknown) => {
    throw new WebhookUrlRefused(`${target.host} does not resolve`, { cause: error });
  });
  const reason = addressReason(target.host, addresses, target, allowLoopback);
  if (reason) throw new WebhookUrlRefused(reason);
  return { url: target.url, addresses: addresses.map(({ address }) => address) };
};

export interface DeliveryOptions extends GuardOptions {
  body: string | Uint8Array;
  headers?: Record<string, string>;
  /** The whole exchange, connection to the last byte read (API.md 16: 10 s). */
  timeoutMs?: number;
  /** The most of the response body read; the socket is destroyed past it (API.md 16: 64 KiB). */
  maxBodyBytes?: number;
}

/** The receiver answered: its status and headers, and its body up to `maxBodyBytes`. */
export interface Answered {
  kind: 'answered';
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body was longer than `maxBodyBytes`: `body` is its beginning. */
  truncated: boolean;
  durationMs: number;
}

/**
 * No answer: `timeout` (nothing whole within `timeoutMs`), `refused` (the connection refused or reset),
 * `forbidden` (an address refused at delivery, nothing sent), `failed` (anything else on the way: a
 * name that does not resolve, a certificate that does not verify, a network out of reach), each with
 * its reason.
 */
export interface NotDelivered {
  kind: 'timeout' | 'refused' | 'forbidden' | 'failed';
  reason: string;
  durationMs: number;
}

export type Delivery = Answered | NotDelivered;

/**
 * The `lookup` a delivery connects with: the name resolved once, every address checked, and the
 * connection made to those addresses; there is no second lookup between the check and the connect.
 */
const checkedLookup =
  (target: Target, allowLoopback: boolean, resolve: Resolve) =>
  (
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname).then(
      (addresses) => {
        const reason = addressReason(hostname, addresses, target, allowLoopback);
        if (reason) return callback(new WebhookUrlRefused(reason), '');
        const first = addresses[0] as LookupAddress;
        if (options.all) callback(null, [...addresses]);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, ''),
    );
  };

const REFUSED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

const failureOf = (error: unknown, timedOut: boolean): Pick<NotDelivered, 'kind' | 'reason'> => {
  if (timedOut) return { kind: 'timeout', reason: 'no whole answer in time' };
  if (error instanceof WebhookUrlRefused) return { kind: 'forbidden', reason: error.reason };
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  return { kind: code && REFUSED.has(code) ? 'refused' : 'failed', reason };
};

/**
 * One POST of a webhook: its URL checked again (a name resolved now, and connected to as resolved),
 * no redirect followed (a 3xx is the answer), the response body read to `maxBodyBytes` and the socket
 * then destroyed, the whole within `timeoutMs`. TLS verifies the certificate against the URL's host
 * name, as any https request does: the lookup changes where the socket goes, not whom it trusts.
 * Never throws: a delivery that fails says how.
 */
export const deliver = (
  url: string,
  {
    body,
    headers = {},
    allowLoopback = false,
    resolve = systemResolve,
    timeoutMs = 10_000,
    maxBodyBytes = 65_536,
  }: DeliveryOptions,
): Promise<Delivery> => {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  let target: Target;
  try {
    target = targetOf(url, allowLoopback);
  } catch (error) {
    return Promise.resolve({ ...failureOf(error, false), durationMs: durationMs() });
  }
  return new Promise<Delivery>((settle) => {
    let timedOut = false;
    let request: http.ClientRequest | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      request?.destroy(new Error('timeout'));
    }, timeoutMs);
    const finish = (delivery: Delivery) => {
      clearTimeout(timer);
      settle(delivery);
      request?.destroy();
    };
    const fail = (error: unknown) => finish({ ...failureOf(error, timedOut), durationMs: durationMs() });
    try {
      request = (target.url.protocol === 'https:' ? https : http).request(target.url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: checkedLookup(target, allowLoopback, resolve),
        // A socket of its own: none kept from an earlier delivery, none kept for a later one.
        agent: false,
      });
    } catch (error) {
      fail(error);
      return;
    }
    request.on('error', fail);
    // Whatever ends the exchange without an answer or an error (a settled promise ignores it).
    request.on('close', () => fail(new Error('the connection closed before an answer')));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = (truncated: boolean) =>
        finish({
          kind: 'answered',
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          durationMs: durationMs(),
        });
      response.on('data', (chunk: Buffer) => {
        if (size + chunk.length > maxBodyBytes) {
          chunks.push(chunk.subarray(0, maxBodyBytes - size));
          size = maxBodyBytes;
          answer(true);
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', () => answer(false));
      response.on('error', fail);
      response.on('close', () => fail(new Error('the connection closed before the answer ended')));
    });
    request.end(body);
  });
};
