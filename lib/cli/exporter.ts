/**
 * Exports every person through the API: `GET /Person/export` page after page, following each page's
 * `next` until it is null, each person written as one NDJSON line as soon as its page arrives. One
 * page is held at a time, so memory stays flat whatever the store holds; a slow reader of the output
 * slows the export down instead of filling memory.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ApiClient } from './api-client';

export interface ExportOptions {
  client: ApiClient;
  out: Writable;
  /** Persons a page asks for (the API takes 1 to 500). */
  limit: number;
  /** After each page: persons written so far. */
  onPage?: (written: number) => void;
}

interface ExportPage {
  '@set': unknown[];
  next: string | null;
}

export class ExportFailed extends Error {}

/** The next page's request: its query, on this client's API (a `next` may name another host). */
const pathOf = (next: string) => `/Person/export${new URL(next).search}`;

export const exportPersons = async ({ client, out, limit, onPage }: ExportOptions): Promise<number> => {
  let path: string | null = `/Person/export?limit=${limit}`;
  let written = 0;
  while (path !== null) {
    const answer = await client.send({ method: 'GET', path });
    if (answer.status !== 200)
      throw new ExportFailed(`GET ${path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
    const page = JSON.parse(answer.text) as ExportPage;
    for (const person of page['@set']) {
      if (!out.write(`${JSON.stringify(person)}\n`)) await once(out, 'drain');
      written++;
    }
    onPage?.(written);
    path = page.next === null ? null : pathOf(page.next);
  }
  return written;
};
