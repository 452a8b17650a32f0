import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { vocabularyListHandler } from '../lib/http/vocabulary-handlers';

/** GET /NamePrefix */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  vocabularyListHandler('NamePrefix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
