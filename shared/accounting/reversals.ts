import * as z from 'zod';
import type { Entry, Read } from './entry.js';

/**
 * The one place reversal records are read (the audit's reversal of a duplicate credit or debit: its
 * records are being added by other work; until then there are none and the `reversed` column is 0).
 * Read as: `kind: "reversal"`, `source`, `points` signed as the reversal moved the balance (a duplicate
 * credit reversed: negative), the store when the order had one, and when it ran (`finishedAt`, else
 * `createdAt`). When those records take another shape, this function is what changes.
 */
const Reversal = z.object({
  pk: z.string(),
  source: z.string(),
  points: z.number().int(),
  store: z.string().optional(),
  finishedAt: z.string().optional(),
  createdAt: z.string().optional(),
});

export function reversalEntries(item: Record<string, unknown>): Read {
  const parsed = Reversal.safeParse(item);
  if (!parsed.success) return { unreadable: `record ${String(item.pk).slice(0, 200)} does not read as a reversal` };
  const r = parsed.data;
  if (r.points === 0) return { entries: [] };
  const entry: Entry = {
    key: r.pk,
    at: r.finishedAt ?? r.createdAt,
    source: r.source,
    store: r.store,
    column: 'reversed',
    points: r.points,
  };
  return { entries: [entry] };
}
