import { referenceDataFromEnv } from '../lib/db/from-env';
import type { ReferenceData } from '../lib/db/reference-data';
import { referenceItemHandler } from '../lib/http/reference-handlers';

/** GET /Suffix/{id} */
export const buildHandler = ({ reference }: { reference: ReferenceData }) =>
  referenceItemHandler('Suffix', reference);

export const handler = buildHandler({ reference: referenceDataFromEnv() });
