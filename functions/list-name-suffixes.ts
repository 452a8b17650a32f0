import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { vocabularyListHandler } from '../lib/http/vocabulary-handlers';

/** GET /NameSuffix */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  vocabularyListHandler('NameSuffix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
