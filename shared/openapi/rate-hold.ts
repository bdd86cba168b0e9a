/**
 * A 429's Retry-After, held for every call of one client (a gateway limits the client, not one
 * request): shared/openapi/README.md, "Answers the spec does not give".
 */
import { OpenApiError } from './errors.js';

/** The wait after a 429 without Retry-After (doubling): a gateway's limit is per second or minute, not per 100 ms. */
const RATE_LIMIT_BACKOFF_MS = 1_000;

export interface RateHold {
  /**
   * After an error: whether it is a 429 to wait out and send again. It holds the client back for its
   * Retry-After (else 1 s, 2 s, 4 s...); false when the caller cannot wait that long here (then the
   * error goes up and the event waits in the queue) or has waited `waits` times already.
   */
  after(e: OpenApiError, waited: number): boolean;
  /** Before an exchange: waits out the hold, or throws `rate_limited` when the caller cannot wait that long. */
  wait(route: string): Promise<void>;
}

export function createRateHold(o: {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  remainingMs: (() => number | undefined) | undefined;
  minCallMs: number;
  /** Times one call waits out a 429. */
  waits: number;
  /** Longest wait made here. */
  maxWaitMs: number;
}): RateHold {
  let holdUntil = 0;
  const canWait = (ms: number) => {
    const left = o.remainingMs?.();
    return ms <= o.maxWaitMs && (left === undefined || left - ms >= o.minCallMs);
  };
  return {
    after(e, waited) {
      if (e.kind !== 'rate_limited' || waited >= o.waits) return false;
      const ms = e.retryAfterMs ?? RATE_LIMIT_BACKOFF_MS * 2 ** waited;
      holdUntil = Math.max(holdUntil, o.now() + ms);
      return canWait(ms);
    },
    async wait(route) {
      const held = holdUntil - o.now();
      if (held <= 0) return;
      if (!canWait(held)) {
        const messages = ['rate limited: waiting out an earlier Retry-After'];
        throw new OpenApiError({ kind: 'rate_limited', executed: 'no', messages, route, retryAfterMs: held });
      }
      await o.sleep(held);
    },
  };
}
