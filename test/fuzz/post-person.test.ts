/**
 * POST /Person under hostile bodies and headers, against the real handler and a real table: never a
 * 5xx, every refusal valid problem+json that changes nothing, no leak, no pollution, and every 201 a
 * valid Person attributed to a person.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildHandler as buildCreate } from '../../functions/create-person';
import { PersonOut } from '../../lib/domain/schemas';
import { personApi, personBody, uniqueEmail } from '../support/api';
import { type TestTable, testRepository } from '../support/dynamo';
import { httpEvent } from '../support/events';
import { integrationSuite } from '../support/suite';
import { bodyText, contentType, mutatedBody, requesterJunk, textMutation, validPerson } from './arbitraries';
import {
  call,
  expectSafeAnswer,
  fuzz,
  prototypeGuard,
  REQUEST_FUZZ_RUNS,
  timeoutFor,
  type Workbench,
  workbench,
} from './harness';
import { toJsonText } from './json-text';

const suite = integrationSuite();
const RUNS = REQUEST_FUZZ_RUNS;

/** The handler, two persons that exist before the run, and an id that is real but names a Name. */
const setup = async (table: TestTable) => {
  const persons = testRepository(table);
  const api = personApi(persons);
  const personIds: number[] = [];
  let nameId = 0;
  for (const first of ['Ada', 'Grace']) {
    const { body } = await api.post(personBody(first, 'Fuzzer', uniqueEmail(first)));
    personIds.push(body.id);
    nameId = (body.Names['@set'][0] as { id: number }).id;
  }
  return { create: buildCreate({ persons }), personIds, nameId };
};

let bench: Workbench<Awaited<ReturnType<typeof setup>>>;
const pollution = prototypeGuard();

beforeAll(async () => {
  bench = await workbench(suite.table, setup);
});
afterAll(async () => {
  await bench.close();
});

interface PostRequest {
  text: string;
  headers: Record<string, string>;
  base64?: boolean;
}

/** Sends a POST and runs the checks every answer must pass, whatever was sent. */
const post = async ({ text, headers, base64 }: PostRequest) => {
  await bench.before();
  const { create, table } = bench.current;
  const event = httpEvent({ method: 'POST', route: '/Person', body: text, headers });
  if (base64) {
    event.body = Buffer.from(text, 'utf8').toString('base64');
    event.isBase64Encoded = true;
  }
  const response = await call(create, event);
  const seen = `${text}\n${Object.values(headers).join('\n')}`;
  pollution.check();
  const body = expectSafeAnswer(response, seen, table);
  await bench.after(response.status, seen);
  if (response.status === 201) {
    const person = PersonOut.parse(body);
    const requester = Number(headers['x-requester-person']);
    expect(person.CoreMetaData.created_by).toBe(requester === 0 ? person.id : requester);
  }
  return response;
};

const json = { 'content-type': 'application/json', 'x-requester-person': '0' };

describe('fuzzing POST /Person', () => {
  it(
    'answers bodies mutated around the schema without a 5xx, and a refusal changes nothing',
    async () => {
      await fuzz(
        'POST /Person mutated bodies',
        bodyText(validPerson),
        async ({ text }) => {
          await post({ text, headers: json });
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );

  it(
    'stores odd Unicode, control characters and lone surrogates as sent, or refuses them cleanly',
    async () => {
      await fuzz(
        'POST /Person odd strings',
        mutatedBody(validPerson, textMutation),
        async ({ body }) => {
          await post({ text: toJsonText(body), headers: json });
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );

  it(
    'answers odd content types, encodings and requester headers without a 5xx; a non-person requester never creates',
    async () => {
      const requester = fc.oneof(fc.constantFrom(undefined, '0', 'person', 'nameId'), requesterJunk);
      const body = fc.oneof(
        validPerson.map(toJsonText),
        bodyText(validPerson).map(({ text }) => text),
      );
      await fuzz(
        'POST /Person headers',
        fc.record({ body, type: contentType, requester, base64: fc.boolean() }),
        async ({ body: text, type, requester: who, base64 }) => {
          const { personIds, nameId } = bench.current;
          const named: Record<string, number | undefined> = { person: personIds[0], nameId };
          const headers: Record<string, string> = {};
          if (type !== undefined) headers['content-type'] = type;
          if (who !== undefined)
            headers['x-requester-person'] = Object.hasOwn(named, who) ? String(named[who]) : who;
          const response = await post({ text, headers, base64 });
          if (who === undefined) expect(response.status).toBe(400);
          if (who === 'nameId') expect(response.status).not.toBe(201);
        },
        RUNS,
      );
    },
    timeoutFor(RUNS),
  );
});
