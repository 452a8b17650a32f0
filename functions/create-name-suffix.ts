import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/db/vocabulary/vocabulary-repository';
import { vocabularyCreateHandler } from '../lib/http/vocabulary-handlers';

/** POST /NameSuffix */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  vocabularyCreateHandler('NameSuffix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
