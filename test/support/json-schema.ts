/** One JSON Schema 2020-12 validator setup for every test that checks the generated documents. */
import Ajv2020, { type Options } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { isEmailAddress } from '../../lib/domain/email';

/** Ajv with the standard formats, plus `idn-email` (RFC 6531), which ajv-formats does not carry. */
export const schemaValidator = (options: Options = { strict: true, strictTypes: false }) => {
  const ajv = new Ajv2020(options);
  addFormats(ajv);
  ajv.addFormat('idn-email', isEmailAddress);
  return ajv;
};
