import * as z from 'zod';
import { BonusRecord, OrderRecord, orderKey, RedemptionRecord, RefundRecord, refundKey } from '../ledger/index.js';
import { reversalEntries } from './reversals.js';
import type { Entry, Read } from './entry.js';

type Item = Record<string, unknown>;

const unreadable = (item: Item, what: string): Read => ({ unreadable: `record ${String(item.pk).slice(0, 200)} does not read as ${what}` });

/** A Smaregi till give-back (shared/sources/smaregi/spend.ts: `<sale>/spend-<g>/back`): points returned, not earned. */
const GIVE_BACK = /\/spend-\d+\/back$/;

/** An order's own movement: a purchase's credit, a till's spend (a fixed deduction) or its give-back. */
function orderMovement(order: OrderRecord): Entry[] {
  if (order.state !== 'done') return [];
  const base = { key: order.pk, at: order.finishedAt ?? order.updatedAt, source: order.source, store: order.store };
  if (order.outcome === 'credited') {
    // Exact when read from the history; else the balance's move around the grant (the only figure kept).
    const points = order.pointsCredited ?? order.pointsHint ?? 0;
    if (points === 0) return [];
    return [{ ...base, column: GIVE_BACK.test(order.orderId) ? 'returned' : 'granted', points }];
  }
  if ((order.outcome === 'debited' || order.outcome === 'insufficient_points') && (order.pointsCredited ?? 0) < 0) {
    return [{ ...base, column: 'spent_till', points: order.pointsCredited ?? 0 }];
  }
  return [];
}

/** The refunds booked on an order (its book: what each actually debited, and when): the second way's refunds. */
function bookedRefunds(order: OrderRecord): Entry[] {
  return Object.entries(order.refunds)
    .filter(([, applied]) => applied.debited > 0)
    .map(([refundId, applied]) => ({
      key: refundKey(order.source, order.orderId, refundId),
      at: applied.at,
      source: order.source,
      store: order.store,
      column: 'refunded' as const,
      points: -applied.debited,
    }));
}

/** A finished refund's own record: what it debited. */
function refundMovement(refund: RefundRecord): Entry[] {
  if (refund.state !== 'done' || (refund.outcome !== 'debited' && refund.outcome !== 'insufficient_points')) return [];
  const debited = refund.pointsDebited ?? 0;
  if (debited === 0) return [];
  return [
    {
      key: refund.pk,
      at: refund.finishedAt ?? refund.updatedAt,
      source: refund.source,
      orderKey: orderKey(refund.source, refund.orderId),
      column: 'refunded',
      points: -debited,
    },
  ];
}

/** A redemption: its deduction once known done (`deducted`), what was given back, and what was taken again. */
function redemptionMovements(r: RedemptionRecord): Entry[] {
  const out: Entry[] = [];
  if (r.deducted) out.push({ key: `${r.pk}#deduction`, at: r.createdAt, source: r.source, column: 'redeemed', points: -r.points });
  if ((r.returnedPoints ?? 0) > 0) {
    out.push({
      key: `${r.pk}#return`,
      at: r.finishedAt ?? r.updatedAt,
      source: r.source,
      column: 'returned',
      points: r.returnedPoints ?? 0,
    });
  }
  // Given back, then taken again by a late order of the code (docs/redemption.md, "Use and return"): spent after all.
  if ((r.clawedBackPoints ?? 0) > 0) {
    out.push({
      key: `${r.pk}#clawback`,
      at: r.updatedAt ?? r.createdAt,
      source: r.source,
      column: 'redeemed',
      points: -(r.clawedBackPoints ?? 0),
    });
  }
  return out;
}

/**
 * A campaign's bonus on one order (shared/ledger/bonuses.ts): the bonus once granted, and what each refund
 * took back of it (at its booking). A bonus still pending has moved nothing the ledger knows of.
 */
function bonusMovements(b: BonusRecord): Entry[] {
  const out: Entry[] = [];
  // The store is the order's, as for its refunds.
  const of = { source: b.source, orderKey: orderKey(b.source, b.orderId) };
  if (b.state === 'done' && (b.points ?? 0) > 0) {
    out.push({ key: b.pk, at: b.finishedAt ?? b.updatedAt ?? b.createdAt, ...of, column: 'bonus', points: b.points ?? 0 });
  }
  for (const [refundId, c] of Object.entries(b.clawbacks)) {
    if (c.taken > 0) out.push({ key: `${b.pk}#${refundId}`, at: c.at, ...of, column: 'clawed_back', points: -c.taken });
  }
  return out;
}

/** Records of the adjustment shape (a source, signed points and a time): `clawback`, and a `bonus` item not of bonuses.ts's schema. */
const Adjustment = z.object({
  pk: z.string(),
  source: z.string(),
  points: z.number().int(),
  store: z.string().optional(),
  at: z.string().optional(),
  finishedAt: z.string().optional(),
  createdAt: z.string().optional(),
});

function adjustment(item: Item, column: 'bonus' | 'clawed_back'): Read {
  const parsed = Adjustment.safeParse(item);
  if (!parsed.success) return unreadable(item, `a ${String(item.kind)} record`);
  const a = parsed.data;
  const points = column === 'bonus' ? Math.abs(a.points) : -Math.abs(a.points);
  return { entries: [{ key: a.pk, at: a.at ?? a.finishedAt ?? a.createdAt, source: a.source, store: a.store, column, points }] };
}

/** The two ways' readings of one record: `movements` (each record on its own) and `books` (refunds from their order's book). */
export interface RecordReading {
  movements: Read;
  books: Read;
}

export function readRecord(item: Item): RecordReading {
  const same = (read: Read): RecordReading => ({ movements: read, books: read });
  switch (item.kind) {
    case 'order': {
      const parsed = OrderRecord.safeParse(item);
      if (!parsed.success) return same(unreadable(item, 'an order'));
      const own = orderMovement(parsed.data);
      return { movements: { entries: own }, books: { entries: [...own, ...bookedRefunds(parsed.data)] } };
    }
    case 'refund': {
      const parsed = RefundRecord.safeParse(item);
      if (!parsed.success) return same(unreadable(item, 'a refund'));
      return { movements: { entries: refundMovement(parsed.data) }, books: { entries: [] } };
    }
    case 'redemption': {
      const parsed = RedemptionRecord.safeParse(item);
      return same(parsed.success ? { entries: redemptionMovements(parsed.data) } : unreadable(item, 'a redemption'));
    }
    case 'bonus': {
      const parsed = BonusRecord.safeParse(item);
      return same(parsed.success ? { entries: bonusMovements(parsed.data) } : adjustment(item, 'bonus'));
    }
    case 'clawback':
      return same(adjustment(item, 'clawed_back'));
    case 'reversal':
      return same(reversalEntries(item));
    default:
      return same({ entries: [] });
  }
}
