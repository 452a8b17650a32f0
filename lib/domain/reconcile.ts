/**
 * Matching by the W3C Reconciliation API 0.2 (issue #37, API.md 12): what a reconciliation query,
 * a data extension query and a suggest request mean, how a candidate is scored, when it is certain,
 * and what the manifest, the extension rows and the preview card say. Pure: no I/O, no AWS; the
 * candidates come from lib/db/search/reconcile-candidates.ts, the wire from lib/http/reconcile-handlers.ts.
 *
 * The score (0 to 100, documented in the manifest's `documentation` and in README "Matching records"):
 * - `name`: the trigram similarity (Jaccard, each folded name padded with a space at both ends so that
 *   short names have grams) of the folded query and the closest of the candidate's names (its fullname,
 *   every Name's "first last" and freeform name), times 100;
 * - each `first_name` / `last_name` property sent that one of the candidate's Names holds (folded) adds
 *   5, one it does not hold takes 10 off; an `email` sent that a candidate with emails does not hold
 *   takes 10 off (one without any is not held to it: a spreadsheet may know an address it lacks);
 * - an `email` property that is one of the candidate's emails (normalised as uniqueness compares them,
 *   API.md 5.5) is decisive: 100, whatever the name says (an email is held by one person only);
 * clamped to 0..100 and rounded to one decimal.
 * `match: true` goes to one candidate only, and only when it is certain: it holds the email sent, or
 * its folded name is the query's exactly, no other candidate's is, no other candidate scores within
 * `CLOSE_SECOND` of it, and nothing sent speaks against it (an email it does not hold, a first or last
 * name it does not have).
 */
import * as z from 'zod';
import { normaliseEmail } from './email';
import { fullnameOfPerson, type Person, primaryOf } from './person';
import { fold } from './text';

/** The one type of this service's entities. */
export const PERSON_ENTITY_TYPE = { id: 'Person', name: 'Person' } as const;

/** Candidates a query answers when it sends no `limit` (or 0, as OpenRefine omits it), and at most. */
export const RECONCILE_LIMITS = {
  defaultLimit: 5,
  maxLimit: 25,
  /** Queries in one batch (OpenRefine sends 10). */
  maxQueries: 50,
  /** Ids in one data extension query (OpenRefine sends at most 10). */
  maxExtendIds: 100,
  /** Entries a suggest answers. */
  suggest: 10,
  /** Code points of a query's text that are looked at. */
  queryText: 200,
} as const;

/**
 * A candidate whose score is within this of the exact-name candidate's makes that one uncertain: "John
 * Smith Jr" (77 against "John Smith") may be the father of the son sought; "Mary Smith" (33) is not.
 */
export const CLOSE_SECOND = 25;

/** The properties a query may send and data extension may return, in the order OpenRefine lists them. */
export const RECONCILE_PROPERTIES = [
  { id: 'fullname', name: 'Full name' },
  { id: 'first_name', name: 'First name' },
  { id: 'last_name', name: 'Last name' },
  { id: 'email', name: 'Primary email' },
  { id: 'names', name: 'All names' },
  { id: 'emails', name: 'All emails' },
  { id: 'phones', name: 'Phone numbers' },
  { id: 'addresses', name: 'Postal addresses' },
] as const;

export type ReconcileProperty = (typeof RECONCILE_PROPERTIES)[number]['id'];

const PROPERTY_IDS: ReadonlySet<string> = new Set(RECONCILE_PROPERTIES.map(({ id }) => id));

export const isReconcileProperty = (id: string): id is ReconcileProperty => PROPERTY_IDS.has(id);

/**
 * Which properties anyone may see (API.md 12's public-read option): `fullname` always, the others only
 * when the operator lists them. Without the option every property is visible (the caller is
 * authenticated like any API caller).
 */
export interface Visibility {
  publicRead: boolean;
  /** The operator's list; `fullname` is in it whatever it says. */
  publicProperties: readonly ReconcileProperty[];
}

export const ALL_VISIBLE: Visibility = { publicRead: false, publicProperties: [] };

export const isVisible = (visibility: Visibility, property: ReconcileProperty): boolean =>
  !visibility.publicRead || property === 'fullname' || visibility.publicProperties.includes(property);

/**
 * The public properties of a comma-separated setting (`fullname,email`). An id that is no property is
 * refused, so that a typo never hides what the operator meant to show (or shows what they did not).
 */
export const publicPropertiesFrom = (
  value: string | undefined,
  source = 'RECONCILE_PUBLIC_PROPERTIES',
): ReconcileProperty[] => {
  const ids = (value ?? 'fullname')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!isReconcileProperty(id))
      throw new Error(`${source} lists ${id}, which is none of ${[...PROPERTY_IDS].join(', ')}`);
  return [...new Set(['fullname', ...ids])] as ReconcileProperty[];
};

// --- Queries ------------------------------------------------------------------------------------

/** A property value as the spec allows it: text, a number, a boolean, an entity `{id}`, or a list. */
const PropertyValue = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.looseObject({ id: z.string() }),
  z.array(z.union([z.string(), z.number(), z.boolean(), z.looseObject({ id: z.string() })])),
]);

/**
 * One reconciliation query (spec 0.2 "Reconciliation queries"). Unknown members are ignored, not
 * refused: clients send their own (`type_strict`), and a batch must not fail for them.
 */
export const ReconcileQuery = z.looseObject({
  query: z.string().optional(),
  type: z.union([z.string(), z.array(z.string())]).optional(),
  limit: z.number().int().min(0).optional(),
  properties: z
    .array(z.looseObject({ pid: z.string().optional(), p: z.string().optional(), v: PropertyValue }))
    .optional(),
});
export type ReconcileQuery = z.output<typeof ReconcileQuery>;

export const ReconcileQueryBatch = z
  .record(z.string(), ReconcileQuery)
  .refine((batch) => Object.keys(batch).length <= RECONCILE_LIMITS.maxQueries, {
    message: `A batch holds at most ${RECONCILE_LIMITS.maxQueries} queries`,
  });

/** A data extension query (spec 0.2 "Data extension"): ids as the queries returned them. */
export const ExtendQuery = z.looseObject({
  ids: z.array(z.string()).max(RECONCILE_LIMITS.maxExtendIds),
  properties: z.array(z.looseObject({ id: z.string() })),
});
export type ExtendQuery = z.output<typeof ExtendQuery>;

/** What a query asks, folded and normalised: what candidates are looked up by and scored against. */
export interface MatchRequest {
  /** The folded query text ("" when none). */
  name: string;
  /** Normalised email addresses sent as `email` properties. */
  emails: string[];
  firstNames: string[];
  lastNames: string[];
  limit: number;
  /** False when the query names only types other than Person: it has no candidates here. */
  wantsPersons: boolean;
}

const textsOf = (value: z.output<typeof PropertyValue>): string[] =>
  (Array.isArray(value) ? value : [value]).flatMap((item) =>
    typeof item === 'object' ? [item.id] : [String(item)],
  );

/** Type ids that mean this service's Person: its own id, and schema.org's. */
const PERSON_TYPE_IDS = new Set([
  'person',
  'schema:person',
  'http://schema.org/person',
  'https://schema.org/person',
]);

/**
 * A query as a match request. Properties this service does not know, or that the visibility keeps
 * private (an email under the public-read option unless listed: a match on it would tell anyone
 * whether an address is a person's), are ignored.
 */
export const matchRequestOf = (query: ReconcileQuery, visibility: Visibility = ALL_VISIBLE): MatchRequest => {
  const values = (property: ReconcileProperty) =>
    isVisible(visibility, property)
      ? (query.properties ?? [])
          .filter((item) => (item.pid ?? item.p) === property)
          .flatMap((item) => textsOf(item.v))
      : [];
  const types = query.type === undefined ? [] : Array.isArray(query.type) ? query.type : [query.type];
  const limit = query.limit ?? 0;
  return {
    name: fold(
      Array.from(query.query ?? '')
        .slice(0, RECONCILE_LIMITS.queryText)
        .join(''),
    ),
    emails: [...new Set(values('email').map((email) => normaliseEmail(email)))].filter((email) =>
      email.includes('@'),
    ),
    firstNames: [...new Set(values('first_name').map(fold))].filter(Boolean),
    lastNames: [...new Set(values('last_name').map(fold))].filter(Boolean),
    limit: limit === 0 ? RECONCILE_LIMITS.defaultLimit : Math.min(limit, RECONCILE_LIMITS.maxLimit),
    wantsPersons: types.length === 0 || types.some((type) => PERSON_TYPE_IDS.has(type.toLowerCase())),
  };
};

/**
 * Code points a fragment needs to be looked up: 3, one gram. A shorter one (`li`) would read every
 * posting of every gram it starts (`an`: most persons), so it finds nothing rather than cost the table.
 */
export const MIN_FRAGMENT = 3;

/**
 * The text fragments whose postings may hold a request's candidates: the whole folded name (every
 * person whose names hold it), and its words of 3 or more code points (the ones that can be misspelt
 * around), at most `maxWords`, longest first.
 */
export const candidateFragments = (name: string, maxWords = 3): string[] => {
  if (Array.from(name).length < MIN_FRAGMENT) return [];
  const words = [...new Set(name.split(' '))]
    .filter((word) => Array.from(word).length >= MIN_FRAGMENT && word !== name)
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .slice(0, maxWords);
  return [name, ...words];
};

// --- Scoring ------------------------------------------------------------------------------------

/** Padded trigrams of a folded text: " jo", "joh", "ohn", "hn ". */
export const trigramsOf = (text: string): Set<string> => {
  const points = Array.from(` ${text} `);
  const grams = new Set<string>();
  for (let start = 0; start + 3 <= points.length; start++) grams.add(points.slice(start, start + 3).join(''));
  return grams;
};

/** Jaccard similarity of two folded texts' trigrams, 0 to 1; 1 exactly when they are equal. */
export const nameSimilarity = (a: string, b: string): number => {
  if (a === b) return 1;
  const left = trigramsOf(a);
  const right = trigramsOf(b);
  let shared = 0;
  for (const gram of left) if (right.has(gram)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
};

/** What a candidate is scored on: its display name, its folded names, its normalised emails. */
export interface CandidateFacts {
  id: number;
  fullname: string;
  /** Folded: the fullname, every Name's "first last" and freeform name. */
  names: string[];
  firstNames: string[];
  lastNames: string[];
  emails: string[];
}

export const factsOf = (person: Person): CandidateFacts => {
  const folded = (values: (string | null | undefined)[]) => [
    ...new Set(values.flatMap((value) => (value ? [fold(value)] : [])).filter(Boolean)),
  ];
  return {
    id: person.id,
    fullname: fullnameOfPerson(person),
    names: folded([
      fullnameOfPerson(person),
      ...person.Names.flatMap((name) => [
        [name.first_name, name.last_name].filter(Boolean).join(' '),
        name.freeform_name,
      ]),
    ]),
    firstNames: folded(person.Names.map((name) => name.first_name)),
    lastNames: folded(person.Names.map((name) => name.last_name)),
    emails: [...new Set(person.Emails.flatMap(({ email }) => (email ? [normaliseEmail(email)] : [])))],
  };
};

/** One feature of a score: a number, or whether a piece of evidence agrees (true) or not (false). */
export interface Feature {
  id: string;
  value: number | boolean;
}

export interface ScoredCandidate {
  facts: CandidateFacts;
  score: number;
  /** The closest name is the query exactly (folded). */
  exactName: boolean;
  /** Holds an email sent (undefined: none was sent). */
  email: boolean | undefined;
  /** Something sent speaks against it: an email it does not hold, a first or last name it lacks. */
  contradicted: boolean;
  features: Feature[];
}

const agreement = (sent: string[], held: string[]): boolean | undefined =>
  sent.length === 0 ? undefined : sent.some((value) => held.includes(value));

export const scoreCandidate = (request: MatchRequest, facts: CandidateFacts): ScoredCandidate => {
  const similarity =
    request.name === '' ? 0 : Math.max(0, ...facts.names.map((name) => nameSimilarity(request.name, name)));
  const email = agreement(request.emails, facts.emails);
  const first = agreement(request.firstNames, facts.firstNames);
  const last = agreement(request.lastNames, facts.lastNames);
  const adjust = (value: boolean | undefined) => (value === undefined ? 0 : value ? 5 : -10);
  // A person may have more emails than the one a spreadsheet knows: an email it lacks counts against
  // it only when it has one at all.
  const otherEmail = email === false && facts.emails.length > 0;
  const raw = email === true ? 100 : 100 * similarity + adjust(first) + adjust(last) - (otherEmail ? 10 : 0);
  const score = Math.round(Math.min(100, Math.max(0, raw)) * 10) / 10;
  const features: Feature[] = [{ id: 'name', value: Math.round(similarity * 1000) / 1000 }];
  if (email !== undefined) features.push({ id: 'email', value: email });
  if (first !== undefined) features.push({ id: 'first_name', value: first });
  if (last !== undefined) features.push({ id: 'last_name', value: last });
  return {
    facts,
    score,
    exactName: similarity === 1,
    email,
    contradicted: otherEmail || first === false || last === false,
    features,
  };
};

export interface Candidate extends ScoredCandidate {
  match: boolean;
}

/** Best first: score, then the email holder, the exact name, the lower id (older record): a stable order. */
const byScore = (a: ScoredCandidate, b: ScoredCandidate) =>
  b.score - a.score ||
  Number(b.email === true) - Number(a.email === true) ||
  Number(b.exactName) - Number(a.exactName) ||
  a.facts.id - b.facts.id;

/**
 * Every candidate scored, the certain one (if any) marked, best first, cut to the request's limit.
 * Certainty is decided on all candidates found, before the cut: a namesake below the limit still
 * makes an exact name uncertain.
 */
export const rankCandidates = (request: MatchRequest, found: readonly CandidateFacts[]): Candidate[] => {
  const scored = [...new Map(found.map((facts) => [facts.id, facts])).values()]
    .map((facts) => scoreCandidate(request, facts))
    .sort(byScore);
  const byEmail = scored.filter((candidate) => candidate.email === true);
  const exact = scored.filter((candidate) => candidate.exactName);
  let certain: ScoredCandidate | undefined;
  if (byEmail.length === 1) certain = byEmail[0];
  else if (byEmail.length === 0 && exact.length === 1) {
    const [only] = exact as [ScoredCandidate];
    const closeSecond = scored.some(
      (candidate) => candidate !== only && candidate.score >= only.score - CLOSE_SECOND,
    );
    if (!closeSecond && !only.contradicted) certain = only;
  }
  return scored.slice(0, request.limit).map((candidate) => ({ ...candidate, match: candidate === certain }));
};

// --- Answers ------------------------------------------------------------------------------------

export interface ServiceLinks {
  baseUrl: string;
  contextUrl: string;
}

/** The service manifest (spec 0.2 "Service manifest"): what OpenRefine reads when the service is added. */
export const manifestOf = ({ baseUrl, contextUrl }: ServiceLinks) => {
  const service = `${baseUrl}/reconcile`;
  return {
    versions: ['0.2'],
    name: 'Authority Person Service',
    identifierSpace: `${baseUrl}/Person/`,
    schemaSpace: contextUrl,
    documentation: `${baseUrl}/docs`,
    defaultTypes: [{ ...PERSON_ENTITY_TYPE }],
    view: { url: `${baseUrl}/Person/{{id}}` },
    preview: { url: `${service}/preview?id={{id}}`, width: 400, height: 120 },
    suggest: {
      entity: { service_url: service, service_path: '/suggest/entity' },
      property: { service_url: service, service_path: '/suggest/property' },
      type: { service_url: service, service_path: '/suggest/type' },
    },
    extend: {
      propose_properties: { service_url: service, service_path: '/properties' },
      property_settings: [],
    },
  };
};

/** A query's answer: `type` is an array (OpenRefine drops the whole job on a single object). */
export const resultOf = (candidates: readonly Candidate[], visibility: Visibility = ALL_VISIBLE) => ({
  result: candidates.map((candidate) => ({
    id: String(candidate.facts.id),
    name: candidate.facts.fullname,
    type: [{ ...PERSON_ENTITY_TYPE }],
    score: candidate.score,
    match: candidate.match,
    features: candidate.features.filter(
      (feature) => !isReconcileProperty(feature.id) || isVisible(visibility, feature.id),
    ),
  })),
});

/** The properties proposed for data extension: those visible, `limit` at most. */
export const proposedProperties = (visibility: Visibility, limit?: number) => {
  const visible = RECONCILE_PROPERTIES.filter(({ id }) => isVisible(visibility, id));
  return {
    type: PERSON_ENTITY_TYPE.id,
    properties: visible.slice(0, limit ?? visible.length).map((property) => ({ ...property })),
    ...(limit === undefined ? {} : { limit }),
  };
};

/** The suggest entries of the properties or types whose name or id starts a word with the prefix. */
export const suggestTerms = (kind: 'property' | 'type', prefix: string, visibility: Visibility) => {
  const wanted = fold(prefix);
  const terms =
    kind === 'type'
      ? [{ ...PERSON_ENTITY_TYPE }]
      : RECONCILE_PROPERTIES.filter(({ id }) => isVisible(visibility, id)).map((term) => ({ ...term }));
  const starts = (text: string) =>
    fold(text)
      .split(/[\s_]/)
      .some((word) => word.startsWith(wanted));
  return {
    result: terms.filter(
      (term) => wanted === '' || starts(term.name) || starts(term.id) || fold(term.name).startsWith(wanted),
    ),
  };
};

/** A person's values of one property, as data extension cells (`{str}`). */
export const propertyValues = (person: Person, property: ReconcileProperty): { str: string }[] => {
  const strings = (values: (string | null | undefined)[]) =>
    values.flatMap((value) => (value && value.trim() !== '' ? [{ str: value }] : []));
  const primaryName = primaryOf(person.Names) ?? person.Names[0];
  switch (property) {
    case 'fullname':
      return strings([fullnameOfPerson(person)]);
    case 'first_name':
      return strings([primaryName?.first_name]);
    case 'last_name':
      return strings([primaryName?.last_name]);
    case 'email':
      return strings([(primaryOf(person.Emails) ?? person.Emails[0])?.email]);
    case 'names':
      return strings(
        person.Names.map(
          (name) =>
            [name.first_name, name.middle_initial, name.last_name].filter(Boolean).join(' ') ||
            name.freeform_name,
        ),
      );
    case 'emails':
      return strings(person.Emails.map(({ email }) => email));
    case 'phones':
      return strings(person.PhoneNumbers.map(({ phone_number }) => phone_number));
    case 'addresses':
      return strings(
        person.PostalAddresses.map((address) =>
          [
            address.address1,
            address.address2,
            [address.postal_code, address.city].filter(Boolean).join(' '),
            address.state_territory_province,
            address.country ?? address.country_code,
          ]
            .filter((part) => part && part.trim() !== '')
            .join(', '),
        ),
      );
  }
};

/** The person id an extension or preview id names, or undefined (then its row stays empty). */
export const personIdOfEntity = (id: string): number | undefined => {
  const value = Number(id);
  return /^[1-9]\d{0,15}$/.test(id) && Number.isSafeInteger(value) ? value : undefined;
};

/**
 * The data extension answer: `meta` for each property asked (in its order), `rows` keyed by the ids
 * exactly as sent; an id that names no person (or not a visible property) gets empty cells.
 */
export const extensionOf = (
  query: ExtendQuery,
  persons: ReadonlyMap<number, Person>,
  visibility: Visibility,
) => {
  const properties = query.properties.map(({ id }) => id);
  const meta = properties.map((id) => ({
    id,
    name: RECONCILE_PROPERTIES.find((property) => property.id === id)?.name ?? id,
  }));
  const rows: Record<string, Record<string, { str: string }[]>> = {};
  for (const id of query.ids) {
    const personId = personIdOfEntity(id);
    const person = personId === undefined ? undefined : persons.get(personId);
    rows[id] = Object.fromEntries(
      properties.map((property) => [
        property,
        person && isReconcileProperty(property) && isVisible(visibility, property)
          ? propertyValues(person, property)
          : [],
      ]),
    );
  }
  return { meta, rows };
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (character) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] as string,
  );

/** The preview card: the name, the id and the visible details, every value escaped. */
export const previewHtml = (person: Person, visibility: Visibility, personUrl: string): string => {
  const details = (['email', 'phones', 'addresses'] as const)
    .filter((property) => isVisible(visibility, property))
    .flatMap((property) => propertyValues(person, property).slice(0, 2))
    .map(({ str }) => `<div class="d">${escapeHtml(str)}</div>`)
    .join('');
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>' +
    `${escapeHtml(fullnameOfPerson(person))}</title><style>body{font:14px/1.4 sans-serif;margin:8px}` +
    '.n{font-weight:bold;font-size:16px}.d,.i{color:#555}</style></head><body>' +
    `<div class="n">${escapeHtml(fullnameOfPerson(person))}</div>` +
    `<div class="i">Person <a href="${escapeHtml(personUrl)}" target="_blank" rel="noopener">${person.id}</a></div>` +
    `${details}</body></html>`
  );
};

/** A JSONP callback name: a dotted JavaScript identifier path (`jQuery3600_123`, `a.b`), short. */
export const isCallbackName = (name: string): boolean =>
  name.length <= 128 && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name);

/** A JSON answer as a JSONP script. The comment keeps a name from starting the body (Rosetta Flash). */
export const jsonpOf = (callback: string, json: string): string => `/**/ ${callback}(${json});`;
