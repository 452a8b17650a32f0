import { describe, expect, it } from 'vitest';
import { EXAMPLE_FEED_CURSOR_KEY } from '../../../lib/docs/examples';
import { JSON_MEDIA_TYPES, openApiDocument } from '../../../lib/docs/openapi';
import { OPERATIONS } from '../../../lib/docs/operations';
import { decodeFeedCursor } from '../../../lib/domain/feed';
import { schemaValidator } from '../../support/json-schema';

const document = openApiDocument();

type Example = { summary?: string; value: unknown };
type Media = { schema: Record<string, unknown>; examples?: Record<string, Example> };
type Response = { content?: Record<string, Media> };

const COMPONENT = '#/components/schemas/';

// biome-ignore lint/suspicious/noExplicitAny: the examples are read as the JSON they are
type Json = Record<string, any>;

/** Every media type of every 2xx response, with where it sits. */
const successMedia = Object.values(document.paths).flatMap((methods) =>
  Object.values(methods).flatMap(({ operationId, responses }) =>
    Object.entries(responses)
      .filter(([status]) => status.startsWith('2'))
      .flatMap(([status, response]) =>
        Object.entries((response as Response).content ?? {}).map(([type, media]) => ({
          at: `${operationId} ${status} ${type}`,
          operationId,
          type,
          media,
        })),
      ),
  ),
);

/** The component schemas a media type's schema names: one `$ref`, or a `oneOf` of them. */
const componentsOf = ({ schema }: Media): string[] => {
  const refs = typeof schema.$ref === 'string' ? [schema] : ((schema.oneOf as { $ref?: unknown }[]) ?? []);
  return refs.flatMap(({ $ref }) =>
    typeof $ref === 'string' && $ref.startsWith(COMPONENT) ? [$ref.slice(COMPONENT.length)] : [],
  );
};

const jsonMedia = successMedia.filter(({ type }) => (JSON_MEDIA_TYPES as readonly string[]).includes(type));
/** The JSON resources: bodies described by the component schemas (the self-description documents are not). */
const resources = jsonMedia.filter(({ media }) => componentsOf(media).length > 0);

/** Ajv over the component schemas, `$ref`s resolved among them. */
const ajv = schemaValidator({ strict: true, strictTypes: false, allErrors: true });
const toUrn = (schema: unknown) =>
  JSON.parse(JSON.stringify(schema).replaceAll(COMPONENT, 'urn:schema:')) as Record<string, unknown>;
for (const [name, schema] of Object.entries(toUrn(document.components.schemas)))
  ajv.addSchema({ ...(schema as object), $id: `urn:schema:${name}` });
const errorsOf = (schema: Record<string, unknown> | string, value: unknown) => {
  const validate = typeof schema === 'string' ? ajv.getSchema(schema) : ajv.compile(schema);
  if (!validate) throw new Error(`no schema ${String(schema)}`);
  return validate(value) ? [] : validate.errors;
};

/** Every example the document holds anywhere: success, request bodies and problems. */
const allExamples = (node: unknown, path = ''): { path: string; value: unknown }[] => {
  if (node === null || typeof node !== 'object') return [];
  const here = Object.entries(node).flatMap(([key, child]) =>
    key === 'examples' && child !== null && typeof child === 'object' && !Array.isArray(child)
      ? Object.entries(child).map(([name, example]) => ({
          path: `${path}/examples/${name}`,
          value: (example as Example).value,
        }))
      : allExamples(child, `${path}/${key}`),
  );
  return here;
};

/** The values of a JSON value that say nothing: a type name for a value, or id 0. */
const placeholders = (value: unknown, path = ''): string[] => {
  if (value === 'string') return [path];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(child === 0 && /^(id|.*_id|.*_fk|created_by|modified_by|requester)$/.test(key)
      ? [`${path}/${key}`]
      : []),
    ...placeholders(child, `${path}/${key}`),
  ]);
};

describe('the examples of the OpenAPI document', () => {
  it('gives every JSON success response of every operation an example of each schema it may be', () => {
    const withJson = Object.entries(OPERATIONS).filter(([, doc]) => doc.success.some(({ json }) => json));

    for (const { at, media } of resources)
      expect(Object.keys(media.examples ?? {}).sort(), at).toEqual(componentsOf(media).sort());
    expect(new Set(resources.map(({ operationId }) => operationId))).toEqual(
      new Set(withJson.map(([operationId]) => operationId)),
    );
    // A JSON body described by a schema of its own (a problem type's page) has an example too; only the
    // documents that describe the API itself have none.
    const inline = jsonMedia.filter((entry) => !resources.includes(entry));
    expect(inline.filter(({ media }) => !media.examples).map(({ at }) => at)).toEqual([
      'getOpenApi 200 application/json',
      'getContext 200 application/ld+json',
    ]);
    for (const { at, media } of inline.filter(({ media }) => media.examples))
      for (const example of Object.values(media.examples ?? {}))
        expect(errorsOf(toUrn(media.schema), example.value), at).toEqual([]);
  });

  it('gives each example a summary that tells it from the others', () => {
    for (const { at, media } of resources)
      for (const [name, example] of Object.entries(media.examples ?? {}))
        expect(example.summary, `${at} ${name}`).toMatch(/\w{3}/);
  });

  it('validates every success example against its response schema and the component it is named after', () => {
    const examples = resources.flatMap(({ at, media }) =>
      Object.entries(media.examples ?? {}).map(([name, { value }]) => ({ at, media, name, value })),
    );

    expect(examples.length).toBeGreaterThan(resources.length);
    for (const { at, media, name, value } of examples) {
      expect(errorsOf(toUrn(media.schema), value), `${at} ${name}`).toEqual([]);
      expect(errorsOf(`urn:schema:${name}`, value), `${at} ${name}`).toEqual([]);
    }
  });

  it('holds no placeholder: no "string", no id 0', () => {
    const examples = allExamples(document.paths);

    expect(examples.length).toBeGreaterThan(100);
    for (const { path, value } of examples) expect(placeholders(value), path).toEqual([]);
  });

  it('refuses what the checks are for: a placeholder and a body its schema refuses', () => {
    const person = resources.find(({ operationId }) => operationId === 'getPerson')?.media.examples?.Person
      ?.value as Record<string, unknown>;

    expect(placeholders({ ...person, fullname: 'string' })).toEqual(['/fullname']);
    expect(placeholders({ ...person, Names: { '@set': [{ id: 0 }] } })).toEqual(['/Names/@set/0/id']);
    expect(errorsOf('urn:schema:Person', person)).toEqual([]);
    expect(errorsOf('urn:schema:Person', { ...person, id: 'string' })).not.toEqual([]);
  });
});

describe('the examples tell one story', () => {
  const example = (operationId: string, name: string) =>
    resources.find((entry) => entry.operationId === operationId)?.media.examples?.[name]?.value as Json;
  const got = example('getPerson', 'Person');
  const changed = example('updatePerson', 'Person');
  const history = example('getChangeHistory', 'ChangeHistory');

  it('GET shows the person the create request example makes, and POST answers it', () => {
    const create = OPERATIONS.createPerson.body?.example as Json;

    expect(example('createPerson', 'Person')).toEqual(got);
    expect(got.local_reference_id).toBe(create.local_reference_id);
    expect(got.Names['@set'][0]).toMatchObject({ first_name: 'John', last_name: 'Smith', primary: true });
    // GRC's 1 comes back as true.
    expect(create.Emails['@set'][0].primary).toBe(1);
    expect(got.Emails['@set'][0].primary).toBe(true);
    expect(got.fullname).toBe('Dr. John Smith');
  });

  it('the PATCH request example changes the Email GET shows, and PATCH answers the change', () => {
    const patch = OPERATIONS.updatePerson.body?.example as Json;
    const email = patch.Emails['@set'][0];

    expect(got.Emails['@set'].map(({ id }: { id: number }) => id)).toContain(email.id);
    expect(changed.Emails['@set'][0]).toMatchObject({ id: email.id, email: email.email });
    expect(changed.CoreMetaData).toMatchObject({
      version: got.CoreMetaData.version + 1,
      modified_by: got.id,
    });
  });

  it('ChangeHistory and the audit show that change, by the ids CoreMetaData names', () => {
    const { CoreMetaData } = changed;
    const audit = example('listPersonAudit', 'PaginatedAuditEntryList');

    expect(history).toMatchObject({ id: CoreMetaData.modified_audit_id, object_id: got.id, type: 'PATCH' });
    expect(history.previous_object).toEqual(got);
    expect(history.current_object.CoreMetaData).toEqual(CoreMetaData);
    expect(audit.items.map(({ id }: { id: number }) => id)).toEqual([
      CoreMetaData.modified_audit_id,
      CoreMetaData.created_audit_id,
    ]);
  });

  it('the change feed shows those changes, the pair found with another person, then the merge into it, by the same ids', () => {
    const { CoreMetaData } = changed;
    const page = example('listEvents', 'EventPage');
    const [create, update, pair, merge] = page.events;

    expect([create.id, update.id]).toEqual([
      String(CoreMetaData.created_audit_id),
      String(CoreMetaData.modified_audit_id),
    ]);
    expect(page.events.map(({ type, subject }: Json) => `${type} ${subject}`)).toEqual([
      ...['person.created', 'person.updated'].map((type) => `${type} Person/${got.id}`),
      `duplicate.detected duplicates/${got.id}-${merge.data.superceded_by}`,
      `person.merged Person/${got.id}`,
    ]);
    expect([create, update, merge].map(({ data }: Json) => data.version)).toEqual([1, 2, 3]);
    expect(update.data.changeHistory).toBe(history['@id']);
    expect(merge.data.superceded_by).toBeGreaterThan(got.id);
    expect(pair.data).toEqual({
      id: `${got.id}-${merge.data.superceded_by}`,
      persons: [got.id, merge.data.superceded_by],
      grade: 'probable',
      score: 91,
    });
    expect(Number(update.id)).toBeLessThan(Number(pair.id));
    expect(Number(pair.id)).toBeLessThan(Number(merge.id));
    expect(decodeFeedCursor(page.next, EXAMPLE_FEED_CURSOR_KEY)).not.toBeNull();
  });
});
