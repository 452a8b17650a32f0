/**
 * The held-out labelled matching set of issue #53 step 7: a set the scoring was NOT tuned on. The
 * tuning set is match-set.ts (issue #38); this one is built differently so that its figures say how
 * matching does on names it was not shaped by: another seed (`HOLDOUT_SEED`), other name pools and
 * traditions (double-barrelled and hyphenated surnames, Nigerian compound names, Korean, Chinese and
 * Hungarian names written family name first, Vietnamese three-part and short names, Spanish double
 * surnames, Arabic names with particles, Turkish, Yoruba, Japanese, Dutch particles, Indian multi-part
 * names), and variant generators of its own (a hyphen written as a space and a space as a hyphen, the
 * family name first without a comma, names whose words are all short, an initial before a short
 * family name), beside the kinds the tuning set has (exact names, namesakes with and without their
 * email, case and spacing, accents dropped, an email alone, typos, initials, a changed domain, persons
 * not stored). It was written before any of its figures were looked at; the bench only reports it
 * (`npm run bench -- --only matching`: "held-out set"), and the regression test holds it to the bar.
 * Nothing in lib/ may be changed to raise its figures: tune on match-set.ts, report on this one.
 *
 * Every query is well-posed as the tuning set's are: a query judged by `match` names its person
 * exactly (up to case, accents, hyphens or the order of its words) and no other stored person is
 * that name in any order of its words; a query judged by rank 1 has no other equally right answer.
 */
import { normaliseEmail } from '../../lib/domain/email';
import { fold } from '../../lib/domain/text';
import {
  type CategorySpec,
  DOMAINS,
  fullnameOf,
  type MatchPerson,
  type MatchQuery,
  type MatchSet,
  pickOf,
  plainOf,
  type Random,
  shuffled,
  sliceOf,
  slugOf,
  streamOf,
  withinOneEdit,
} from './match-set';

// biome-ignore format: a table
export const HOLDOUT_CATEGORIES = [
  { category: 'exact-email', count: 80, criterion: 'match', what: 'stored name and that person\'s email' },
  { category: 'exact-unique', count: 80, criterion: 'match', what: 'a name no one else holds (in any order of its words), no email' },
  { category: 'namesake-email', count: 50, criterion: 'match', what: 'a namesake\'s exact name and its email' },
  { category: 'namesake-alone', count: 30, criterion: 'no-match', what: 'a namesake\'s exact name alone' },
  { category: 'namesake-reversed', count: 20, criterion: 'no-match', what: 'a namesake\'s name family name first, alone' },
  { category: 'case-spacing', count: 30, criterion: 'match', what: 'a unique name in other case and spacing' },
  { category: 'accents-dropped', count: 40, criterion: 'match', what: 'a unique name with its diacritics written plain' },
  { category: 'hyphen-space', count: 40, criterion: 'match', what: 'a unique name with a hyphen written as a space, or a space between surnames as a hyphen' },
  { category: 'family-first', count: 60, criterion: 'match', what: 'a unique name written family name first without a comma' },
  { category: 'short-exact', count: 30, criterion: 'match', what: 'a unique name whose words are all under 3 letters, as stored or family name first' },
  { category: 'short-initial', count: 20, criterion: 'rank1', what: 'an initial and a short family name ("X. Ma"), the pair unique' },
  { category: 'email-only', count: 30, criterion: 'match', what: 'the email as the query text' },
  { category: 'typo', count: 40, criterion: 'rank1', what: 'one edit in a word of 5 or more letters' },
  { category: 'initials', count: 30, criterion: 'rank1', what: '"A. Last", the initial and last name unique' },
  { category: 'email-domain', count: 20, criterion: 'rank1', what: 'a unique name and its email\'s local part at another domain' },
  { category: 'absent', count: 60, criterion: 'no-match', what: 'persons not stored, some family name first, half with an unheld email' },
] as const satisfies readonly CategorySpec[];

export type HoldoutCategory = (typeof HOLDOUT_CATEGORIES)[number]['category'];

/** The held-out set's seed: not the tuning set's (38), nor its checked alternatives (39, 40). */
export const HOLDOUT_SEED = 5307;
const PER_TRADITION = 110;
const NAMESAKE_GROUPS = 50;

/**
 * A tradition: `family` says its names are written family name first at home (queries may do so),
 * `surnames: 2` joins two family names (Spanish).
 */
export interface Tradition {
  tradition: string;
  first: readonly string[];
  last: readonly string[];
  surnames?: 2;
}

// biome-ignore format: lists of names
export const TRADITIONS: readonly Tradition[] = [
  { tradition: 'British double-barrelled',
    first: ['Hugo', 'Imogen', 'Rupert', 'Arabella', 'Crispin', 'Jemima', 'Piers', 'Octavia', 'Giles', 'Felicity', 'Jasper', 'Tabitha', 'Rollo', 'Hermione', 'Barnaby', 'Clementine', 'Tarquin', 'Persephone'],
    last: ['Bowes-Lyon', 'Lloyd-Webber', 'Sackville-West', 'Fiennes-Clinton', 'Vane-Tempest', 'Spencer-Churchill', 'Heathcote-Amory', 'Montagu-Scott', 'Wyndham-Quin', 'Carew-Pole', 'Hamilton-Dalrymple', 'Douglas-Home', 'Ormsby-Gore', 'Twisleton-Wykeham', 'Knatchbull-Hugessen', 'Baden-Powell', 'Rees-Mogg', 'Parker-Bowles', 'Lane-Fox', 'Bonham-Carter'] },
  { tradition: 'Nigerian compound',
    first: ['Ngozi', 'Oluwaseyi', 'Adaobi', 'Chibuike', 'Temitope', 'Olamide', 'Ifeanyi', 'Oyinkansola', 'Chidinma', 'Ebuka', 'Onyinye', 'Somto', 'Kamsi', 'Ugochi', 'Zikora', 'Nneka'],
    last: ['Okonjo-Iweala', 'Ransome-Kuti', 'Adeyemi-Bero', 'Bakare-Oduola', 'Ojo-Ade', 'Nwachukwu-Agbada', 'Ogunbanjo', 'Oyelaran-Oyeyinka', 'Eze-Uzomaka', 'Okeke-Ojiudu', 'Anyaoku', 'Ezekwesili', 'Iweala', 'Obiora-Okafor', 'Nnadozie', 'Udeh-Chukwu'] },
  { tradition: 'Korean',
    first: ['Jun-ho', 'Seung-woo', 'Ji-yeon', 'Hye-won', 'Min-seo', 'Da-eun', 'Sang-hoon', 'Eun-bi', 'Yeon-woo', 'Tae-hee', 'Joon-young', 'So-yeon', 'In-ho', 'Ga-young', 'Woo-jin', 'Hae-in'],
    last: ['Park', 'Kim', 'Lee', 'Choi', 'Jung', 'Kang', 'Cho', 'Yoon', 'Jang', 'Lim', 'Han', 'Seo', 'Shin', 'Kwon', 'Hwang', 'Ahn', 'Song', 'Hong', 'Jeon', 'Moon', 'Yang', 'Bae', 'Baek', 'Ryu', 'Noh'] },
  { tradition: 'Chinese',
    first: ['Na', 'Di', 'Yu', 'Le', 'Bo', 'Lu', 'Ao', 'Xiaolong', 'Yifan', 'Zihan', 'Ruoxi', 'Jiahui', 'Mingyu', 'Zhen', 'Kai', 'Wen', 'Rui', 'Qing'],
    last: ['Li', 'Ma', 'Wu', 'Xu', 'Hu', 'He', 'Lu', 'Yu', 'Du', 'Ye', 'Zhu', 'Guo', 'Lin', 'Luo', 'Gao', 'Zhou', 'Qian', 'Shen', 'Jiang', 'Fang', 'Tian', 'Pan', 'Dong', 'Yuan'] },
  { tradition: 'Vietnamese',
    first: ['Thị Bích', 'Văn Tú', 'Minh Khôi', 'Ngọc Lan', 'Anh Thư', 'Hữu Nghĩa', 'Quang Hải', 'Thu Trang', 'Đình Trọng', 'Bảo Anh', 'Tú', 'Vy', 'Hà', 'Lộc', 'Mỹ', 'Ý'],
    last: ['Lý', 'Lê', 'Hồ', 'Vũ', 'Võ', 'Đỗ', 'Tô', 'Mai', 'Cao', 'Quách', 'Tạ', 'Kiều', 'Doãn', 'La', 'Âu', 'Thái', 'Phùng'] },
  { tradition: 'Spanish double', surnames: 2,
    first: ['Gabriel', 'Rigoberta', 'Xóchitl', 'Maximiliano', 'Itzel', 'Fernanda', 'Ximena', 'Santiago', 'Valentina', 'Mateo', 'Camila', 'Sebastián', 'Renata', 'Emiliano', 'Regina', 'Ezequiel', 'Macarena', 'Joaquín'],
    last: ['Márquez', 'Menchú', 'Gálvez', 'Cortés', 'Quiroga', 'Villalobos', 'Zúñiga', 'Echeverría', 'Arriaga', 'Bustamante', 'Cienfuegos', 'Olmedo', 'Saavedra', 'Urquiza', 'Valdés', 'Zamora', 'Ibarra', 'Montoya', 'Benítez', 'Figueroa'] },
  { tradition: 'Arabic',
    first: ['Abdel-Rahman', 'Nour El-Din', 'Saif', 'Rashid', 'Lubna', 'Dalia', 'Hala', 'Rim', 'Mona', 'Ola', 'Ziad', 'Bilal', 'Hamza', 'Yara', 'Abdel-Aziz', 'Jamila'],
    last: ['El-Khatib', 'Al-Rashid', 'Abu-Zeid', 'Al-Najjar', 'El-Hage', 'Abdel-Malek', 'Ben-Ali', 'Ould-Abdallah', 'Bou-Saab', 'Qasim', 'Mahfouz', 'Haikal', 'Shukri', 'Tamimi', 'Zoubi', 'Hijazi', 'Kanaan', 'Al-Sabah'] },
  { tradition: 'Turkish',
    first: ['Kemal', 'Nazlı', 'Serkan', 'Deniz', 'Burak', 'Ebru', 'Onur', 'Selin', 'Tolga', 'Gizem', 'Volkan', 'Pınar', 'Cem', 'Aslı', 'Emre', 'Dilek', 'Oğuz', 'Şule', 'Ümit', 'Ece'],
    last: ['Altıntaş', 'Bozkurt', 'Çakır', 'Ekinci', 'Günay', 'Karataş', 'Keskin', 'Özer', 'Sarıkaya', 'Tekin', 'Uysal', 'Yavuz', 'Zengin', 'Ateş', 'Bulut', 'Duman', 'Erdem', 'Güler', 'Kaplan', 'Önal', 'Şen', 'Taş', 'Uçar', 'Yücel'] },
  { tradition: 'Yoruba',
    first: ['Adebola', 'Oluwafemi', 'Morenike', 'Ayodeji', 'Omolara', 'Olusegun', 'Abimbola', 'Oladipupo', 'Mojisola', 'Folarin', 'Iyabode', 'Kayode', 'Adúnní', 'Bùkọ́lá', 'Dàpọ̀', 'Gbénga', 'Lánre', 'Wálé'],
    last: ['Adeleke', 'Ogundipe', 'Oyewole', 'Fáṣọlá', 'Ajayi-Crowther', 'Olatunji', 'Adesanya', 'Ogunbiyi', 'Ilori', 'Akande', 'Ojo', 'Ade', 'Oni', 'Ige', 'Aina', 'Salako', 'Bankole', 'Ọ̀ṣọ́bà'] },
  { tradition: 'Hungarian',
    first: ['Dóra', 'Bence', 'Gergely', 'Noémi', 'Máté', 'Eszter', 'Ádám', 'Viktória', 'Dániel', 'Boglárka', 'Kristóf', 'Fanni', 'Lőrinc', 'Zsófia', 'Benedek'],
    last: ['Lengyel', 'Budai', 'Sipos', 'Vincze', 'Hegedűs', 'Bakos', 'Soós', 'Gál', 'Pap', 'Kis', 'Vass', 'Somogyi', 'Deák', 'Pásztor', 'Szekeres', 'Orosz'] },
  { tradition: 'Japanese',
    first: ['Haruki', 'Natsuki', 'Ryo', 'Mio', 'Sho', 'Rin', 'Kei', 'Aya', 'Jun', 'Nao', 'Takumi', 'Hinata', 'Yuna', 'Kenta', 'Mai', 'Eri'],
    last: ['Ono', 'Oda', 'Ito', 'Ueda', 'Endo', 'Mori', 'Goto', 'Aoki', 'Fujii', 'Nishimura', 'Fukuda', 'Ota', 'Miura', 'Okamoto', 'Matsuda', 'Nakagawa', 'Ishii', 'Kondo', 'Sakamoto'] },
  { tradition: 'Dutch particles',
    first: ['Pim', 'Sem', 'Tess', 'Fenna', 'Luuk', 'Roos', 'Jesse', 'Mees', 'Isa', 'Guus', 'Lieke', 'Stijn', 'Merel', 'Teun'],
    last: ['van het Hof', 'ter Horst', 'van Gelder', 'in het Veld', 'op den Brouw', 'van der Sar', 'de la Rive', 'Roelofs-Kamp', 'van Oosten', 'ten Cate', 'van de Kerkhof', 'Schaap-Visser'] },
  { tradition: 'Indian multi-part',
    first: ['Venkata Ramana', 'Sai Krishna', 'Lakshmi Priya', 'Abhishek', 'Nikhil', 'Pranav', 'Isha', 'Rohan', 'Tanvi', 'Aditi', 'Om', 'Jai', 'Ira', 'Anand Kumar'],
    last: ['Rao', 'Das', 'Sen', 'Bose', 'Dutta', 'Iyengar', 'Naidu', 'Chopra', 'Bhat', 'Shah', 'Jain', 'Ray', 'Dey', 'Pal', 'Sengupta'] },
];

/** Traditions whose names are written family name first at home: their family-first queries come first. */
const FAMILY_FIRST = new Set(['Korean', 'Chinese', 'Vietnamese', 'Hungarian', 'Japanese']);

/** Names of persons not in the store. */
// biome-ignore format: lists of names
const ABSENT_ONLY = {
  first: ['Leocadia', 'Ambrose', 'Yevgenia', 'Tiberius', 'Oona', 'Radek', 'Siobhan', 'Kwame', 'Ines', 'Bo'],
  last: ['Fotheringham-Swift', 'Krasnoperova', 'Oduya', 'Zylstra', 'Nakashima-Lowe', 'Abernethy', 'Ng', 'Quarshie', 'Vasquez-Rubio', 'Eng'],
};

// --- Store --------------------------------------------------------------------------------------

/** A name's words folded, hyphens as spaces, sorted: two names of one key are one name in another order. */
export const wordsKey = (text: string) =>
  fold(text)
    .split(/[\s.,\-‐‑]+/u)
    .filter(Boolean)
    .sort()
    .join(' ');

const drawName = (random: Random, { first, last, surnames }: Tradition) => ({
  first: pickOf(random, first),
  last:
    surnames === 2
      ? [...new Set([pickOf(random, last), pickOf(random, last)])].join(' ')
      : pickOf(random, last),
});

/** A name no one holds yet in any order of its words (its `wordsKey`), which it then holds. */
const freshName = (random: Random, tradition: Tradition, taken: Set<string>) => {
  for (let attempt = 0; attempt < 2_000; attempt++) {
    const name = drawName(random, tradition);
    const key = wordsKey(fullnameOf(name));
    if (!taken.has(key)) {
      taken.add(key);
      return name;
    }
  }
  throw new Error(`No fresh ${tradition.tradition} name left`);
};

const freshEmail = (random: Random, { first, last }: { first: string; last: string }, taken: Set<string>) => {
  const f = slugOf(first);
  const l = slugOf(last);
  const locals = random() < 0.5 ? [`${l}.${f}`, `${f}${l}`] : [`${f}_${l}`, `${l}${f.slice(0, 1)}`];
  for (let attempt = 0; ; attempt++) {
    const local = attempt < 2 ? locals[attempt] : `${locals[0]}.${attempt}`;
    for (const domain of shuffled(random, DOMAINS)) {
      const email = `${local}@${domain}`;
      if (!taken.has(email)) {
        taken.add(email);
        return email;
      }
    }
  }
};

const populationOf = (seed: number, names: Set<string>, emails: Set<string>): MatchPerson[] => {
  const random = streamOf(seed, 'holdout population');
  const persons: Omit<MatchPerson, 'emails'>[] = [];
  for (const tradition of TRADITIONS)
    for (let n = 0; n < PER_TRADITION; n++)
      persons.push({ tradition: tradition.tradition, ...freshName(random, tradition, names) });
  for (let group = 0; group < NAMESAKE_GROUPS; group++) {
    const tradition = TRADITIONS[(group * 5) % TRADITIONS.length] as Tradition;
    const name = freshName(random, tradition, names);
    const size = random() < 0.6 ? 2 : 3;
    for (let n = 0; n < size; n++)
      persons.push({ tradition: tradition.tradition, ...name, namesakes: group });
  }
  return shuffled(random, persons).map((person) => ({
    ...person,
    emails: Array.from({ length: random() < 0.2 ? 2 : 1 }, () => freshEmail(random, person, emails)),
  }));
};

// --- Queries ------------------------------------------------------------------------------------

interface Store {
  population: MatchPerson[];
  /** wordsKey → indexes of the persons holding a name of those words. */
  holders: Map<string, number[]>;
  /** Folded fullnames. */
  folded: Set<string>;
  emails: Set<string>;
  /** Folded "initial last" → how many persons. */
  initials: Map<string, number>;
}

const initialKey = ({ first, last }: { first: string; last: string }) =>
  `${Array.from(fold(first))[0]} ${fold(last)}`;

const storeOf = (population: MatchPerson[]): Store => {
  const holders = new Map<string, number[]>();
  const initials = new Map<string, number>();
  population.forEach((person, index) => {
    const key = wordsKey(fullnameOf(person));
    holders.set(key, [...(holders.get(key) ?? []), index]);
    initials.set(initialKey(person), (initials.get(initialKey(person)) ?? 0) + 1);
  });
  return {
    population,
    holders,
    folded: new Set(population.map((person) => fold(fullnameOf(person)))),
    emails: new Set(population.flatMap(({ emails }) => emails)),
    initials,
  };
};

type Generate = (
  index: number,
  random: Random,
  store: Store,
) => Omit<MatchQuery, 'category' | 'expected'> | null;

const queriesOf = (
  category: HoldoutCategory,
  count: number,
  store: Store,
  seed: number,
  eligible: (index: number) => boolean,
  generate: Generate,
): MatchQuery[] => {
  const random = streamOf(seed, `holdout ${category}`);
  const order = shuffled(random, store.population.map((_, index) => index).filter(eligible));
  const queries: MatchQuery[] = [];
  for (const index of order) {
    if (queries.length === count) break;
    const query = generate(index, random, store);
    if (query) queries.push({ category, ...query, expected: index });
  }
  if (queries.length < count)
    throw new Error(`Only ${queries.length} held-out ${category} queries of ${count}`);
  return queries;
};

const isShort = (text: string) =>
  fold(text)
    .split(/[\s-]+/u)
    .every((word) => Array.from(word).length < 3);

/** One edit (substitution, deletion, insertion, transposition) in a word of 5 letters or more. */
const typoOf = (random: Random, text: string, kind: number): string | null => {
  const words = text.split(' ');
  const long = words.map((word, at) => ({ word, at })).filter(({ word }) => Array.from(word).length >= 5);
  if (long.length === 0) return null;
  const { word, at } = pickOf(random, long);
  const letters = Array.from(word);
  const i = 1 + Math.floor(random() * (letters.length - 2));
  const letter = String.fromCharCode(97 + Math.floor(random() * 26));
  const edited = [...letters];
  if (kind === 0) edited[i] = letter;
  else if (kind === 1) edited.splice(i, 1);
  else if (kind === 2) edited.splice(i, 0, letter);
  else [edited[i], edited[i + 1]] = [edited[i + 1] as string, edited[i] as string];
  return [...words.slice(0, at), edited.join(''), ...words.slice(at + 1)].join(' ');
};

const emailOf = (v: string) => ({ pid: 'email' as const, v });

/** The held-out store and its queries, in the order of HOLDOUT_CATEGORIES. Pure: the same for a seed. */
export const holdoutSet = (seed = HOLDOUT_SEED): MatchSet => {
  const names = new Set<string>();
  const population = populationOf(seed, names, new Set());
  const store = storeOf(population);
  const person = (index: number) => population[index] as MatchPerson;
  const name = (index: number) => fullnameOf(person(index));
  const unique = (index: number) => store.holders.get(wordsKey(name(index)))?.length === 1;
  const count = (category: HoldoutCategory) =>
    (HOLDOUT_CATEGORIES.find((entry) => entry.category === category) as { count: number }).count;
  const of = (category: HoldoutCategory, eligible: (index: number) => boolean, generate: Generate) =>
    queriesOf(category, count(category), store, seed, eligible, generate);
  /** A query text that is no stored name (folded, in any order) but the person's own. */
  const onlyOf = (index: number, text: string) =>
    (store.holders.get(wordsKey(text)) ?? []).every((holder) => holder === index);
  const familyFirst = (index: number) => {
    const { first, last } = person(index);
    return `${last} ${first}`;
  };
  let nth = 0;
  const next = () => nth++;
  const namesakeFirst = (index: number) => {
    const group = person(index).namesakes;
    return group !== undefined && population.findIndex(({ namesakes }) => namesakes === group) === index;
  };

  const queries: MatchQuery[] = [
    ...of('exact-email', unique, (i, random) => ({
      query: name(i),
      properties: [emailOf(pickOf(random, person(i).emails))],
    })),
    ...of('exact-unique', unique, (i) => ({ query: name(i), properties: [] })),
    ...of(
      'namesake-email',
      (i) => person(i).namesakes !== undefined,
      (i, random) => ({ query: name(i), properties: [emailOf(pickOf(random, person(i).emails))] }),
    ),
    ...of('namesake-alone', namesakeFirst, (i) => ({ query: name(i), properties: [] })).map((query) => ({
      ...query,
      expected: null,
    })),
    ...of(
      'namesake-reversed',
      (i) => namesakeFirst(i) && person(i).namesakes !== undefined && (person(i).namesakes as number) >= 20,
      (i) => ({ query: familyFirst(i), properties: [] }),
    ).map((query) => ({ ...query, expected: null })),
    ...of('case-spacing', unique, (i) => {
      const text = name(i);
      const variants = [
        text.toUpperCase(),
        `   ${text.toLowerCase()}`,
        text.replace(/ /g, '\t '),
        `${text.toUpperCase()}  `,
      ];
      const query = variants[next() % variants.length] as string;
      return query === text ? null : { query, properties: [] };
    }),
    ...of(
      'accents-dropped',
      (i) => unique(i) && plainOf(name(i)) !== name(i),
      (i) => ({ query: plainOf(name(i)), properties: [] }),
    ),
    ...of(
      'hyphen-space',
      (i) => unique(i) && (/-/.test(name(i)) || person(i).tradition === 'Spanish double'),
      (i) => {
        const { first, last } = person(i);
        // A hyphen written as a space; a Spanish double surname joined by a hyphen.
        const query = /-/.test(name(i)) ? name(i).replace(/-/g, ' ') : `${first} ${last.replace(' ', '-')}`;
        return query !== name(i) && !store.folded.has(fold(query)) ? { query, properties: [] } : null;
      },
    ),
    ...of(
      'family-first',
      (i) => unique(i) && !isShort(name(i)),
      (i) => {
        const query = familyFirst(i);
        // East Asian and Hungarian names as written at home, others as a catalogue's "Last First".
        if (!FAMILY_FIRST.has(person(i).tradition) && next() % 3 !== 0) return null;
        return fold(query) !== fold(name(i)) && onlyOf(i, query) && !store.folded.has(fold(query))
          ? { query, properties: [] }
          : null;
      },
    ),
    ...of(
      'short-exact',
      (i) => unique(i) && isShort(name(i)),
      (i) => {
        const query = next() % 2 === 0 ? name(i) : familyFirst(i);
        return onlyOf(i, query) ? { query, properties: [] } : null;
      },
    ),
    ...of(
      'short-initial',
      (i) =>
        unique(i) &&
        isShort(person(i).last) &&
        !person(i).last.includes(' ') &&
        store.initials.get(initialKey(person(i))) === 1,
      (i) => {
        const { first, last } = person(i);
        const initial = (Array.from(plainOf(first))[0] as string).toUpperCase();
        const query = next() % 2 === 0 ? `${initial}. ${last}` : `${initial} ${last}`;
        return store.folded.has(fold(query)) ? null : { query, properties: [] };
      },
    ),
    ...of('email-only', unique, (i, random) => ({ query: pickOf(random, person(i).emails), properties: [] })),
    ...of('typo', unique, (i, random) => {
      const query = typoOf(random, name(i), next() % 4);
      if (query === null) return null;
      const folded = fold(query);
      if (folded === fold(name(i)) || !withinOneEdit(folded, fold(name(i)))) return null;
      for (const stored of store.folded)
        if (stored !== fold(name(i)) && withinOneEdit(folded, stored)) return null;
      return { query, properties: [] };
    }),
    ...of(
      'initials',
      (i) => unique(i) && !isShort(person(i).last) && store.initials.get(initialKey(person(i))) === 1,
      (i) => {
        const { first, last } = person(i);
        const query = `${Array.from(first)[0] as string}. ${last}`;
        return store.folded.has(fold(query)) ? null : { query, properties: [] };
      },
    ),
    ...of('email-domain', unique, (i, random) => {
      const [primary] = person(i).emails as [string];
      const [local, domain] = primary.split('@') as [string, string];
      const moved = shuffled(random, DOMAINS)
        .filter((other) => other !== domain)
        .map((other) => `${local}@${other}`)
        .find((address) => !store.emails.has(normaliseEmail(address)));
      return moved ? { query: name(i), properties: [emailOf(moved)] } : null;
    }),
    ...absentQueries(store, seed, names),
  ];
  return { population, queries, categories: HOLDOUT_CATEGORIES };
};

const absentQueries = (store: Store, seed: number, names: Set<string>): MatchQuery[] => {
  const random = streamOf(seed, 'holdout absent');
  const queries: MatchQuery[] = [];
  for (let n = 0; queries.length < 60; n++) {
    const tradition = TRADITIONS[n % TRADITIONS.length] as Tradition;
    const name =
      n % 3 === 2
        ? freshName(
            random,
            {
              tradition: 'absent',
              first: [...ABSENT_ONLY.first, ...tradition.first],
              last: ABSENT_ONLY.last,
            },
            names,
          )
        : freshName(random, tradition, names);
    // A third written family name first: still no one stored, in any order.
    const query = n % 3 === 1 ? `${name.last} ${name.first}` : fullnameOf(name);
    queries.push({
      category: 'absent',
      query,
      properties: n % 2 === 0 ? [emailOf(freshEmail(random, name, store.emails))] : [],
      expected: null,
    });
  }
  return queries;
};

export const HOLDOUT_SET = holdoutSet();

/** The regression test's slice of the held-out set: every category in proportion. */
export const HOLDOUT_SLICE = sliceOf(HOLDOUT_SET.queries);
