/**
 * The one logger shape the code takes as a dependency: Powertools' Logger methods (message, then
 * structured extra keys), so its Logger, the intake's JSON-line logger and `npm start`'s console
 * logger all fit without adapters.
 */
export interface Logger {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
}
