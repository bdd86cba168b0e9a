/** The one logger interface (Powertools' shape) and a JSON-lines logger in that shape where Powertools' is too big. */
export { createJsonLogger } from './json-logger.js';
export type { Logger } from './logger.js';
export { powertoolsLogger } from './powertools-logger.js';
