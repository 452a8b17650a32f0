/**
 * Erasure (API.md 15): what is left of a person erased at its own request (GDPR Art. 17). Pure: the
 * tombstone that takes the Person's place under its id.
 * db/person/write/person-erase.ts writes it.
 */
/**
 * An erased person as stored afterwards: its id, when it was erased, and the dates and version of its
 * record (one higher than the last version it had). No personal value, no link to another person.
 */
export interface ErasedPerson {
  id: number;
  erased: string;
  CoreMetaData: { date_created: string; date_modified: string; version: number };
}

/** Whether a stored Person item, or a ChangeHistory snapshot, is an erased person's. */
export const isErasedPerson = (value: unknown): value is ErasedPerson =>
  typeof value === 'object' && value !== null && typeof (value as ErasedPerson).erased === 'string';

/** The tombstone of `person` erased at `now`: its next version, nothing personal. */
export const tombstoneOf = (
  person: { id: number; CoreMetaData: { date_created: string; version: number } },
  now: string,
): ErasedPerson => ({
  id: person.id,
  erased: now,
  CoreMetaData: {
    date_created: person.CoreMetaData.date_created,
    date_modified: now,
    version: person.CoreMetaData.version + 1,
  },
});

/**
 * What a stored answer to a keyed write (API.md 5.6) about a person becomes once the person is erased:
 * the tombstone, in place of the answer, so that a replay of the key answers 410 `erased` and never
 * the answer, which held the person's values.
 */
export interface ErasedAnswer {
  erasedPerson: ErasedPerson;
}

export const erasedAnswerOf = (tombstone: ErasedPerson): ErasedAnswer => ({ erasedPerson: tombstone });

export const isErasedAnswer = (value: unknown): value is ErasedAnswer =>
  typeof value === 'object' && value !== null && isErasedPerson((value as ErasedAnswer).erasedPerson);
