/**
 * The reference data a new table holds: the seeded NamePrefix and NameSuffix entries (API.md 11.4),
 * written at deploy by the reference-data custom resource (../seed-reference-data.ts, through
 * `seedVocabulary` beside this file) and by `npm start` and the tests through the same code. Data
 * only, importing nothing but the domain's types: the documents' examples show these entries too.
 */
import type { SeedEntry, VocabularyKind } from '../../../lib/domain/vocabulary';

const seed = (entries: [number, string, string][]): SeedEntry[] =>
  entries.map(([id, term, abbreviation]) => ({ id, term, abbreviation }));

/** What a new table holds. Ids are published: never change one, add new entries with new ids. */
export const SEEDED_VOCABULARY: Record<VocabularyKind, readonly SeedEntry[]> = {
  NamePrefix: seed([
    [1, 'Abbot', 'Abbot'],
    [2, 'Admiral', 'Adm.'],
    [21, 'Doctor', 'Dr.'],
    [501, 'Mister', 'Mr.'],
    [502, 'Missus', 'Mrs.'],
    [503, 'Miz', 'Ms.'],
    [504, 'Miss', 'Miss'],
    [505, 'Mixter', 'Mx.'],
    [506, 'Professor', 'Prof.'],
    [507, 'Reverend', 'Rev.'],
    [508, 'Father', 'Fr.'],
    [509, 'Sister', 'Sr.'],
    [510, 'Honorable', 'Hon.'],
    [511, 'Sir', 'Sir'],
    [512, 'Dame', 'Dame'],
    [513, 'Lady', 'Lady'],
  ]),
  NameSuffix: seed([
    [1, 'Second', 'II'],
    [2, 'Third', 'III'],
    [19, 'Esquire', 'Esquire'],
    [501, 'Junior', 'Jr.'],
    [502, 'Senior', 'Sr.'],
    [503, 'Fourth', 'IV'],
    [504, 'Fifth', 'V'],
    [505, 'Doctor of Philosophy', 'PhD'],
    [506, 'Doctor of Medicine', 'MD'],
    [507, 'Doctor of Dental Surgery', 'DDS'],
    [508, 'Certified Public Accountant', 'CPA'],
    [509, 'Registered Nurse', 'RN'],
  ]),
};

/**
 * Ids the allocator hands out start above this, so a vocabulary entry's seeded id is never also the id
 * of a person or a sub-object (API.md 3: ids are unique across every object).
 */
export const SEEDED_ID_CEILING = 1000;
