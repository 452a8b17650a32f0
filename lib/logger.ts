import { Logger } from '@aws-lambda-powertools/logger';

/** One structured JSON logger per container; level from `POWERTOOLS_LOG_LEVEL`. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'person-service' });
