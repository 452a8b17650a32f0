import { personRepositoryFromEnv } from '../lib/db/from-env';
import type { PersonRepository } from '../lib/db/person-repository';
import { etagOf } from '../lib/domain/representation';
import { readHandler } from '../lib/http/handler';
import { headerOf, personIdOf } from '../lib/http/request';
import { notModified, personOk } from '../lib/http/responses';

/** GET /Person/{id} */
export const buildHandler = ({ people }: { people: PersonRepository }) =>
  readHandler().handler(async ({ event, links }) => {
    const person = await people.get(personIdOf(event));
    const etag = etagOf(person);
    return headerOf(event, 'if-none-match') === etag
      ? notModified(etag)
      : personOk({ person, tombstones: {} }, links);
  });

export const handler = buildHandler({ people: personRepositoryFromEnv() });
