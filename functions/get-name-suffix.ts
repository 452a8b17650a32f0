import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { vocabularyItemHandler } from '../lib/http/vocabulary-handlers';

/** GET /NameSuffix/{id} */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  vocabularyItemHandler('NameSuffix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
