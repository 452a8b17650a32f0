import { personRepositoryFromEnv } from '../lib/db/from-env';
import type { PersonRepository } from '../lib/db/person-repository';
import { CreatePersonBody } from '../lib/domain/schemas';
import { writeHandler } from '../lib/http/handler';
import { personCreated } from '../lib/http/responses';

/** POST /Person */
export const buildHandler = ({ people }: { people: PersonRepository }) =>
  writeHandler(CreatePersonBody, 'create').handler(async ({ body, requester, write, links }) =>
    personCreated(await people.create(body, requester, write), links),
  );

export const handler = buildHandler({ people: personRepositoryFromEnv() });
