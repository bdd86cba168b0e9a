/** The one logger interface (Powertools' shape) and a JSON-lines logger in that shape where Powertools' is too big. */
export { jsonLoggerFromEnv } from './json-logger.js';
export type { Logger } from './logger.js';
export { loggerFromEnv } from './powertools-logger.js';
