import { referenceDataFromEnv } from '../lib/db/from-env';
import type { ReferenceData } from '../lib/db/reference-data';
import { referenceListHandler } from '../lib/http/reference-handlers';

/** GET /Prefix */
export const buildHandler = ({ reference }: { reference: ReferenceData }) =>
  referenceListHandler('Prefix', reference);

export const handler = buildHandler({ reference: referenceDataFromEnv() });
