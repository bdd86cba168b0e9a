/**
 * Per-endpoint limiter: at most `perMinute` requests in any 60-second window per key. It delays a
 * request until it fits, never refuses one (the spec's ceiling is a recommendation without a 429).
 *
 * A sliding window (not a token bucket) because a bucket of N refilled per minute can let 2N through
 * in one clock minute; the service counts per client and endpoint per minute.
 */
export interface RateLimiter extends CallLimiter {
  /** Resolves when a request on `key` may be sent. */
  acquire(key: string): Promise<void>;
  /** Takes a slot on `key`; returns how long to wait before sending (0: at once). */
  reserve(key: string): number;
}

/**
 * The seam the pipeline paces every call through: this per-container limiter, or the deployment's
 * shared budget (shared-budget.ts). `reserve` takes a slot on `key` and says how long to wait before
 * sending. A caller that cannot wait that long refuses the call: a slot taken for it is lost (under-use,
 * never over-use); the shared budget takes none past `maxWaitMs`. Synchronous when it can answer without asking anyone.
 * A wait the limiter makes itself before answering (the shared budget's, for the lend point) goes
 * through `sleep`, the caller's (the client's injected one), so it runs on the caller's clock.
 */
export interface CallLimiter {
  reserve(key: string, maxWaitMs?: number, sleep?: (ms: number) => Promise<void>): number | Promise<number>;
}

export interface RateLimiterOptions {
  perMinute: number;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  windowMs?: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Send times (past and reserved) of one key within the last window, oldest first. Holds at most
 * the budget plus queued callers, whatever the budget.
 */
class Window {
  private times: number[] = [];
  private head = 0;
  constructor(private readonly size: number) {}
  /** Reserves the earliest time >= now at which one more request keeps within the window. */
  reserve(now: number, windowMs: number): number {
    const t = this.times;
    while (this.head < t.length && (t[this.head] ?? now) <= now - windowMs) this.head++;
    if (this.head > 1024 && this.head * 2 > t.length) {
      this.times = t.slice(this.head);
      this.head = 0;
    }
    const q = this.times;
    const count = q.length - this.head;
    const last = count > 0 ? (q[q.length - 1] ?? now) : now;
    // Within budget: as soon as the last reservation (keeps the queue in order). Over budget: one
    // window after the request `size` places back.
    const at = count < this.size ? Math.max(now, last) : Math.max(now, last, (q[q.length - this.size] ?? now) + windowMs);
    q.push(at);
    return at;
  }
}

export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  if (!Number.isInteger(opts.perMinute) || opts.perMinute < 1) {
    throw new RangeError(`ratePerMinute must be a positive integer, got ${opts.perMinute}`);
  }
  const windowMs = opts.windowMs ?? 60_000;
  const sleep = opts.sleep ?? defaultSleep;
  const windows = new Map<string, Window>();
  const reserve = (key: string): number => {
    let w = windows.get(key);
    if (!w) {
      w = new Window(opts.perMinute);
      windows.set(key, w);
    }
    const now = opts.now();
    return w.reserve(now, windowMs) - now;
  };
  return {
    reserve,
    async acquire(key) {
      const wait = reserve(key);
      if (wait > 0) await sleep(wait);
    },
  };
}
