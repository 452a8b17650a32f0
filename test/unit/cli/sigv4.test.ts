/**
 * SigV4 signing checked by a loopback server that verifies each signature itself, from the AWS
 * documentation's algorithm (canonical request, string to sign, signing key), written here with
 * node:crypto and nothing of the SDK's signer: a request the importer signs is one API Gateway's IAM
 * authorizer would let in.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../../lib/cli/api-client';
import { ApiUnusable, checkApi, clientFromFlags } from '../../../lib/cli/api-options';
import { UsageError } from '../../../lib/cli/command';
import { regionOfApi, sigV4Signer } from '../../../lib/cli/sigv4';

const KEY_ID = 'AKIDEXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const REGION = 'eu-west-1';

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 encoding, as SigV4 asks: everything but unreserved characters. */
const encode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Why a request's signature does not hold, or null when it does. */
const verify = (request: IncomingMessage, body: string): string | null => {
  const authorization = request.headers.authorization ?? '';
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!match) return `malformed authorization: ${authorization}`;
  const [, keyId, date, region, service, signedHeaders, signature] = match as unknown as string[];
  if (keyId !== KEY_ID || region !== REGION || service !== 'execute-api') return 'wrong scope';
  const amzDate = String(request.headers['x-amz-date']);
  if (!amzDate.startsWith(date as string)) return 'x-amz-date outside the scope';
  const names = (signedHeaders as string).split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return 'host and x-amz-date must be signed';
  const url = new URL(request.url ?? '/', 'http://placeholder');
  const query = [...url.searchParams]
    .map(([key, value]) => [encode(key), encode(value)])
    .sort(([a, x], [b, y]) =>
      a === b ? (x as string).localeCompare(y as string) : (a as string) < (b as string) ? -1 : 1,
    )
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  const canonicalHeaders = names
    .map((name) => `${name}:${String(request.headers[name] ?? '').trim()}\n`)
    .join('');
  const canonicalRequest = [
    request.method,
    url.pathname
      .split('/')
      .map((segment) => encode(decodeURIComponent(segment)))
      .join('/'),
    query,
    canonicalHeaders,
    signedHeaders,
    sha256(body),
  ].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = ['aws4_request'].reduce(
    (previous, part) => hmac(previous, part),
    hmac(hmac(hmac(`AWS4${SECRET}`, date as string), region as string), service as string),
  );
  return createHmac('sha256', key).update(stringToSign).digest('hex') === signature
    ? null
    : 'signature mismatch';
};

let server: Server;
let api: string;
const verdicts: (string | null)[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const problem = verify(request, body);
      verdicts.push(problem);
      response.writeHead(problem === null ? 200 : 403, { 'content-type': 'application/json' });
      response.end(JSON.stringify(problem === null ? { ok: true } : { message: problem }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  verdicts.length = 0;
});

const credentials = async () => ({ accessKeyId: KEY_ID, secretAccessKey: SECRET });
const signingClient = () => apiClient({ api, signer: sigV4Signer({ region: REGION, credentials }) });

describe('SigV4 signing of API requests', () => {
  it('signs a write with its body so that the verifier lets it in', async () => {
    const client = signingClient();

    const answer = await client.send({
      method: 'POST',
      path: '/Person',
      headers: { 'x-requester-person': '0', 'idempotency-key': 'import:abc:1' },
      body: JSON.stringify({ Names: { '@set': [{ first_name: 'Zoë', last_name: 'Ångström' }] } }),
    });

    expect(verdicts).toEqual([null]);
    expect(answer.status).toBe(200);
  });

  it('signs the query string of a read', async () => {
    const client = signingClient();

    await client.send({ method: 'GET', path: '/Person?limit=0&email=a%40b.example&last_name=M%C3%BCller' });

    expect(verdicts).toEqual([null]);
  });

  it('is refused when the body sent is not the body signed', async () => {
    const sign = sigV4Signer({ region: REGION, credentials });
    const url = new URL(`${api}/Person`);
    const { host: _host, ...headers } = await sign(
      'POST',
      url,
      { 'content-type': 'application/json' },
      '{"a":1}',
    );

    const response = await fetch(url, { method: 'POST', headers, body: '{"a":2}' });

    expect(response.status).toBe(403);
    expect(verdicts).toEqual(['signature mismatch']);
  });

  it('takes its credentials from the default chain: the environment first', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      await checkApi(clientFromFlags({ api, sigv4: true, region: REGION }, {}), api);
      expect(verdicts).toEqual([null]);
    } finally {
      process.env = saved;
    }
  });
});

describe('which API requests are signed', () => {
  it('does not sign for a loopback API without --sigv4 (npm start has no auth)', async () => {
    await expect(checkApi(clientFromFlags({ api }, {}), api)).rejects.toThrow(ApiUnusable);
    expect(verdicts).toEqual(['malformed authorization: ']);
  });

  it('reads the region of an execute-api URL, and asks for one where the URL does not say it', () => {
    expect(regionOfApi(new URL('https://a1b2c3.execute-api.eu-central-1.amazonaws.com/prod'))).toBe(
      'eu-central-1',
    );
    expect(regionOfApi(new URL('https://persons.example.org'))).toBeUndefined();
    expect(() => clientFromFlags({ api: 'https://persons.example.org' }, {})).toThrow(UsageError);
    expect(() =>
      clientFromFlags({ api: 'https://persons.example.org' }, { AWS_REGION: 'us-east-1' }),
    ).not.toThrow();
    expect(() => clientFromFlags({ api: 'https://persons.example.org', token: 'jwt' }, {})).not.toThrow();
    expect(() => clientFromFlags({ api: 'not a url' }, {})).toThrow(UsageError);
    expect(() => clientFromFlags({ api, token: 'jwt', sigv4: true }, {})).toThrow(UsageError);
  });
});
