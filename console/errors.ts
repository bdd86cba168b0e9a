/** The local stack has not finished starting: the console answers 503 "starting" meanwhile. */
export class ConsoleStartingError extends Error {
  readonly kind = 'starting' as const;
  override readonly name = 'ConsoleStartingError';
  constructor() {
    super('the local stack is still starting');
  }
}
