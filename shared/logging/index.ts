export type { Logger } from './logger.js';
export { createJsonLogger } from './json-logger.js';
