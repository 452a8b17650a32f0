import { vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import { referenceListHandler } from '../lib/http/vocabulary-handlers';

/** GET /Suffix: the NameSuffix entries in the PaginatedList view */
export const buildHandler = ({ vocabulary }: { vocabulary: VocabularyRepository }) =>
  referenceListHandler('NameSuffix', vocabulary);

export const handler = buildHandler({ vocabulary: vocabularyRepositoryFromEnv() });
