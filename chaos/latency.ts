import type { Ledger } from '../shared/ledger/index.js';
import { ASIDE_ATTRIBUTES } from '../shared/queue/index.js';

/**
 * How long each event took from the moment it could proceed to its final outcome (the ledger's
 * `finishedAt` of its order or refund record), on the run's simulated clock: a purchase from its first
 * acceptance (queued by intake), a refund from its own or its purchase's acceptance, whichever came
 * later (a refund delivered first waits for its purchase by design). Refunds parked because what they
 * waited for never came (their purchase, or the link of its customer) are counted apart. And how long
 * messages were held back in their FIFO group by an earlier message of it that was only deferring.
 */
export interface LatencyReport {
  events: number;
  p50Seconds: number;
  p99Seconds: number;
  maxSeconds: number;
  slowest: string | undefined;
  /** The slowest events: key and seconds, slowest first. */
  slowestEvents: SlowEvent[];
  /** Messages held back by a deferring message of their group, and the longest such wait. */
  heldBack: { messages: number; maxSeconds: number; over5s: number };
  /** The last change to a balance (credit or debit), in seconds after the last event was accepted. */
  settledSeconds: number;
  /** Refunds parked because their purchase (or its customer's link) never came: not in the figures above. */
  parked: number;
  /**
   * Ours: the p99 of every event's latency without what waits for a person. An event whose customer was
   * linked or enrolled only after it was accepted (an earlier order credited after the link, its refunds)
   * counts from that link instead; parked refunds stay out.
   */
  p99OursSeconds: number;
  /** The slowest events by that measure: what is left that is ours. */
  slowestOurs: SlowEvent[];
  /** Events that waited for their customer's link or enrolment (a person), and their whole latency. */
  awaitingPerson: { events: number; p99Seconds: number; maxSeconds: number };
}

export interface SlowEvent {
  key: string;
  seconds: number;
  attempts?: number;
  lastError?: string;
  outcome?: string;
  /** What it was set aside for, in order, with how long each wait was: what the event waited for. */
  waits?: string[];
}

/** When the customer of an order was linked or enrolled (simulated ms), if that happened during the run. */
export type LinkedAt = (ids: { source: string; orderId: string }) => number | undefined;

/** Outcomes that change a member's points: when the last of them finished, the balances are settled. */
const BALANCE_OUTCOMES = new Set(['credited', 'debited', 'insufficient_points']);

interface EventIds {
  type: 'purchase' | 'refund';
  source: string;
  orderId: string;
  refundId?: string;
}

function idsOf(body: string): (EventIds & { key: string }) | undefined {
  try {
    const e = JSON.parse(body) as Partial<EventIds> & { eventId?: string };
    if ((e.type !== 'purchase' && e.type !== 'refund') || typeof e.source !== 'string' || typeof e.orderId !== 'string') return undefined;
    const key = e.eventId ?? `${e.source}:${e.type}:${e.orderId}:${e.refundId ?? ''}`;
    return { type: e.type, source: e.source, orderId: e.orderId, ...(e.refundId ? { refundId: e.refundId } : {}), key };
  } catch {
    return undefined;
  }
}

/** A set-aside copy's reason and its wait in whole seconds (shared/queue/aside.ts attributes). */
function asideWait(attributes: Record<string, string> | undefined, now: number): string | undefined {
  const reason = attributes?.[ASIDE_ATTRIBUTES.reason];
  const wakeAt = Number(attributes?.[ASIDE_ATTRIBUTES.wakeAt]);
  if (reason === undefined || !Number.isFinite(wakeAt)) return undefined;
  return `${reason} ${Math.max(0, Math.round((wakeAt - now) / 1000))}s`;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

export function createLatencyMeter(options: { now: () => number; excluded?: () => [number, number] | undefined; linkedAt?: LinkedAt }) {
  const accepted = new Map<string, { at: number; ids: EventIds }>();
  const held: number[] = [];
  /** Per event, each wait it was set aside for: `<reason> <seconds>s`. */
  const waits = new Map<string, string[]>();
  const inExcluded = (at: number) => {
    const w = options.excluded?.();
    return w !== undefined && at >= w[0] && at <= w[1];
  };
  return {
    /** Intake queued a message (a delivery, or a set-aside copy: only the first counts). */
    onQueued(body: string): void {
      const ids = idsOf(body);
      if (ids && !accepted.has(ids.key)) accepted.set(ids.key, { at: options.now(), ids });
    },
    /** The worker set a waiting event aside: what for, and how long (what the slowest events waited for). */
    onSetAside(message: { body: string; attributes?: Record<string, string> }): void {
      const ids = idsOf(message.body);
      const wait = asideWait(message.attributes, options.now());
      if (ids && wait) waits.set(ids.key, [...(waits.get(ids.key) ?? []), wait]);
    },
    onFirstReceived(message: { sentAt: number; receivedAt: number; heldByDeferralMs: number }): void {
      // An outage defers everything on purpose (the breaker): what it holds back is the recovery's figure.
      if (inExcluded(message.sentAt) || inExcluded(message.receivedAt)) return;
      held.push(message.heldByDeferralMs / 1000);
    },
    async report(ledger: Ledger): Promise<LatencyReport> {
      const samples: SlowEvent[] = [];
      const ours: SlowEvent[] = [];
      const person: number[] = [];
      const lastAccepted = Math.max(...[...accepted.values()].map((a) => a.at));
      const purchaseAcceptedAt = new Map<string, number>();
      for (const { at, ids } of accepted.values()) if (ids.type === 'purchase') purchaseAcceptedAt.set(`${ids.source}:${ids.orderId}`, at);
      let lastBalanceChange = Number.NEGATIVE_INFINITY;
      let parked = 0;
      for (const [key, { at: acceptedAt, ids }] of accepted) {
        const at =
          ids.type === 'refund' ? Math.max(acceptedAt, purchaseAcceptedAt.get(`${ids.source}:${ids.orderId}`) ?? acceptedAt) : acceptedAt;
        const record =
          ids.type === 'purchase'
            ? await ledger.getOrder({ source: ids.source, orderId: ids.orderId })
            : await ledger.getRefund({ source: ids.source, orderId: ids.orderId, refundId: ids.refundId ?? '' });
        const finished = record?.finishedAt ? Date.parse(record.finishedAt) : Number.NaN;
        if (record?.outcome === 'refund_parked') {
          parked += 1;
          continue;
        }
        if (Number.isFinite(finished)) {
          if (record?.outcome && BALANCE_OUTCOMES.has(record.outcome)) lastBalanceChange = Math.max(lastBalanceChange, finished);
          const detail = {
            attempts: record?.attempts,
            ...(waits.has(key) ? { waits: waits.get(key) } : {}),
            ...(record?.outcome ? { outcome: record.outcome } : {}),
            ...(record?.lastError ? { lastError: record.lastError.slice(0, 80) } : {}),
          };
          samples.push({ key, seconds: Math.max(0, (finished - at) / 1000), ...detail });
          // Waiting for the customer's link is waiting for a person: ours starts at the link.
          const linked = options.linkedAt?.(ids);
          const oursFrom = linked !== undefined && linked > at ? linked : at;
          if (oursFrom !== at) person.push(Math.max(0, (finished - at) / 1000));
          ours.push({ key, seconds: Math.max(0, (finished - oursFrom) / 1000), ...detail });
        }
      }
      const sorted = samples.map((s) => s.seconds).sort((a, b) => a - b);
      const slowest = samples.reduce<{ key: string; seconds: number } | undefined>(
        (a, b) => (a && a.seconds >= b.seconds ? a : b),
        undefined,
      );
      const heldSorted = [...held].sort((a, b) => a - b);
      const oursSorted = ours.map((s) => s.seconds).sort((a, b) => a - b);
      const personSorted = [...person].sort((a, b) => a - b);
      return {
        events: samples.length,
        p50Seconds: quantile(sorted, 0.5),
        p99Seconds: quantile(sorted, 0.99),
        maxSeconds: sorted.at(-1) ?? 0,
        slowest: slowest?.key,
        slowestEvents: [...samples].sort((a, b) => b.seconds - a.seconds).slice(0, 10),
        heldBack: {
          messages: held.filter((s) => s > 0).length,
          maxSeconds: heldSorted.at(-1) ?? 0,
          over5s: held.filter((s) => s > 5).length,
        },
        settledSeconds: Number.isFinite(lastBalanceChange) ? Math.max(0, (lastBalanceChange - lastAccepted) / 1000) : 0,
        parked,
        p99OursSeconds: quantile(oursSorted, 0.99),
        slowestOurs: [...ours].sort((a, b) => b.seconds - a.seconds).slice(0, 10),
        awaitingPerson: { events: person.length, p99Seconds: quantile(personSorted, 0.99), maxSeconds: personSorted.at(-1) ?? 0 },
      };
    },
  };
}
