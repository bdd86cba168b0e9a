import { expectedCredit, expectedDebit, type HistoryEntry, isBenchRemark, type PlannedEvent } from './plan.js';

/**
 * Counts each planned event's outcome against the model from the member's point history after the run:
 * one member per order, so besides the points it held before the run (one entry, left out) its positive
 * entries are the order's credits and its negative entries the refund's debits. One entry of the model's amount is right; more are doubled; none is lost; an entry of
 * another amount is counted apart (a wrong amount, neither doubled nor lost).
 */

export interface EventCount {
  doubled: number;
  lost: number;
  wrongAmounts: number;
}

export function countEvent(event: PlannedEvent, history: readonly HistoryEntry[]): EventCount {
  const purchase = event.type === 'purchase';
  const expected = purchase ? expectedCredit(event) : expectedDebit(event);
  const entries = history
    .filter((e) => !isBenchRemark(e.remarks) && (purchase ? e.point > 0 : e.point < 0))
    .map((e) => BigInt(Math.abs(e.point)));
  if (expected === 0n) return { doubled: entries.length, lost: 0, wrongAmounts: 0 };
  const right = entries.filter((p) => p === expected).length;
  return { doubled: Math.max(0, right - 1), lost: right === 0 ? 1 : 0, wrongAmounts: entries.length - right };
}
