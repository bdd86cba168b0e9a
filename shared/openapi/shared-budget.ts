/**
 * The deployment's one upstream budget, shared by every container of every function that calls the
 * Open API: a counter per endpoint per clock minute in a store every container sees (the ledger table:
 * shared/ledger/upstream-budget.ts), taken in slices. A container leases a slice of a minute's budget
 * with one conditional increment and spends it locally, so the store is asked about once per slice,
 * not once per call; a slice left over at the minute's end is lost (under-use, never over-use), so
 * near the end a container leases only what its pace would spend (budget-slices.ts).
 *
 * Two classes of caller draw from one counter, each class's calls also counted apart: `bulk` (the
 * worker, audit, sweep, probe, operators) may take its own count up to `perMinute - reserved` (from
 * late in the minute, what the App Proxy left of its reserve too: shared/config bulkCapAt; on an
 * endpoint the App Proxy never calls, all of it: storefront-reserve.ts),
 * `storefront` (the App Proxy) the whole counter up to `perMinute`: until the reserve is lent, it is
 * left for a shopper whatever the backlog, and the sum of both never passes `perMinute`.
 */
import { afterLease, leaseWant, lendWaitMs, MINUTE_MS, openSlice, reopenIfLent, type Slice, takeSlot } from './budget-slices.js';
import type { CallLimiter } from './rate-limiter.js';
import { storefrontReserveOn } from './storefront-reserve.js';
import {
  bulkCapAt,
  MIN_UPSTREAM_BUDGET_PER_MINUTE,
  STOREFRONT_RESERVE_LENT_FROM_MS,
  UPSTREAM_CEILING_PER_MINUTE,
} from '../config/index.js';

/** The store of the minute counters: one conditional increment per lease. */
export interface BudgetStore {
  /**
   * Adds up to `want` to the counter of `endpoint` in `minute` (epoch minutes) without taking it past
   * `cap`, and as much to the class's own count (`own`) without taking that past `own.cap`; returns
   * how many it added (0: the minute is spent for these caps).
   */
  lease(endpoint: string, minute: number, want: number, cap: number, own?: OwnCount): Promise<number>;
}

export type BudgetClass = 'bulk' | 'storefront';

/** A class's own count within a minute's counter, and the most it may reach. */
export interface OwnCount {
  class: BudgetClass;
  cap: number;
}

/**
 * What a class may take of a minute of the endpoint `route`, `now`: the whole counter, and its own
 * count's cap. On an endpoint the App Proxy never calls there is no reserve: the bulk callers may take
 * all of it (storefront-reserve.ts).
 */
export function classCaps(perMinute: number, cls: BudgetClass, minuteStart: number, now: number, route: string): OwnCount {
  const reserved = cls === 'bulk' && storefrontReserveOn(route);
  return { class: cls, cap: reserved ? bulkCapAt(perMinute, now - minuteStart) : perMinute };
}

export interface SharedBudgetOptions {
  store: BudgetStore;
  perMinute: number;
  class: BudgetClass;
  now: () => number;
  /**
   * How it waits (for the lend point, or for the next minute when no wait limit is given) when the
   * caller gives no sleep of its own to `reserve`; the pipeline always gives the client's, so a client
   * on a test's clock never waits real time.
   */
  sleep?: (ms: number) => Promise<void>;
}

export { MINUTE_MS };

/**
 * A limiter over the shared budget, behind the pipeline's seam (rate-limiter.ts, CallLimiter): a slot
 * from the local slice costs nothing; an empty slice leases the next one (one store request,
 * single-flight per endpoint and minute); a spent minute reserves in the next one and waits for its
 * start, if the caller can wait that long.
 */
export function createSharedBudget(o: SharedBudgetOptions): CallLimiter {
  const [min, max] = [MIN_UPSTREAM_BUDGET_PER_MINUTE, UPSTREAM_CEILING_PER_MINUTE];
  if (!Number.isInteger(o.perMinute) || o.perMinute < min || o.perMinute > max) {
    throw new RangeError(`the upstream budget must be an integer from ${min} to ${max}, got ${o.perMinute}`);
  }
  const ownSleep = o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  /** Per endpoint, per minute: the local slice. Minutes gone are dropped with what was left of them. */
  const slices = new Map<string, Map<number, Slice>>();
  const pending = new Map<string, Promise<void>>();
  const startOf = (minute: number) => minute * MINUTE_MS;

  const sliceOf = (key: string, minute: number, current: number): Slice => {
    let byMinute = slices.get(key);
    if (!byMinute) {
      byMinute = new Map();
      slices.set(key, byMinute);
    }
    let s = byMinute.get(minute);
    if (!s) {
      for (const m of byMinute.keys()) if (m < current) byMinute.delete(m);
      s = openSlice();
      byMinute.set(minute, s);
    }
    return s;
  };

  const capOf = (key: string, minute: number) => classCaps(o.perMinute, o.class, startOf(minute), o.now(), key);

  const lease = async (key: string, minute: number, s: Slice): Promise<void> => {
    const want = leaseWant(s, o.now(), startOf(minute + 1));
    const own = capOf(key, minute);
    afterLease(s, want, await o.store.lease(key, minute, want, o.perMinute, own), own.cap);
  };

  const leaseOnce = (key: string, minute: number, s: Slice): Promise<void> => {
    const k = `${key}\n${minute}`;
    let p = pending.get(k);
    if (!p) {
      p = lease(key, minute, s).finally(() => pending.delete(k));
      pending.set(k, p);
    }
    return p;
  };

  async function reserveSlow(key: string, maxWaitMs: number | undefined, sleep: (ms: number) => Promise<void>): Promise<number> {
    const started = o.now();
    let lendWaited = false;
    search: for (;;) {
      const now = o.now();
      const current = Math.floor(now / MINUTE_MS);
      const reach = maxWaitMs === undefined ? undefined : maxWaitMs - (now - started);
      // Minutes in reach: the current one, and each next one whose start the caller can wait for.
      for (let m = current; m === current || reach === undefined || startOf(m) - now <= reach; m++) {
        const s = sliceOf(key, m, current);
        reopenIfLent(s, capOf(key, m).cap);
        while (s.left === 0 && s.next > 0) await leaseOnce(key, m, s);
        if (s.left > 0) {
          takeSlot(s, o.now());
          return Math.max(0, startOf(m) - o.now());
        }
        // Spent before the App Proxy's reserve is lent: wait for the lend point (before the next minute), once.
        const lendAt = startOf(m) + STOREFRONT_RESERVE_LENT_FROM_MS;
        const wait =
          m === current && !lendWaited
            ? lendWaitMs(s, now, startOf(m), classCaps(o.perMinute, o.class, startOf(m), lendAt, key).cap)
            : undefined;
        if (wait !== undefined && (reach === undefined || wait <= reach)) {
          lendWaited = true;
          await sleep(wait);
          continue search;
        }
        if (maxWaitMs === undefined && m > current) break; // without a limit: wait for the next minute, then look again
      }
      if (maxWaitMs !== undefined) return Number.POSITIVE_INFINITY; // no slot in reach: the caller refuses
      await sleep(Math.max(1, startOf(current + 1) - o.now()));
    }
  }

  return {
    reserve(key, maxWaitMs, sleep) {
      const now = o.now();
      const current = Math.floor(now / MINUTE_MS);
      const s = sliceOf(key, current, current);
      if (s.left > 0) {
        takeSlot(s, now);
        return 0;
      }
      return reserveSlow(key, maxWaitMs, sleep ?? ownSleep);
    },
  };
}
