/**
 * A stand-in enrichment provider on loopback for `npm start` without `ENRICHMENT_URL`: it answers the
 * Clearbit-style lookup from enrichment-fixtures.json, so a newcomer sees SocialAddresses filled.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const fixtures = (): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL('./enrichment-fixtures.json', import.meta.url), 'utf8'));

export const FIXTURE_EMAILS = Object.keys(fixtures());

export const startFixtureProvider = async (): Promise<{
  url: string;
  apiKey: string;
  stop(): Promise<void>;
}> => {
  const people = fixtures();
  const apiKey = 'local-fixture-key';
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const send = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.headers.authorization !== `Bearer ${apiKey}`)
      return send(401, { error: { type: 'auth_required' } });
    if (url.pathname !== '/v2/people/find') return send(404, { error: { type: 'not_found' } });
    const email = (url.searchParams.get('email') ?? '').trim().toLowerCase();
    const person = people[email];
    return person
      ? send(200, { id: email, email, ...(person as object) })
      : send(404, { error: { type: 'unknown_record' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
