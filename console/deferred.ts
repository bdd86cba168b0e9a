import { ConsoleStartingError } from './errors.js';
import { message } from './messages.js';
import type { ConsoleSource } from './source.js';

/**
 * A source for routes built before the stack's parts exist: each read waits for none, it answers
 * 503 "starting" (ConsoleStartingError) until `get` gives the real source.
 */
export function deferredSource(get: () => ConsoleSource | undefined): ConsoleSource {
  const source = () => {
    const s = get();
    if (s === undefined) throw new ConsoleStartingError();
    return s;
  };
  return {
    get label() {
      return get()?.label ?? message('where.starting');
    },
    get ledger() {
      return source().ledger;
    },
    get openapi() {
      return source().openapi;
    },
    get quarantine() {
      return source().quarantine;
    },
    deadLetters: () => source().deadLetters(),
    redrive: () => source().redrive(),
    backlog: () => source().backlog(),
    pulling: () => source().pulling(),
  };
}
