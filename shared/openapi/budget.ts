/**
 * The time an invocation has left, for the Open API client (no call starts that cannot end before
 * the Lambda timeout) and the worker (no event starts with too little time). A Lambda timeout
 * returns the whole batch to the queue with no outcome recorded; running out of budget instead ends
 * the started call in time and sends the remaining events back as ordinary retries.
 */
export interface InvocationBudget {
  /** Starts counting against an invocation's remaining time (Lambda's `context.getRemainingTimeInMillis`). */
  start(remainingMs: () => number): void;
  end(): void;
  /** Milliseconds left to spend (the margin already kept back), or undefined outside an invocation. */
  remainingMs(): number | undefined;
}

/** Kept back from the invocation's remaining time: the ledger writes after the last call and the batch answer. */
export const DEFAULT_BUDGET_MARGIN_MS = 2_000;

export function createInvocationBudget(marginMs = DEFAULT_BUDGET_MARGIN_MS): InvocationBudget {
  let source: (() => number) | undefined;
  return {
    start(remainingMs) {
      source = remainingMs;
    },
    end() {
      source = undefined;
    },
    remainingMs: () => (source === undefined ? undefined : source() - marginMs),
  };
}
