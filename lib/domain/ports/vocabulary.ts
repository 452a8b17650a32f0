/** The NamePrefix/NameSuffix vocabularies' port (API.md 8); lib/db/vocabulary/ implements it. */
import type { Abbreviations } from '../person';
import type { VocabularyBody, VocabularyEntry, VocabularyKind } from '../vocabulary';
import type { UpdateOptions, WriteOptions } from './writes';

export interface VocabularyReader {
  list(kind: VocabularyKind): Promise<VocabularyEntry[]>;
  get(kind: VocabularyKind, id: number): Promise<VocabularyEntry>;
  /** The abbreviations of the entries with these ids; ids that name no entry are left out. */
  abbreviations(ids: Record<VocabularyKind, number[]>): Promise<Abbreviations>;
}

export interface VocabularyRepository extends VocabularyReader {
  create(
    kind: VocabularyKind,
    body: VocabularyBody,
    requester: number,
    options?: WriteOptions,
  ): Promise<VocabularyEntry>;
  update(
    kind: VocabularyKind,
    id: number,
    body: VocabularyBody,
    requester: number,
    options?: UpdateOptions,
  ): Promise<VocabularyEntry>;
}
