import { personRepositoryFromEnv } from '../lib/db/from-env';
import type { PersonRepository } from '../lib/db/person-repository';
import { PatchPersonBody } from '../lib/domain/schemas';
import { writeHandler } from '../lib/http/handler';
import { headerOf, personIdOf } from '../lib/http/request';
import { personOk } from '../lib/http/responses';

/** PATCH /Person/{id} */
export const buildHandler = ({ people }: { people: PersonRepository }) =>
  writeHandler(PatchPersonBody, 'update').handler(async ({ event, body, requester, write, links }) => {
    const ifMatch = headerOf(event, 'if-match');
    return personOk(
      await people.update(personIdOf(event), body, requester, { ...write, ...(ifMatch ? { ifMatch } : {}) }),
      links,
    );
  });

export const handler = buildHandler({ people: personRepositoryFromEnv() });
