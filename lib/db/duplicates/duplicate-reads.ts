/**
 * What the duplicates detector reads (lib/duplicates/detect-duplicates.ts): the changed person,
 * consistently (one GetItem), and its candidates as reconciliation finds them (its postings and email
 * claims, never every person: lib/db/person/read/reconcile-candidates.ts, whose cost keys.ts gives).
 * The candidates are read eventually consistent, as reconciliation's are: a pair is written only
 * while both its persons are live (pair-store.ts checks it in the pair's transaction).
 */
import type { DuplicateReads } from '../../domain/ports/duplicates';
import { getStoredPerson } from '../person/read/person-reads';
import { candidatePersons, readPersons } from '../person/read/reconcile-candidates';
import type { Storage } from '../table/client';

export const duplicateReads = (storage: Storage): DuplicateReads => ({
  stored: (id) => getStoredPerson(storage, id),
  // Its emails are not looked up: an email's claim is held by one person (API.md 5.5), the person itself.
  candidates: async (request, self) =>
    (await candidatePersons(storage, { ...request, emails: [] }, self)).persons,
  persons: (ids) => readPersons(storage, ids),
});
