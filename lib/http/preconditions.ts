/**
 * The conditional request headers (RFC 9110 13.1), read at the HTTP edge into the versions they name:
 * an ETag of this service is `"<version>"` (API.md 3), so a tag that is not one names no version.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { VersionMatch } from '../domain/representation';
import { headerOf } from './request';

const VERSION_TAG = /^"([1-9]\d{0,15})"$/;

/** Absent or empty: no condition. `weak` also takes `W/"3"` as version 3. */
const versionsOf = (header: string | undefined, weak: boolean): VersionMatch | undefined => {
  if (!header) return undefined;
  if (header.trim() === '*') return '*';
  return header.split(',').flatMap((listed) => {
    const tag = listed.trim();
    const version = VERSION_TAG.exec(weak ? tag.replace(/^W\//, '') : tag)?.[1];
    return version === undefined ? [] : [Number(version)];
  });
};

/** If-Match compares strongly (RFC 9110 13.1.1): `W/"3"` names no version. */
export const ifMatchOf = (event: APIGatewayProxyEventV2) => versionsOf(headerOf(event, 'if-match'), false);

/** If-None-Match compares weakly (RFC 9110 13.1.2): `"3"` and `W/"3"` both name version 3. */
export const ifNoneMatchOf = (event: APIGatewayProxyEventV2) =>
  versionsOf(headerOf(event, 'if-none-match'), true);
