/**
 * The erasure finisher, a consumer of `person.erased` on the bus (lib/api/bus-subscriptions.ts). An
 * erasure's chain (API.md 15: the history entries and stored answers of the person and of those merged
 * into it) runs before its DELETE answers; cut short (the function timed out, storage failed in the
 * middle), the tombstone keeps its `historyPending` mark and the id already answers 410. A retried
 * DELETE finishes it; this finishes it whether or not the client retries. Usually the DELETE's own
 * chain is done before the event arrives: one read, nothing written.
 *
 * At least once and in no set order is safe: it acts only while the mark stays, and every step of the
 * chain writes the same again.
 */
import { queueConsumer } from '../bus/consumer';
import type { PersonRepository } from '../domain/ports/persons';
import type { logger as defaultLogger } from '../logger';
import { addMetric } from '../metrics';

export const finishErasures = ({
  persons,
  logger,
}: {
  persons: Pick<PersonRepository, 'finishErasure'>;
  logger: Pick<typeof defaultLogger, 'info' | 'error'>;
}) =>
  queueConsumer(
    async (event, deadline) => {
      if (event.type !== 'person.erased') return;
      if (await persons.finishErasure(event.data.id, deadline)) {
        addMetric('ErasuresFinished');
        logger.info('erasure finished', { personId: event.data.id, eventId: event.id });
      }
    },
    { logger },
  );
