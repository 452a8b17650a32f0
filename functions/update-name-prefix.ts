import { idempotencyStoreFromEnv, vocabularyRepositoryFromEnv } from '../lib/db/from-env';
import type { VocabularyRepository } from '../lib/domain/ports/vocabulary';
import type { IdempotencyOptions } from '../lib/http/idempotency';
import { vocabularyUpdateHandler } from '../lib/http/vocabulary-handlers';

/** PATCH /NamePrefix/{id} */
export const buildHandler = ({
  vocabulary,
  idempotency,
}: {
  vocabulary: VocabularyRepository;
  idempotency?: IdempotencyOptions;
}) => vocabularyUpdateHandler('NamePrefix', vocabulary, idempotency);

export const handler = buildHandler({
  vocabulary: vocabularyRepositoryFromEnv(),
  idempotency: { store: idempotencyStoreFromEnv() },
});
