import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { referenceItemHandler } from '../lib/http/vocabulary-handlers';

/** GET /Suffix/{id} */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  referenceItemHandler('NameSuffix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
