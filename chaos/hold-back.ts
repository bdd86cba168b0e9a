/**
 * How long a POS sale of a customer waited in the queue when a return of the same customer was queued
 * ahead of it (same FIFO group): the return must never hold the customer's later sales back for long.
 * Measured on the simulated clock, from the sale's send to its deletion; the other POS sales with a
 * customer are the baseline. (A sale without customer is queued in its order's own group, with only
 * that order's returns: a return there waits for it at most the refund wait, holding back nobody else.)
 */
export interface HoldBackReport {
  behindReturn: { sales: number; maxSeconds: number; p50Seconds: number };
  otherSales: { sales: number; maxSeconds: number; p50Seconds: number };
}

interface Parsed {
  type: string;
  source: string;
  customer: unknown;
}

function parse(body: string): Parsed | undefined {
  try {
    const e = JSON.parse(body) as Partial<Parsed>;
    return typeof e.type === 'string' && typeof e.source === 'string'
      ? { type: e.type, source: e.source, customer: e.customer ?? null }
      : undefined;
  } catch {
    return undefined;
  }
}

export function createHoldBackMeter(options: { posSource: string; now: () => number; excluded?: () => [number, number] | undefined }) {
  /** Returns queued and not yet processed, per group. */
  const pendingReturns = new Map<string, number>();
  /** Per sale body, in send order: whether a return of its group was pending when it was queued. */
  const behind = new Map<string, boolean[]>();
  const samples = { behindReturn: [] as number[], otherSales: [] as number[] };

  const summary = (list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return { sales: sorted.length, maxSeconds: sorted.at(-1) ?? 0, p50Seconds: sorted[Math.floor(sorted.length / 2)] ?? 0 };
  };
  return {
    onQueued(message: { groupId: string; body: string }): void {
      const e = parse(message.body);
      if (e?.source !== options.posSource || e.customer === null) return;
      if (e.type === 'refund') pendingReturns.set(message.groupId, (pendingReturns.get(message.groupId) ?? 0) + 1);
      else behind.set(message.body, [...(behind.get(message.body) ?? []), (pendingReturns.get(message.groupId) ?? 0) > 0]);
    },
    onDeleted(message: { groupId: string; body: string; sentAt: number; deletedAt: number }): void {
      const e = parse(message.body);
      if (e?.source !== options.posSource || e.customer === null) return;
      if (e.type === 'refund') {
        pendingReturns.set(message.groupId, Math.max(0, (pendingReturns.get(message.groupId) ?? 0) - 1));
        return;
      }
      const flag = behind.get(message.body)?.shift() ?? false;
      const window = options.excluded?.();
      // A sale that waited through the outage measures the outage, not the return.
      if (window && message.sentAt < window[1] && message.deletedAt > window[0]) return;
      (flag ? samples.behindReturn : samples.otherSales).push((message.deletedAt - message.sentAt) / 1000);
    },
    report(): HoldBackReport {
      return { behindReturn: summary(samples.behindReturn), otherSales: summary(samples.otherSales) };
    },
  };
}
