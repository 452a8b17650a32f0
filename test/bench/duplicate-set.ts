/**
 * The labelled duplicates sets of issue #57 step 4: stores in which some persons are held twice (a
 * second record of one person, planted in one of ten ways) and some persons share a name, an address
 * or a phone without being one person (six kinds of namesake and household), each pair labelled.
 * What the detector makes of such a store is measured by test/bench/duplicates.ts.
 *
 * Generated, never stored, from a seeded PRNG (match-set.ts's streams), by the project's own generator:
 * - **the tuning set** (`DUPLICATE_SET`) takes the tuning matching set's name traditions (match-set.ts)
 *   and its nicknames; the grades' thresholds and rules (lib/domain/duplicates.ts) are tuned on it;
 * - **the held-out set** (`HOLDOUT_DUPLICATE_SET`) takes another seed, the held-out matching set's
 *   traditions (match-set-holdout.ts: double-barrelled and compound names, names written family name
 *   first, short names), a nickname table of its own, and other streets, cities, domains and phone
 *   countries. Nothing in lib/ is changed to raise its figures: it is reported beside the tuning set.
 *
 * Every record is one a client could create: an email is one person's (API.md 5.5), so a second record
 * of a person never holds its first record's email, and persons known by name alone are unique by name,
 * so of two records of one name at least one holds an email.
 */
import { fold } from '../../lib/domain/text';
import {
  DOMAINS,
  fullnameOf,
  NICKNAMES,
  pickOf,
  plainOf,
  type Random,
  shuffled,
  slugOf,
  streamOf,
  TRADITIONS,
  type Tradition,
} from './match-set';
import { TRADITIONS as HOLDOUT_TRADITIONS } from './match-set-holdout';

/** A kind of labelled pair: a person held twice (`duplicate`), or two persons alike. */
export interface DuplicateKind {
  kind: string;
  duplicate: boolean;
  count: number;
  what: string;
}

// Kinds that need rarer persons (a nickname, two family names, accents) come first: pairs are drawn in
// this order, each from persons no earlier pair took.
// biome-ignore format: a table
export const DUPLICATE_KINDS = [
  { kind: 'nickname-address', duplicate: true, count: 40, what: 'a nickname for the first name, the same address written short, nothing else' },
  { kind: 'surname-dropped', duplicate: true, count: 40, what: 'one of two family names dropped, the same phone written nationally' },
  { kind: 'plain-phone', duplicate: true, count: 40, what: 'the name without its accents (or in capitals), the same phone' },
  { kind: 'exact-phone', duplicate: true, count: 40, what: 'the same name and phone (written nationally), no email' },
  { kind: 'name-only', duplicate: true, count: 40, what: 'the same name and nothing else (a paper form)' },
  { kind: 'new-employer', duplicate: true, count: 40, what: 'the same name, the email\'s mailbox at another domain' },
  { kind: 'new-email-phone', duplicate: true, count: 40, what: 'the same name, a private email of its own, the same phone' },
  { kind: 'typo-phone', duplicate: true, count: 40, what: 'one edit in a word of 5 letters or more, the same phone' },
  { kind: 'initial-address', duplicate: true, count: 40, what: 'the first name as an initial ("A."), the same address written short' },
  { kind: 'swapped-phone', duplicate: true, count: 40, what: 'first and last name in each other\'s fields, the same phone' },
  { kind: 'household', duplicate: false, count: 30, what: 'another first name, the same family name, address and phone' },
  { kind: 'father-son', duplicate: false, count: 30, what: 'one name, Sr. and Jr., one address' },
  { kind: 'middle-initials', duplicate: false, count: 30, what: 'one first and last name, other middle initials, emails and phones of their own' },
  { kind: 'namesake-emails', duplicate: false, count: 30, what: 'one name, an email, phone and address of their own' },
  { kind: 'namesake-no-email', duplicate: false, count: 30, what: 'one name, the second without email and with a phone of its own' },
  { kind: 'near-name', duplicate: false, count: 30, what: 'a first name one letter off (Maria, Mario), the same family name, emails of their own' },
] as const satisfies readonly DuplicateKind[];

export type DuplicateKindName = (typeof DUPLICATE_KINDS)[number]['kind'];

export interface PostalAddress {
  address1: string;
  city: string;
  postal_code: string;
}

/** One stored record: the person it is (records of one `entity` are duplicates of one another). */
export interface DuplicateRecord {
  entity: number;
  first: string;
  last: string;
  middle?: string;
  /** `name_suffix_fk`: 501 Jr., 502 Sr. (the NameSuffix vocabulary's seed). */
  suffix?: number;
  emails: string[];
  phones: string[];
  addresses: PostalAddress[];
}

/** A labelled pair: two records' indexes, and the kind that planted it. */
export interface LabelledPair {
  kind: DuplicateKindName;
  records: [number, number];
}

export interface DuplicateSet {
  name: string;
  records: DuplicateRecord[];
  pairs: LabelledPair[];
  kinds: readonly DuplicateKind[];
}

/** The record's create body, as an import would POST it. */
export const recordBodyOf = ({
  first,
  last,
  middle,
  suffix,
  emails,
  phones,
  addresses,
}: DuplicateRecord) => ({
  Names: {
    '@set': [
      {
        first_name: first,
        last_name: last,
        ...(middle ? { middle_initial: middle } : {}),
        ...(suffix ? { name_suffix_fk: suffix } : {}),
      },
    ],
  },
  ...(emails.length > 0 ? { Emails: { '@set': emails.map((email) => ({ email })) } } : {}),
  ...(phones.length > 0
    ? { PhoneNumbers: { '@set': phones.map((phone_number) => ({ phone_number })) } }
    : {}),
  ...(addresses.length > 0 ? { PostalAddresses: { '@set': addresses } } : {}),
});

// --- Pools --------------------------------------------------------------------------------------

/** A country's phone numbers: its calling code, and whether a number written at home starts with `0`. */
interface Country {
  code: string;
  trunk: boolean;
}

/** What a set draws its persons from. */
interface Pools {
  traditions: readonly Tradition[];
  nicknames: Readonly<Record<string, readonly string[]>>;
  domains: readonly string[];
  /** Where a second record's private email is. */
  privateDomains: readonly string[];
  streets: readonly string[];
  /** A street type, and how it is written short. */
  streetTypes: readonly (readonly [string, string])[];
  cities: readonly string[];
  countries: readonly Country[];
}

// biome-ignore format: lists
const TUNING_POOLS: Pools = {
  traditions: TRADITIONS,
  nicknames: NICKNAMES,
  domains: DOMAINS,
  privateDomains: ['home.example', 'inbox.example.net'],
  streets: ['Oak', 'Mill', 'Church', 'Station', 'Victoria', 'Park', 'High', 'King', 'Queen', 'Bridge', 'Garden', 'Chestnut', 'Linden', 'Rose', 'Lake', 'River', 'Castle', 'Market', 'Orchard', 'Meadow'],
  streetTypes: [['Street', 'St.'], ['Road', 'Rd'], ['Avenue', 'Ave.'], ['Lane', 'Ln'], ['Drive', 'Dr.'], ['Place', 'Pl.']],
  cities: ['Leeds', 'Bristol', 'Hamburg', 'Lyon', 'Sevilla', 'Porto', 'Torino', 'Utrecht', 'Kraków', 'Brno', 'İzmir', 'Aarhus', 'Uppsala'],
  countries: [{ code: '44', trunk: true }, { code: '49', trunk: true }, { code: '33', trunk: true }, { code: '34', trunk: false }, { code: '39', trunk: false }, { code: '31', trunk: true }],
};

/** Nicknames of the held-out traditions' first names: written for this set, not taken from lib/. */
// biome-ignore format: a table
const HOLDOUT_NICKNAMES: Record<string, readonly string[]> = {
  Rupert: ['Rupe'], Arabella: ['Bella', 'Belle'], Octavia: ['Tavi'], Felicity: ['Fliss'], Jemima: ['Mima'],
  Barnaby: ['Barney'], Clementine: ['Clemmie'], Tabitha: ['Tabby'], Persephone: ['Percy'], Hermione: ['Minnie'],
  Jasper: ['Jas'], Imogen: ['Immy'], Oluwaseyi: ['Seyi'], Temitope: ['Tope'], Oluwafemi: ['Femi'],
  Olusegun: ['Segun'], Abimbola: ['Bimbo'], Ayodeji: ['Deji'], Mojisola: ['Moji'], Iyabode: ['Iyabo'],
  Oyinkansola: ['Oyin'], Chibuike: ['Chibu'], Adaobi: ['Ada'], Sebastián: ['Seba'], Maximiliano: ['Maxi'],
  Valentina: ['Vale'], Fernanda: ['Fer'], Santiago: ['Santi'], Emiliano: ['Emi'], Gabriel: ['Gabo'],
  Ezequiel: ['Eze'], Dániel: ['Dani'], Viktória: ['Viki'], Zsófia: ['Zsófi'], Eszter: ['Eszti'],
  Boglárka: ['Bogi'], Benedek: ['Beni'], Abhishek: ['Abhi'], Nikhil: ['Nik'], Takumi: ['Taku'],
  Natsuki: ['Nat'], Abdel: ['Abdu'], Jamila: ['Jami'], Kemal: ['Kemo'], Serkan: ['Seko'],
};

// biome-ignore format: lists
const HOLDOUT_POOLS: Pools = {
  traditions: HOLDOUT_TRADITIONS,
  nicknames: HOLDOUT_NICKNAMES,
  domains: ['ministry.example.gov', 'hospital.example.org', 'college.example.ac', 'shop.example.co', 'lab.example.io', 'press.example.info'],
  privateDomains: ['webmail.example', 'post.example.me'],
  streets: ['Elm', 'Willow', 'Harbour', 'Cedar', 'Forest', 'Granite', 'Maple', 'Beacon', 'Windmill', 'Abbey', 'Canal', 'Sycamore', 'Quarry', 'Heath', 'Spring', 'Ferry'],
  streetTypes: [['Boulevard', 'Blvd'], ['Court', 'Ct'], ['Terrace', 'Terr.'], ['Square', 'Sq.'], ['Crescent', 'Cres.'], ['Street', 'St']],
  cities: ['Lagos', 'Busan', 'Chengdu', 'Hanoi', 'Guadalajara', 'Beirut', 'Ankara', 'Ibadan', 'Debrecen', 'Osaka', 'Delft', 'Pune', 'Edinburgh'],
  countries: [{ code: '234', trunk: true }, { code: '82', trunk: true }, { code: '86', trunk: true }, { code: '52', trunk: false }, { code: '90', trunk: true }, { code: '81', trunk: true }, { code: '91', trunk: true }],
};

// --- Generation ---------------------------------------------------------------------------------

/** A person as first stored: its name and the phone and address its second records take. */
interface Base {
  index: number;
  tradition: Tradition;
  phone?: { country: Country; national: string };
  address?: {
    number: number;
    street: string;
    type: readonly [string, string];
    city: string;
    postcode: string;
  };
}

/** The `count`-th digit string of `length` digits, not starting with 0. */
const digits = (random: Random, length: number) =>
  String(1 + Math.floor(random() * 9)) +
  Array.from({ length: length - 1 }, () => String(Math.floor(random() * 10))).join('');

/** `20 7946 0958`-like groups of a national number. */
const grouped = (national: string) => national.replace(/^(\d{2,3})(\d{3,4})(\d{3,4})$/, '$1 $2 $3');

/** Written internationally (`+44 20 7946 0958`) and at home (`020 7946 0958`, or without the `0`). */
const internationalOf = ({ country, national }: NonNullable<Base['phone']>) =>
  `+${country.code} ${grouped(national)}`;
const nationalOf = ({ country, national }: NonNullable<Base['phone']>) =>
  `${country.trunk ? '0' : ''}${grouped(national)}`;

const fullAddress = ({
  number,
  street,
  type,
  city,
  postcode,
}: NonNullable<Base['address']>): PostalAddress => ({
  address1: `${number} ${street} ${type[0]}`,
  city,
  postal_code: postcode,
});

/** The same address as another clerk writes it: the street type short, in lower case, no city. */
const shortAddress = ({ number, street, type, postcode }: NonNullable<Base['address']>): PostalAddress => ({
  address1: `${number} ${street.toLowerCase()} ${type[1]}`,
  city: '',
  postal_code: postcode,
});

/** One edit of a word of 5 letters or more, inside it: a letter changed, dropped, doubled or swapped. */
const typoOf = (random: Random, word: string): string => {
  const letters = Array.from(word);
  const at = 1 + Math.floor(random() * (letters.length - 2));
  const letter = letters[at] as string;
  switch (Math.floor(random() * 4)) {
    case 0: {
      const other = pickOf(
        random,
        [...'aeinorstu'].filter((candidate) => candidate !== letter.toLowerCase()),
      );
      return [...letters.slice(0, at), other, ...letters.slice(at + 1)].join('');
    }
    case 1:
      return [...letters.slice(0, at), ...letters.slice(at + 1)].join('');
    case 2:
      return [...letters.slice(0, at), letter, ...letters.slice(at)].join('');
    default:
      return [...letters.slice(0, at), letters[at + 1] as string, letter, ...letters.slice(at + 2)].join('');
  }
};

/** The first name one vowel off at its end or inside (Maria, Mario; Jan, Jon): another person's name. */
const nearNameOf = (random: Random, name: string): string | undefined => {
  const letters = Array.from(name);
  const vowels = letters.flatMap((letter, at) => (/[aeiou]/.test(letter) && at > 0 ? [at] : []));
  if (vowels.length === 0) return undefined;
  const at = pickOf(random, vowels);
  const other = pickOf(
    random,
    [...'aeiou'].filter((vowel) => vowel !== letters[at]),
  );
  return [...letters.slice(0, at), other, ...letters.slice(at + 1)].join('');
};

/** The set's state while it is drawn: its records, what is taken, and its streams. */
class Drawing {
  readonly records: DuplicateRecord[] = [];
  readonly pairs: LabelledPair[] = [];
  readonly bases: Base[] = [];
  private readonly names = new Set<string>();
  private readonly emails = new Set<string>();
  private readonly phones = new Set<string>();
  private readonly addresses = new Set<string>();
  private entities = 0;

  constructor(
    readonly pools: Pools,
    private readonly seed: number,
  ) {}

  stream(name: string): Random {
    return streamOf(this.seed, name);
  }

  /** A name's key: its words folded and sorted, so that a name in another order is taken too. */
  private nameKey(first: string, last: string) {
    return fold(fullnameOf({ first, last }))
      .split(/[\s-]+/u)
      .sort()
      .join(' ');
  }

  isTaken(first: string, last: string) {
    return this.names.has(this.nameKey(first, last));
  }

  take(first: string, last: string) {
    this.names.add(this.nameKey(first, last));
  }

  /** Takes `email` when no one holds it: whether it was free. */
  claim(email: string): boolean {
    if (this.emails.has(email)) return false;
    this.emails.add(email);
    return true;
  }

  /** An email of this name at one of `domains` no one holds yet, its mailbox in one of five usual forms. */
  email(random: Random, first: string, last: string, domains: readonly string[]): string {
    const f = slugOf(first) || 'x';
    const l = slugOf(last) || 'y';
    const forms = [
      `${f}.${l}`,
      `${f[0]}${l}`,
      `${f}_${l}`,
      `${l}.${f}`,
      `${f}${l}${10 + Math.floor(random() * 89)}`,
    ];
    for (let attempt = 0; ; attempt++) {
      const email = `${pickOf(random, forms)}${attempt > 0 ? attempt : ''}@${pickOf(random, domains)}`;
      if (this.claim(email)) return email;
    }
  }

  /** A taken email at another domain (its mailbox kept), or undefined when every domain holds it. */
  sameMailbox(email: string): string | undefined {
    const mailbox = email.slice(0, email.lastIndexOf('@'));
    return this.pools.domains.map((domain) => `${mailbox}@${domain}`).find((moved) => this.claim(moved));
  }

  phone(random: Random): NonNullable<Base['phone']> {
    for (;;) {
      const phone = {
        country: pickOf(random, this.pools.countries),
        national: digits(random, 9 + Math.floor(random() * 2)),
      };
      const key = `${phone.country.code}${phone.national}`;
      if (!this.phones.has(key)) {
        this.phones.add(key);
        return phone;
      }
    }
  }

  address(random: Random): NonNullable<Base['address']> {
    for (;;) {
      const address = {
        number: 1 + Math.floor(random() * 240),
        street: pickOf(random, this.pools.streets),
        type: pickOf(random, this.pools.streetTypes),
        city: pickOf(random, this.pools.cities),
        postcode: digits(random, 5),
      };
      const key = `${address.number} ${address.street} ${address.type[0]} ${address.postcode}`;
      if (!this.addresses.has(key)) {
        this.addresses.add(key);
        return address;
      }
    }
  }

  /** A record of a new person (no entity given) or a second record of `entity`: its index. */
  add(record: Omit<DuplicateRecord, 'entity'>, entity?: number): number {
    this.records.push({ ...record, entity: entity ?? this.entities++ });
    return this.records.length - 1;
  }
}

/** A new person of the tradition with a name no one has, and (by chance) an email, a phone, an address. */
const drawBase = (drawing: Drawing, random: Random, tradition: Tradition): Base | undefined => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const first = pickOf(random, tradition.first);
    const last =
      tradition.surnames === 2
        ? [...new Set([pickOf(random, tradition.last), pickOf(random, tradition.last)])].join(' ')
        : pickOf(random, tradition.last);
    if (drawing.isTaken(first, last)) continue;
    drawing.take(first, last);
    const phone = random() < 0.7 ? drawing.phone(random) : undefined;
    const address = random() < 0.6 ? drawing.address(random) : undefined;
    const index = drawing.add({
      first,
      last,
      emails: random() < 0.85 ? [drawing.email(random, first, last, drawing.pools.domains)] : [],
      phones: phone ? [internationalOf(phone)] : [],
      addresses: address ? [fullAddress(address)] : [],
    });
    return { index, tradition, ...(phone ? { phone } : {}), ...(address ? { address } : {}) };
  }
  return undefined;
};

type Planter = (drawing: Drawing, random: Random, base: Base) => number | undefined;

/** What a kind makes of a base person and its record: the record it plants, or undefined when it cannot. */
type Make = (
  drawing: Drawing,
  random: Random,
  base: Base,
  record: DuplicateRecord,
) => Omit<DuplicateRecord, 'entity'> | undefined;

/** A planter of a record beside the base's: a second record of its person (`same`), or another person. */
const planting =
  (same: boolean) =>
  (make: Make): Planter =>
  (drawing, random, base) => {
    const record = drawing.records[base.index] as DuplicateRecord;
    const made = make(drawing, random, base, record);
    return made ? drawing.add(made, same ? record.entity : undefined) : undefined;
  };

/** A second record of the base's person (a duplicate), and another person alike (not one). */
const second = planting(true);
const other = planting(false);

const bare = { emails: [], phones: [], addresses: [] };

/** How each kind plants its pair's second record from a base person. */
const PLANTERS: Record<DuplicateKindName, Planter> = {
  'nickname-address': second((drawing, random, { address }, { first, last }) => {
    const nicknames = drawing.pools.nicknames[first];
    if (!address || !nicknames) return undefined;
    const nickname = pickOf(random, nicknames);
    if (drawing.isTaken(nickname, last)) return undefined;
    return { ...bare, first: nickname, last, addresses: [shortAddress(address)] };
  }),
  'surname-dropped': second((_drawing, _random, { phone, tradition }, { first, last }) => {
    const parts = last.split(tradition.surnames === 2 ? /[\s-]/u : /-/u);
    if (!phone || parts.length < 2) return undefined;
    return { ...bare, first, last: parts[0] as string, phones: [nationalOf(phone)] };
  }),
  'plain-phone': second((_drawing, _random, { phone }, { first, last, emails }) => {
    if (!phone || emails.length === 0) return undefined;
    const plain = { first: plainOf(first), last: plainOf(last) };
    const written =
      plain.first === first && plain.last === last
        ? { first: first.toUpperCase(), last: last.toUpperCase() }
        : plain;
    return { ...bare, ...written, phones: [nationalOf(phone)] };
  }),
  'exact-phone': second((_drawing, _random, { phone }, { first, last, emails }) =>
    phone && emails.length > 0 ? { ...bare, first, last, phones: [nationalOf(phone)] } : undefined,
  ),
  'name-only': second((_drawing, _random, _base, { first, last, emails }) =>
    emails.length > 0 ? { ...bare, first, last } : undefined,
  ),
  'new-employer': second((drawing, _random, _base, { first, last, emails: [email] }) => {
    const moved = email ? drawing.sameMailbox(email) : undefined;
    return moved ? { ...bare, first, last, emails: [moved] } : undefined;
  }),
  'new-email-phone': second((drawing, random, { phone }, { first, last, emails }) => {
    if (!phone || emails.length === 0) return undefined;
    // A private address whose mailbox is not the first record's: the first name and a year.
    let email: string;
    do
      email = `${slugOf(first) || 'x'}${1950 + Math.floor(random() * 55)}@${pickOf(random, drawing.pools.privateDomains)}`;
    while (!drawing.claim(email));
    return { ...bare, first, last, emails: [email], phones: [nationalOf(phone)] };
  }),
  'typo-phone': second((drawing, random, { phone }, { first, last }) => {
    if (!phone) return undefined;
    const long = [first, last].filter((word) => Array.from(word).length >= 5 && !/[\s-]/u.test(word));
    if (long.length === 0) return undefined;
    const word = pickOf(random, long);
    const typo = typoOf(random, word);
    const name = word === first ? { first: typo, last } : { first, last: typo };
    if (typo === word || drawing.isTaken(name.first, name.last)) return undefined;
    return { ...bare, ...name, phones: [nationalOf(phone)] };
  }),
  'initial-address': second((_drawing, _random, { address }, { first, last }) =>
    address
      ? { ...bare, first: `${Array.from(first)[0]}.`, last, addresses: [shortAddress(address)] }
      : undefined,
  ),
  'swapped-phone': second((_drawing, _random, { phone }, { first, last, emails }) =>
    phone && emails.length > 0
      ? { ...bare, first: last, last: first, phones: [nationalOf(phone)] }
      : undefined,
  ),
  household: other((drawing, random, { phone, address, tradition }, { first, last }) => {
    if (!phone || !address) return undefined;
    const others = tradition.first.filter(
      (name) => fold(name) !== fold(first) && !drawing.isTaken(name, last),
    );
    if (others.length === 0) return undefined;
    const partner = pickOf(random, others);
    drawing.take(partner, last);
    return {
      first: partner,
      last,
      emails: random() < 0.5 ? [drawing.email(random, partner, last, drawing.pools.domains)] : [],
      phones: [nationalOf(phone)],
      addresses: [fullAddress(address)],
    };
  }),
  // Father and son are both new: a base person's name gets the father's Sr.
  'father-son': other((drawing, random, base, father) => {
    const address = base.address ?? drawing.address(random);
    father.suffix = 502;
    if (father.addresses.length === 0) father.addresses.push(fullAddress(address));
    if (father.emails.length === 0)
      father.emails.push(drawing.email(random, father.first, father.last, drawing.pools.domains));
    return {
      ...bare,
      first: father.first,
      last: father.last,
      suffix: 501,
      addresses: [fullAddress(address)],
    };
  }),
  'middle-initials': other((drawing, random, _base, first) => {
    const [mine, theirs] = shuffled(random, [...'ABCDEFGHJKLMNPRST']);
    first.middle = mine;
    if (first.emails.length === 0)
      first.emails.push(drawing.email(random, first.first, first.last, drawing.pools.domains));
    return {
      first: first.first,
      last: first.last,
      middle: theirs,
      emails: [drawing.email(random, first.first, first.last, drawing.pools.domains)],
      phones: [internationalOf(drawing.phone(random))],
      addresses: [],
    };
  }),
  'namesake-emails': other((drawing, random, _base, { first, last, emails }) =>
    emails.length > 0
      ? {
          first,
          last,
          emails: [drawing.email(random, first, last, drawing.pools.domains)],
          phones: random() < 0.7 ? [internationalOf(drawing.phone(random))] : [],
          addresses: random() < 0.6 ? [fullAddress(drawing.address(random))] : [],
        }
      : undefined,
  ),
  'namesake-no-email': other((drawing, random, _base, { first, last, emails }) =>
    emails.length > 0
      ? { ...bare, first, last, phones: [internationalOf(drawing.phone(random))] }
      : undefined,
  ),
  'near-name': other((drawing, random, _base, { first, last, emails }) => {
    const near = nearNameOf(random, first);
    if (!near || emails.length === 0 || drawing.isTaken(near, last)) return undefined;
    drawing.take(near, last);
    return { ...bare, first: near, last, emails: [drawing.email(random, near, last, drawing.pools.domains)] };
  }),
};

/** How large a set is drawn: its base persons, and the share of each kind's `count` planted. */
export interface DuplicateSetSize {
  bases: number;
  share: number;
}

/**
 * A labelled set: `bases` persons spread over the pools' traditions, then each kind's pairs (its
 * `count` times `share`, at least 2), each planted on a base person no other pair took (a kind that
 * cannot be planted on a person skips it).
 */
const duplicateSet = (
  name: string,
  seed: number,
  pools: Pools,
  { bases, share }: DuplicateSetSize,
): DuplicateSet => {
  const drawing = new Drawing(pools, seed);
  const random = drawing.stream('bases');
  for (let n = 0; n < bases; n++) {
    const base = drawBase(drawing, random, pools.traditions[n % pools.traditions.length] as Tradition);
    if (base) drawing.bases.push(base);
  }
  const free = shuffled(drawing.stream('order'), drawing.bases);
  const kinds = DUPLICATE_KINDS.map((kind) => ({
    ...kind,
    count: Math.max(2, Math.round(kind.count * share)),
  }));
  for (const { kind, count } of kinds) {
    const stream = drawing.stream(kind);
    let planted = 0;
    for (let at = 0; at < free.length && planted < count; ) {
      const base = free[at] as Base;
      const index = PLANTERS[kind](drawing, stream, base);
      if (index === undefined) {
        at++;
        continue;
      }
      free.splice(at, 1);
      drawing.pairs.push({ kind, records: [base.index, index] });
      planted++;
    }
    if (planted < count)
      throw new Error(`${name}: only ${planted} of ${count} ${kind} pairs could be planted`);
  }
  return { name, records: drawing.records, pairs: drawing.pairs, kinds };
};

/** The tuning set's seed: the grades' rules and thresholds (lib/domain/duplicates.ts) are tuned on it. */
export const DUPLICATE_SEED = 57;
/** The held-out set's: nothing is tuned on it. */
export const HOLDOUT_DUPLICATE_SEED = 5711;

export const tuningDuplicateSet = (size: DuplicateSetSize) =>
  duplicateSet('tuning set', DUPLICATE_SEED, TUNING_POOLS, size);
export const holdoutDuplicateSet = (size: DuplicateSetSize) =>
  duplicateSet('held-out set', HOLDOUT_DUPLICATE_SEED, HOLDOUT_POOLS, size);
