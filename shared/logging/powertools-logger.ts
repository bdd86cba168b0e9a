import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { capFields } from '../text/index.js';
import type { Logger } from './logger.js';

/**
 * The Lambda functions' logger: Powertools' JSON lines (service from POWERTOOLS_SERVICE_NAME, else the
 * function's own name), with every field's text capped (about 1 KB), since upstream answers and event
 * contents end up in them. The receiver's bundle stays without Powertools all the same: package.json
 * declares the project free of import side effects, so esbuild leaves out what a function does not use.
 */
export function loggerFromEnv(env: NodeJS.ProcessEnv, defaultService: string): Logger {
  const logger = new PowertoolsLogger({ serviceName: env.POWERTOOLS_SERVICE_NAME ?? defaultService });
  return {
    info: (message, extra = {}) => logger.info(message, capFields(extra)),
    warn: (message, extra = {}) => logger.warn(message, capFields(extra)),
    error: (message, extra = {}) => logger.error(message, capFields(extra)),
  };
}
