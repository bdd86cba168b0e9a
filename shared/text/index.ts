/** Bounds on the texts we keep and log. */
export { MAX_TEXT_CHARS, capFields, capText } from './cap.js';
export { parseJsonOrUndefined } from './json.js';
export { terminalSafe } from './terminal.js';
