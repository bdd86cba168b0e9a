import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { capFields } from '../text/index.js';
import type { Logger } from './logger.js';

/**
 * The Lambda functions' logger: Powertools' JSON lines (service from POWERTOOLS_SERVICE_NAME, else the
 * function's own name), with every field's text capped (about 1 KB), since upstream answers and event
 * contents end up in them. Imported by the functions directly, not through shared/logging's index:
 * the receiver's bundle stays without Powertools.
 */
export function powertoolsLogger(env: NodeJS.ProcessEnv, defaultService: string): Logger {
  const logger = new PowertoolsLogger({ serviceName: env.POWERTOOLS_SERVICE_NAME ?? defaultService });
  return {
    info: (message, extra = {}) => logger.info(message, capFields(extra)),
    warn: (message, extra = {}) => logger.warn(message, capFields(extra)),
    error: (message, extra = {}) => logger.error(message, capFields(extra)),
  };
}
