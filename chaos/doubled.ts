import type { Ledger } from '../shared/ledger/index.js';
import { ASIDE_ATTRIBUTES } from '../shared/queue/index.js';
import { collectEvidence } from './checks.js';
import type { ObservedCustomer, ObservedEntry } from './compare.js';
import type { Scenario } from './scenario.js';

/**
 * Evidence for doubled markers (issue 50). A run fails when more history entries are doubled than late
 * commits were drawn beyond the in-doubt horizon; which doubled marker a beyond commit explains cannot be
 * told from the histories (the emulator's clock jumps at token expiries, entry ids carry no time), so every
 * doubled marker gets its evidence: its entries, its order's events, deliveries, entries and ledger records
 * (a shipped share's own order too), and what the queue did with each of the order's messages (the
 * message trail below: queued, delivered at once to a second worker, set aside and why, deleted), so a
 * failure such as seed 10's (a fulfilment's copy racing ahead of its payment) reads from the report alone.
 */

const OURS = /^lp1:([^:]+):(order|refund|bonus|bonus-back):([^:]+)/;
const REVERSAL = /^lp1:[^:]+:reversal:/;

export interface DoubledMarker {
  customer: number;
  marker: string;
  entries: ObservedEntry[];
}

/** Markers of ours (not the audit's reversals) that move points and appear more than once in a customer's history. */
export function doubledMarkers(observed: readonly ObservedCustomer[]): DoubledMarker[] {
  const doubled: DoubledMarker[] = [];
  for (const customer of observed) {
    const byMarker = new Map<string, ObservedEntry[]>();
    for (const e of customer.history) {
      if (!e.remarks || !OURS.test(e.remarks) || REVERSAL.test(e.remarks)) continue;
      byMarker.set(e.remarks, [...(byMarker.get(e.remarks) ?? []), e]);
    }
    for (const [marker, entries] of byMarker)
      if (entries.length > 1 && entries.some((e) => e.point !== 0)) doubled.push({ customer: customer.index, marker, entries });
  }
  return doubled;
}

interface TrailMessage {
  body: string;
  attributes?: Record<string, string> | undefined;
}

/** Per order, what the queue did with its messages, in order, on the simulated clock (seconds from the run's start). */
export function createMessageTrail(now: () => number) {
  const startedAt = now();
  const lines = new Map<string, string[]>();
  const note = (message: TrailMessage, what: string): void => {
    let ids: { orderId?: unknown; eventId?: unknown };
    try {
      ids = JSON.parse(message.body) as typeof ids;
    } catch {
      return;
    }
    if (typeof ids.orderId !== 'string') return;
    const line = `${((now() - startedAt) / 1000).toFixed(1)} s ${String(ids.eventId ?? '?')}: ${what}`;
    lines.set(ids.orderId, [...(lines.get(ids.orderId) ?? []), line]);
  };
  return {
    queued: (m: TrailMessage) => note(m, 'queued by intake'),
    direct: (m: TrailMessage) => note(m, 'also delivered at once to a second worker'),
    setAside: (m: TrailMessage) => {
      const wakeAt = Number(m.attributes?.[ASIDE_ATTRIBUTES.wakeAt]);
      const wait = Number.isFinite(wakeAt) ? ` for ${Math.max(0, Math.round((wakeAt - now()) / 1000))} s` : '';
      note(m, `set aside (${m.attributes?.[ASIDE_ATTRIBUTES.reason] ?? '?'})${wait}`);
    },
    deleted: (m: TrailMessage) => note(m, 'done (deleted from the queue)'),
    linesFor: (orderId: string): string[] => lines.get(orderId) ?? [],
  };
}
export type MessageTrail = ReturnType<typeof createMessageTrail>;

/** The evidence lines of each doubled marker (at most `limit` markers). */
export async function doubledEvidence(
  doubled: readonly DoubledMarker[],
  context: { scenario: Scenario; observed: ObservedCustomer[]; ledger: Ledger; trail?: MessageTrail | undefined },
  limit = 10,
): Promise<string[]> {
  const lines: string[] = [];
  for (const d of doubled.slice(0, limit)) {
    const [, source = '', , encoded = ''] = OURS.exec(d.marker) ?? [];
    const named = decodeURIComponent(encoded);
    const orderId = named.split('/')[0] ?? named;
    const entries = d.entries.map((e) => `${e.point} (entry ${e.id}${e.created_at ? `, ${e.created_at}` : ''})`).join(', ');
    lines.push(`doubled ${d.marker}, customer ${d.customer}: ${entries}`);
    lines.push(...(await collectEvidence(context.scenario, context.observed, context.ledger, [orderId])).map((l) => `  ${l}`));
    if (named !== orderId)
      lines.push(`    ledger share order ${JSON.stringify(await context.ledger.getOrder({ source, orderId: named }))}`);
    for (const t of context.trail?.linesFor(orderId) ?? []) lines.push(`    queue ${t}`);
  }
  return lines;
}
