import { describe, expect, it } from 'vitest';
import { negotiatedType, toHttpResult } from '../../../lib/http/responses';
import { httpEvent } from '../../support/events';

const JSON_TYPE = 'application/json; charset=utf-8';

const accepting = (accept?: string) => {
  const event = httpEvent({ method: 'GET', route: '/Person/{id}', path: '/Person/1' });
  const { accept: _sent, ...headers } = event.headers;
  return { ...event, headers: accept === undefined ? headers : { ...headers, accept } };
};

const mediaTypeOf = (contentType: string) => contentType.split(';')[0]?.trim();

describe('negotiatedType', () => {
  it('answers JSON when there is no Accept header', () => {
    expect(negotiatedType(accepting())).toBe(JSON_TYPE);
  });

  it.each<[string, string]>([
    ['application/json', 'application/json'],
    ['application/ld+json', 'application/ld+json'],
    ['application/ld+json, application/json', 'application/ld+json'],
    ['application/json, application/ld+json', 'application/json'],
    ['application/json;q=0.5, application/ld+json', 'application/ld+json'],
    ['application/ld+json;q=0.5, application/json', 'application/json'],
    ['application/ld+json;q=0.9, application/json;q=0.1', 'application/ld+json'],
    ['application/json;q=0, application/ld+json;q=0.1', 'application/ld+json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    ['text/html, */*;q=0.8', 'application/json'],
    ['text/html', 'application/json'],
    ['APPLICATION/LD+JSON', 'application/ld+json'],
  ])('answers Accept %s with %s', (accept, mediaType) => {
    expect(mediaTypeOf(negotiatedType(accepting(accept)))).toBe(mediaType);
  });

  it('answers JSON as application/json; charset=utf-8', () => {
    expect(negotiatedType(accepting('application/json'))).toBe(JSON_TYPE);
  });
});

describe('toHttpResult', () => {
  it('sends the body as JSON with the negotiated Content-Type and Vary: Accept', () => {
    const body = { id: 12, fullname: 'John Smith' };

    expect(toHttpResult({ status: 200, body }, JSON_TYPE)).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': JSON_TYPE, Vary: 'Accept', 'Cache-Control': 'no-store' },
      body: JSON.stringify(body),
    });
  });

  it('sends no Content-Type and no body when there is no body', () => {
    const result = toHttpResult({ status: 304, headers: { ETag: '"3"' } }, JSON_TYPE);

    expect(result).toEqual({
      statusCode: 304,
      headers: { Vary: 'Accept', 'Cache-Control': 'no-store', ETag: '"3"' },
    });
    expect(result).not.toHaveProperty('body');
  });

  it('keeps the extra headers of the response', () => {
    const result = toHttpResult(
      {
        status: 201,
        body: { id: 12 },
        headers: { ETag: '"1"', Location: 'https://api.example.test/Person/12' },
      },
      'application/ld+json; charset=utf-8',
    );

    expect(result.headers).toEqual({
      'Content-Type': 'application/ld+json; charset=utf-8',
      Vary: 'Accept',
      'Cache-Control': 'no-store',
      ETag: '"1"',
      Location: 'https://api.example.test/Person/12',
    });
  });

  it('sends a body that is falsy but present, such as an empty list', () => {
    const result = toHttpResult({ status: 200, body: [] }, JSON_TYPE);

    expect(result.body).toBe('[]');
    expect(result.headers).toHaveProperty('Content-Type', JSON_TYPE);
  });
});
