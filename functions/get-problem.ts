import { getProblemHandler } from '../lib/http/self-description-handlers';

/** GET /problems/{name}: the page a problem's `type` resolves to; GET /problems: the index of them. */
export const buildHandler = getProblemHandler;

export const handler = buildHandler();
