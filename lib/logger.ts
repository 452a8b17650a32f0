import { Logger } from '@aws-lambda-powertools/logger';

/** The service's name in its log lines and on its metrics (`service`). */
export const SERVICE_NAME = process.env.POWERTOOLS_SERVICE_NAME ?? 'person-service';

/** One structured JSON logger per container; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
