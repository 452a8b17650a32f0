import { personListFromEnv } from '../lib/db/from-env';
import type { PersonList } from '../lib/db/person-list';
import { ListPersonsQuery, offsetList, personListRequest, toStub } from '../lib/domain/listing';
import { readHandler } from '../lib/http/handler';
import { paginatedResponse } from '../lib/http/paged';
import { queryOf } from '../lib/http/request';
import { ok } from '../lib/http/responses';

/** GET /Person: stubs, filtered and sorted, by limit/offset or in the PaginatedList envelope. */
export const buildHandler = ({ persons }: { persons: PersonList }) =>
  readHandler().handler(async ({ event, links }) => {
    const request = personListRequest(queryOf(event, ListPersonsQuery));
    const { count, persons: found } = await persons.list(request);
    const stubs = found.map((person) => toStub(person, links.baseUrl, links.contextUrl));
    if (request.page)
      return paginatedResponse(event, links, 'Stub', request.page, { total: count, items: stubs });
    return ok(offsetList(links.contextUrl, count, request.window.offset, stubs));
  });

export const handler = buildHandler({ persons: personListFromEnv() });
