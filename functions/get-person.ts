import { personRepositoryFromEnv } from '../lib/db/from-env';
import type { PersonRepository } from '../lib/db/person-repository';
import { etagOf, ifNoneMatchHolds } from '../lib/domain/representation';
import { readHandler } from '../lib/http/handler';
import { headerOf, personIdOf } from '../lib/http/request';
import { notModified, personOk } from '../lib/http/responses';

/** GET /Person/{id} */
export const buildHandler = ({ people }: { people: PersonRepository }) =>
  readHandler().handler(async ({ event, links }) => {
    const person = await people.get(personIdOf(event));
    const ifNoneMatch = headerOf(event, 'if-none-match');
    return ifNoneMatch !== undefined && ifNoneMatchHolds(ifNoneMatch, person.CoreMetaData.version)
      ? notModified(etagOf(person))
      : personOk({ person, tombstones: {} }, links);
  });

export const handler = buildHandler({ people: personRepositoryFromEnv() });
