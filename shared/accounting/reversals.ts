import * as z from 'zod';
import type { Entry, Read } from './entry.js';

/**
 * The one place reversal records are read (the audit's reversal of an extra history entry of a marker
 * found twice: shared/ledger/reversals.ts). A done record moved `pointsReversed` points against its extra
 * entry (`entryPoint`): a doubled credit (+) is reversed by a deduction (-), a doubled deduction by an
 * addition. Booked on the day it finished; the store is not kept on a reversal (its order's is), so `-`.
 */
const Reversal = z.object({
  pk: z.string(),
  source: z.string(),
  state: z.enum(['pending', 'done']),
  entryPoint: z.number().int(),
  pointsReversed: z.number().int().nonnegative().optional(),
  finishedAt: z.string().optional(),
  createdAt: z.string().optional(),
});

export function reversalEntries(item: Record<string, unknown>): Read {
  const parsed = Reversal.safeParse(item);
  if (!parsed.success) return { unreadable: `record ${String(item.pk).slice(0, 200)} does not read as a reversal` };
  const r = parsed.data;
  const moved = r.state === 'done' ? (r.pointsReversed ?? 0) : 0;
  if (moved === 0) return { entries: [] };
  const entry: Entry = {
    key: r.pk,
    at: r.finishedAt ?? r.createdAt,
    source: r.source,
    store: undefined,
    column: 'reversed',
    points: r.entryPoint > 0 ? -moved : moved,
  };
  return { entries: [entry] };
}
