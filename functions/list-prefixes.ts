import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { referenceListHandler } from '../lib/http/vocabulary-handlers';

/** GET /Prefix: the NamePrefix entries in the PaginatedList view */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  referenceListHandler('NamePrefix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
