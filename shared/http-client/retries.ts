import type { CircuitBreaker } from '../retry/index.js';
import type { HttpAnswer } from './transport.js';

/**
 * The retry rules every shop-side API client shares (Square Orders, Smaregi): 429 and 5xx answers and
 * transport failures are tried again with backoff, the sender's `Retry-After` (seconds) honoured, never
 * waiting past `maxWaitMs`; and a circuit breaker so an outage costs one probe per period, not a call per event.
 */
export interface RetryOptions {
  /** Calls in all, the first included. */
  maxAttempts: number;
  sleep: (ms: number) => Promise<void>;
  maxWaitMs?: number;
}

export const DEFAULT_MAX_WAIT_MS = 5_000;

export const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The sender's `Retry-After` (seconds) when it gives one, else 200 ms doubling; never past maxWaitMs. */
export function retryDelayMs(attempt: number, retryAfter: string | string[] | undefined, maxWaitMs = DEFAULT_MAX_WAIT_MS): number {
  const seconds = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  const ms = retryAfter !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 200 * 2 ** (attempt - 1);
  return Math.min(ms, maxWaitMs);
}

export const isRetryableStatus = (status: number) => status === 429 || status >= 500;

/**
 * Calls `send` until it answers something other than 429/5xx, or the attempts are spent: then the last
 * answer is returned (or the last transport error thrown) for the caller to turn into its own error.
 */
export async function sendRetrying(send: () => Promise<HttpAnswer>, opts: RetryOptions): Promise<HttpAnswer> {
  for (let attempt = 1; ; attempt++) {
    let answer: HttpAnswer;
    try {
      answer = await send();
    } catch (e) {
      if (attempt >= opts.maxAttempts) throw e;
      await opts.sleep(retryDelayMs(attempt, undefined, opts.maxWaitMs));
      continue;
    }
    if (!isRetryableStatus(answer.status) || attempt >= opts.maxAttempts) return answer;
    await opts.sleep(retryDelayMs(attempt, answer.headers['retry-after'], opts.maxWaitMs));
  }
}

/**
 * Runs one call behind the breaker: refused at once (`refused()`) while it is open, and counted as an
 * outage when `isOutage` says the failure was the upstream's, not ours or the caller's.
 */
export async function throughBreaker<T>(
  breaker: CircuitBreaker,
  call: () => Promise<T>,
  isOutage: (e: unknown) => boolean,
  refused: () => Error,
): Promise<T> {
  const admission = breaker.admit();
  if (admission === 'reject') throw refused();
  try {
    const value = await call();
    breaker.record({ ok: true });
    return value;
  } catch (e) {
    breaker.record(isOutage(e) ? { ok: false, errorKind: 'server' } : { ok: true });
    throw e;
  } finally {
    if (admission === 'probe') breaker.probeDone();
  }
}
