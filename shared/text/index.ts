/** Bounds on the texts we keep and log. */
export { MAX_TEXT_CHARS, capFields, capText } from './cap.js';
export { parseJsonOrUndefined } from './json.js';
export { terminalSafe } from './terminal.js';
export { renderTitle, TITLE_PLACEHOLDER, TITLE_PLACEHOLDERS, type TitleValues } from './title.js';
