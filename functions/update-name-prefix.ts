import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/db/vocabulary/vocabulary-repository';
import { vocabularyUpdateHandler } from '../lib/http/vocabulary-handlers';

/** PATCH /NamePrefix/{id} */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  vocabularyUpdateHandler('NamePrefix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
