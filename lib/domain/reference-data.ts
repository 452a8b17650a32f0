/**
 * Prefix and Suffix reference data. The ids are part of the contract (clients store them in
 * `name_prefix_fk`/`name_suffix_fk`), so they never change once published: add new entries at the end.
 */

export interface Prefix {
  id: number;
  prefix: string;
}

export interface Suffix {
  id: number;
  suffix: string;
}

export const PREFIXES: readonly Prefix[] = [
  'Mr.',
  'Mrs.',
  'Ms.',
  'Miss',
  'Mx.',
  'Dr.',
  'Prof.',
  'Rev.',
  'Fr.',
  'Sr.',
  'Hon.',
  'Sir',
  'Dame',
  'Lady',
].map((prefix, index) => ({ id: index + 1, prefix }));

export const SUFFIXES: readonly Suffix[] = [
  'Jr.',
  'Sr.',
  'II',
  'III',
  'IV',
  'V',
  'PhD',
  'MD',
  'DDS',
  'Esq.',
  'CPA',
  'RN',
].map((suffix, index) => ({ id: index + 1, suffix }));

const prefixIds = new Set(PREFIXES.map(({ id }) => id));
const suffixIds = new Set(SUFFIXES.map(({ id }) => id));

export const isPrefixId = (id: number): boolean => prefixIds.has(id);
export const isSuffixId = (id: number): boolean => suffixIds.has(id);
