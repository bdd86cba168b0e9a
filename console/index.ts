/** The operator console: a page and a small JSON API over the ledger, quarantine and queues (docs/console.md). */
export { CONSOLE_PATH, type ConsoleAnswer, type ConsoleRoute, consoleRoutes } from './routes.js';
export { ConsoleStartingError } from './errors.js';
export { deferredSource } from './deferred.js';
export { type ConsoleMessage, message } from './messages.js';
export type { Backlog, ConsoleDeadLetter, ConsoleSource } from './source.js';
export { startConsoleServer, type ConsoleServer } from './server.js';
