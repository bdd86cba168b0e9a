import { CIRCUIT_FIRST_PROBE_SECONDS } from '../config/index.js';
import { isOutageKind, isUnsentKind } from './outage.js';

/**
 * A circuit breaker per worker container: after a run of consecutive upstream failures (the service is
 * down, not one request unlucky) it opens, and queued events are deferred without calling; once per
 * period one event goes through as a probe (the worker first makes a health read for it:
 * shared/consumer/record.ts `trial`). A success closes it; a failed probe keeps it open for
 * another period, twice as long as the last, up to `openMs`. So a short fault (a burst of 5xx, a few
 * slow answers) holds the events for seconds, not a whole `openMs`, while a dead service still costs
 * each container at most one probe per `openMs` once it has failed a few probes in a row.
 */

export type Admission = 'pass' | 'probe' | 'reject';

export interface CircuitBreaker {
  /** Whether the next event may call the service now: `probe` is the one trial while open. */
  admit(): Admission;
  /** An Open API call's result: ok, or the error kind it failed with. */
  record(result: { ok: true } | { ok: false; errorKind: string }): void;
  /** An admitted probe finished (whatever it did): the next one may go after the current period. */
  probeDone(): void;
  /** Milliseconds until the next probe may go (0 when closed or due). */
  remainingMs(): number;
  /** How long it has been open, in ms (0 when closed). */
  openForMs(): number;
  isOpen(): boolean;
}

export interface CircuitBreakerOptions {
  /** The longest period between probes (CIRCUIT_OPEN_SECONDS): a failing service is probed at least this rarely. */
  openMs: number;
  /** The first period after it opens (default CIRCUIT_FIRST_PROBE_SECONDS, at most `openMs`); each failed probe doubles it. */
  firstProbeMs?: number;
  /** Consecutive outage failures that open it. */
  failureThreshold?: number;
  now?: () => number;
}

export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  const threshold = options.failureThreshold ?? 5;
  const firstMs = Math.min(options.firstProbeMs ?? CIRCUIT_FIRST_PROBE_SECONDS * 1000, options.openMs);
  let failures = 0;
  let openSince: number | undefined;
  let openUntil = 0;
  let periodMs = firstMs;
  let probing = false;

  /** Opening starts at the first period; a failed probe doubles it; a call already in flight keeps it. */
  const open = () => {
    if (openSince === undefined) {
      openSince = now();
      periodMs = firstMs;
    } else if (probing) {
      periodMs = Math.min(options.openMs, periodMs * 2);
    }
    openUntil = now() + periodMs;
  };
  return {
    admit() {
      if (openSince === undefined) return 'pass';
      if (probing || now() < openUntil) return 'reject';
      probing = true;
      return 'probe';
    },
    record(result) {
      if (result.ok) {
        failures = 0;
        openSince = undefined;
        openUntil = 0;
        return;
      }
      // Never sent: the service was not asked.
      if (isUnsentKind(result.errorKind)) return;
      if (!isOutageKind(result.errorKind)) {
        // The service answered (customer unknown, validation...): it is up. A non-API error proves nothing.
        if (result.errorKind !== 'unexpected') {
          failures = 0;
          openSince = undefined;
          openUntil = 0;
        }
        return;
      }
      failures += 1;
      if (probing || openSince !== undefined || failures >= threshold) open();
    },
    probeDone() {
      probing = false;
    },
    remainingMs: () => (openSince === undefined ? 0 : Math.max(0, openUntil - now())),
    openForMs: () => (openSince === undefined ? 0 : now() - openSince),
    isOpen: () => openSince !== undefined,
  };
}
