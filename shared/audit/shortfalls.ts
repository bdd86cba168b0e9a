import type { Ledger, RefundRecord } from '../ledger/index.js';
import type { PointItem } from '../openapi/index.js';
import { refundMarker, reversalMarker } from '../points/index.js';
import type { Healed } from './duplicates.js';
import type { Note } from './findings.js';
import { type ReversalDeps, type ReversalResult, takeBack } from './reversal.js';

/**
 * Issue 50 (chaos seed 9): an extra DEBIT (a request applied beyond every horizon) leaves the member
 * holding too little until the audit gives it back; a clamp of another refund meanwhile takes what is
 * held and books a shortfall that the double, not the member, caused. The reversal then gives those
 * points back too, and the member would end high for good. So the audit that gives an extra debit back
 * also takes up to that much of the member's clamps booked after the extra entry (the history's order,
 * which is the service's registration order): each clamp once, with a record and marker of its own
 * (`lp1:<source>:reversal:shortfall:<order>:<refund>`), through the same claim, search, act and record
 * as a reversal, under the same insufficient-points policy; what it took is written on the refund's
 * record (`shortfallSettled`; `shortfall` becomes what is left, and the refund reads `debited` when
 * nothing is), so a later run passes it by.
 *
 * A clamp that took nothing has no entry to place it in the history: it is left as booked (its
 * shortfall stays recorded and listed).
 */

const TITLE = 'ポイント訂正（不足分の精算） / Points corrected (refund shortfall settled)';

/** The settlement's record id in place of an extra entry's: one per refund, so a shortfall is settled at most once. */
export const shortfallEntryId = (orderId: string, refundId: string) =>
  `shortfall:${encodeURIComponent(orderId)}:${encodeURIComponent(refundId)}`;

/** Whether a reversal record is a shortfall's settlement (shortfallEntryId) rather than an extra entry's reversal. */
export const isSettlement = (entryId: string) => entryId.startsWith('shortfall:');

export interface ShortfallDeps {
  reversal: ReversalDeps;
  ledger: Pick<Ledger, 'settleRefundShortfall'>;
}

/** A clamped refund, its marker, and where its debit's entry stands in the history (0: newest). */
interface Clamp {
  refund: RefundRecord;
  marker: string;
  at: number;
}

/**
 * The member's done clamps with an entry in the history, oldest first. A refund's marker found twice is
 * placed by the entry that stands: the extra one is a double of its own (audit.ts corrects its record).
 */
function clampsOf(refunds: readonly RefundRecord[], history: readonly PointItem[], standing: Healed['standing']): Clamp[] {
  const clamps: Clamp[] = [];
  for (const r of refunds) {
    // Settled before (its shortfall now what is left): kept, as it counts against the extra that caused it.
    const clamped = r.shortfallSettled !== undefined || (r.outcome === 'insufficient_points' && (r.shortfall ?? 0) > 0);
    if (r.state !== 'done' || !clamped || (r.pointsDebited ?? 0) === 0) continue;
    const marker = refundMarker(r.source, r.orderId, r.refundId);
    const stands = standing.get(marker);
    const at = history.findIndex((e) => (stands ? e.id === stands.id : e.remarks === marker));
    if (at >= 0) clamps.push({ refund: r, marker, at });
  }
  return clamps.sort((a, b) => b.at - a.at);
}

/** The extra debits given back (this run or before), each with what it gave and its place, oldest first. */
async function givenBack(customerId: string, extras: Healed['extras'], history: readonly PointItem[], deps: ShortfallDeps) {
  const out: { entry: PointItem; points: number; at: number }[] = [];
  for (const { source, entry } of extras) {
    if (entry.point >= 0) continue;
    const record = await deps.reversal.reversals.get(source, customerId, entry.id);
    const points = record?.state === 'done' ? (record.pointsReversed ?? 0) : 0;
    const at = history.findIndex((e) => e.id === entry.id);
    if (points > 0 && at >= 0) out.push({ entry, points, at });
  }
  return out.sort((a, b) => b.at - a.at);
}

/**
 * Settles the clamps each given-back extra debit caused: those booked after it, oldest first, up to the
 * points it gave back (a clamp settled before counts against it as settled). Notes what it did.
 */
export async function settleShortfalls(
  customerId: string,
  history: readonly PointItem[],
  healed: Pick<Healed, 'extras' | 'standing'>,
  refunds: readonly RefundRecord[],
  deps: ShortfallDeps,
): Promise<Note[]> {
  const notes: Note[] = [];
  const clamps = clampsOf(refunds, history, healed.standing);
  const counted = new Set<Clamp>();
  for (const given of await givenBack(customerId, healed.extras, history, deps)) {
    let budget = given.points;
    for (const clamp of clamps) {
      if (budget <= 0) break;
      if (clamp.at >= given.at || clamp.marker === given.entry.remarks || counted.has(clamp)) continue;
      counted.add(clamp);
      const r = clamp.refund;
      if (r.shortfallSettled !== undefined) {
        budget -= r.shortfallSettled;
        continue;
      }
      const wanted = Math.min(r.shortfall ?? 0, budget);
      budget -= wanted;
      notes.push(await settleOne(customerId, r, wanted, given.entry, deps));
    }
  }
  return notes;
}

/** One clamp's settlement through the reversal's protocol, then its record; a note either way. */
async function settleOne(customerId: string, r: RefundRecord, wanted: number, extra: PointItem, deps: ShortfallDeps): Promise<Note> {
  const entryId = shortfallEntryId(r.orderId, r.refundId);
  const marker = reversalMarker(r.source, entryId);
  const input = {
    source: r.source,
    memberId: customerId,
    entryId,
    entryPoint: wanted,
    duplicatedMarker: extra.remarks ?? '',
    marker,
    orderId: r.orderId,
    refundId: r.refundId,
  };
  const result: ReversalResult = await takeBack(deps.reversal, input, TITLE);
  const where = { kind: 'shortfall_settled' as const, source: r.source, orderId: r.orderId, refundId: r.refundId, customerId };
  const cause = `the clamp's shortfall of ${r.shortfall} came after extra entry ${extra.id} (${extra.point}) of ${extra.remarks ?? '-'}, given back`;
  let taken: number | undefined;
  if (result.kind === 'reversed') taken = result.pointsReversed;
  else if (result.kind === 'done_before') {
    const record = await deps.reversal.reversals.get(r.source, customerId, entryId);
    if (record?.state === 'done') taken = record.pointsReversed ?? 0;
  }
  if (taken === undefined) {
    const why = result.kind === 'in_doubt' || result.kind === 'failed' ? result.reason : 'another run is settling it';
    return { ...where, detail: `${cause}; settling ${wanted} is not finished (${marker}): ${why}; the next audit goes on` };
  }
  await deps.ledger.settleRefundShortfall(r, { booked: r.shortfall ?? 0, taken });
  const short = taken < wanted ? `, ${wanted - taken} not taken (too few points held, policy ${deps.reversal.policy})` : '';
  return { ...where, detail: `${cause}: ${taken} of it taken (${marker})${short}` };
}
