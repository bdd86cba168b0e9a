/**
 * The shared upstream budget as the year-end model runs it: one counter per endpoint per clock minute
 * that every container sees, leased in slices and spent locally, the workers' own count capped at the
 * budget less the App Proxy's reserved 10 % until the reserve is lent late in the minute, on the
 * endpoints the App Proxy calls (the product's caps: classCaps, shared/config bulkCapAt,
 * shared/openapi/storefront-reserve.ts). It follows shared/openapi/shared-budget.ts call for call and runs its
 * very slice policy (shared/openapi/budget-slices.ts: lease sizes, the pace near the minute's end, a
 * slice lost at the minute's end); only the store is this in-memory counter instead of the ledger table's
 * conditional increments (shared/ledger/upstream-budget.ts), whose arithmetic it repeats.
 */
import { STOREFRONT_RESERVE_LENT_FROM_MS } from '../../shared/config/index.js';
import {
  afterLease,
  classCaps,
  leaseWant,
  lendWaitMs,
  MINUTE_MS,
  openSlice,
  type OwnCount,
  reopenIfLent,
  routeOf,
  type Slice,
  takeSlot,
} from '../../shared/openapi/index.js';
import type { Caller, Endpoint } from './mix.js';

export { MINUTE_MS };

/** The one store of minute counters (the ledger table's budget# items in the stack). */
export class BudgetCounters {
  private readonly counters = new Map<string, number>();
  /** Conditional increments sent (DynamoDB UpdateItem: one write unit each, refused or not). */
  leaseRequests = 0;

  constructor(readonly perMinute: number) {}

  /** Adds up to `want` to the minute's counter and the class's own count without passing either cap; returns how many it added. */
  lease(endpoint: string, minute: number, want: number, own: OwnCount): number {
    this.leaseRequests += 1;
    const key = `${endpoint}#${minute}`;
    const mine = `${key}#${own.class}`;
    const used = this.counters.get(key) ?? 0;
    const taken = this.counters.get(mine) ?? 0;
    const got = Math.max(0, Math.min(want, this.perMinute - used, own.cap - taken));
    this.counters.set(key, used + got);
    this.counters.set(mine, taken + got);
    return got;
  }
}

/** A slot after `waitMs`; `again`: no slot yet, look again after `waitMs` (the lend point); infinite: none in reach. */
export interface Take {
  waitMs: number;
  leased: number;
  again?: true;
}

/** One container's view: its slices per endpoint and minute (minutes gone are dropped with what was left of them). */
export class ContainerBudget {
  private readonly slices = new Map<string, Map<number, Slice>>();

  constructor(
    private readonly counters: BudgetCounters,
    private readonly caller: Caller,
  ) {}

  private sliceOf(endpoint: string, minute: number, current: number): Slice {
    let byMinute = this.slices.get(endpoint);
    if (!byMinute) {
      byMinute = new Map();
      this.slices.set(endpoint, byMinute);
    }
    let s = byMinute.get(minute);
    if (!s) {
      for (const m of byMinute.keys()) if (m < current) byMinute.delete(m);
      s = openSlice();
      byMinute.set(minute, s);
    }
    return s;
  }

  /**
   * A slot for one call at `now`: wait 0 if it may go now, else the ms to wait for a later minute (whose
   * slot it has then already taken); no slot (`waitMs` infinite) when none is in reach of `maxWaitMs`.
   * `leased` tells how many store requests it cost.
   */
  take(endpoint: Endpoint, now: number, maxWaitMs = Number.POSITIVE_INFINITY, lendWaited = false): Take {
    let leased = 0;
    const current = Math.floor(now / MINUTE_MS);
    for (let minute = current; minute === current || minute * MINUTE_MS - now <= maxWaitMs; minute++) {
      const s = this.sliceOf(endpoint, minute, current);
      const start = minute * MINUTE_MS;
      const own = classCaps(this.counters.perMinute, this.caller, start, now, routeOf(endpoint));
      reopenIfLent(s, own.cap);
      while (s.left === 0 && s.next > 0) {
        const want = leaseWant(s, now, (minute + 1) * MINUTE_MS);
        afterLease(s, want, this.counters.lease(endpoint, minute, want, own), own.cap);
        leased += 1;
      }
      if (s.left > 0) {
        takeSlot(s, now);
        return { waitMs: Math.max(0, start - now), leased };
      }
      // As the product's limiter: spent before the reserve is lent, it waits for the lend point (once) and looks again.
      const atLend = classCaps(this.counters.perMinute, this.caller, start, start + STOREFRONT_RESERVE_LENT_FROM_MS, routeOf(endpoint)).cap;
      const wait = minute === current && !lendWaited ? lendWaitMs(s, now, start, atLend) : undefined;
      if (wait !== undefined && wait <= maxWaitMs) return { waitMs: wait, leased, again: true };
    }
    return { waitMs: Number.POSITIVE_INFINITY, leased };
  }
}
