/**
 * The shared upstream budget as the year-end model runs it: one counter per endpoint per clock minute
 * that every container sees, leased in slices (20 calls first, doubling to 50) and spent locally, the
 * workers capped at the budget less the App Proxy's reserved 10 %. It follows branch s5-budget's
 * shared/openapi/shared-budget.ts call for call (lease sizes, caps, a slice lost at the minute's end);
 * when that branch is on main, `bulkShare` comes from shared/config instead of the copy here.
 */
import type { Caller } from './mix.js';
import { bulkShare } from './share.js';

export const MINUTE_MS = 60_000;
export const FIRST_SLICE = 20;
export const MAX_SLICE = 50;

/** The one store of minute counters (the ledger table's budget# items in the stack). */
export class BudgetCounters {
  private readonly counters = new Map<string, number>();
  /** Conditional increments sent (DynamoDB UpdateItem: one write unit each, refused or not). */
  leaseRequests = 0;

  constructor(readonly perMinute: number) {}

  capOf(caller: Caller): number {
    return caller === 'storefront' ? this.perMinute : bulkShare(this.perMinute);
  }

  /** Adds up to `want` to the minute's counter without passing `cap`; returns how many it added. */
  lease(endpoint: string, minute: number, want: number, cap: number): number {
    this.leaseRequests += 1;
    const key = `${endpoint}#${minute}`;
    const used = this.counters.get(key) ?? 0;
    const got = Math.max(0, Math.min(want, cap - used));
    this.counters.set(key, used + got);
    return got;
  }
}

/** One container's view: its slices of the current minute, per endpoint. */
export class ContainerBudget {
  private readonly slices = new Map<string, { minute: number; left: number; next: number }>();

  constructor(
    private readonly counters: BudgetCounters,
    private readonly caller: Caller,
  ) {}

  /**
   * A slot for one call at `now`: wait 0 if it may go now, else the ms to wait for a later minute (whose
   * slot it has then already taken); no slot (`waitMs` infinite) when none is in reach of `maxWaitMs`.
   * `leased` tells how many store requests it cost.
   */
  take(endpoint: string, now: number, maxWaitMs = Number.POSITIVE_INFINITY): { waitMs: number; leased: number } {
    let leased = 0;
    const current = Math.floor(now / MINUTE_MS);
    for (let minute = current; minute === current || minute * MINUTE_MS - now <= maxWaitMs; minute++) {
      let s = this.slices.get(endpoint);
      if (!s || s.minute !== minute) {
        s = { minute, left: 0, next: FIRST_SLICE };
        this.slices.set(endpoint, s);
      }
      while (s.left === 0 && s.next > 0) {
        const want = s.next;
        const got = this.counters.lease(endpoint, minute, want, this.counters.capOf(this.caller));
        leased += 1;
        s.left += got;
        s.next = got < want ? 0 : Math.min(MAX_SLICE, want * 2);
      }
      if (s.left > 0) {
        s.left -= 1;
        return { waitMs: Math.max(0, minute * MINUTE_MS - now), leased };
      }
    }
    return { waitMs: Number.POSITIVE_INFINITY, leased };
  }
}
