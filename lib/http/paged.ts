/** The one way endpoints answer with a page of a list: the shape picked, envelope built, links made here. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import {
  type ListRequest,
  offsetList,
  PageQuery,
  type PageRequest,
  pageRequest,
  pageWindow,
  paginatedList,
  type Window,
} from '../domain/listing';
import type { Links } from '../domain/representation';
import { pageUrlFor, queryOf } from './request';
import { type ApiResponse, ok } from './responses';

export interface Page<T> {
  total: number;
  items: T[];
}

/** 200 with the PaginatedList envelope around `items` (API.md 6). */
export const paginatedResponse = <T>(
  event: APIGatewayProxyEventV2,
  links: Links,
  itemType: string,
  request: PageRequest,
  { total, items }: Page<T>,
): ApiResponse =>
  ok(
    paginatedList({
      itemType,
      items,
      total,
      request,
      pageUrl: pageUrlFor(event, links),
      contextUrl: links.contextUrl,
    }),
  );

/** Reads `page`/`perPage`, loads that window and answers with the envelope. */
export const pagedResponse = async <T>(
  event: APIGatewayProxyEventV2,
  links: Links,
  itemType: string,
  load: (window: Window) => Promise<Page<T>>,
): Promise<ApiResponse> => {
  const request = pageRequest(queryOf(event, PageQuery));
  return paginatedResponse(event, links, itemType, request, await load(pageWindow(request)));
};

/**
 * 200 with the list in the shape the request asked for: GRC's list (`Pagination` with count, limit and
 * offset) for `limit`/`offset`, the PaginatedList envelope for `page`/`perPage` (API.md 4, 6, 11.4, 11.5).
 */
export const listResponse = <T>(
  event: APIGatewayProxyEventV2,
  links: Links,
  itemType: string,
  request: ListRequest<object>,
  { total, items }: Page<T>,
): ApiResponse =>
  request.page
    ? paginatedResponse(event, links, itemType, request.page, { total, items })
    : ok(offsetList(links.contextUrl, total, request.window.offset, items));
