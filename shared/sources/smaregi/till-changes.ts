import type { ProcessOutcome, PurchaseEvent, RefundEvent } from '../../events/index.js';
import { type ChainLedger, purchaseMarker, refundMarker, runEarns } from '../../points/index.js';
import type { CanonicalRun } from '../resolution.js';
import type { PointChange } from './till-mirror.js';

/**
 * The points changes a till transaction made in the membership service, each to be mirrored to the
 * member's till record by its own marker (till-mirror.ts): credits, refunds' debits and the claw-backs of
 * a moved member, never the till spends and their give-backs (`<sale>/spend-<g>`, `.../back`) nor a staff
 * change (`<transaction>/staff`), which the till already made on its own record.
 */
const TILL_OWN = /\/(?:spend-\d+(?:\/back)?|staff)$/;

/** The runs, noting each change that ran (an answer proving it: credited, debited, clamped) into `changes`. */
export function notingChanges(run: CanonicalRun, ledger: ChainLedger, changes: PointChange[]): CanonicalRun {
  const purchase = async (event: PurchaseEvent) => {
    const outcome = await run.purchase(event);
    if (!TILL_OWN.test(event.orderId)) notePurchase(event, outcome, changes);
    return outcome;
  };
  const refund = async (event: RefundEvent) => {
    const outcome = await run.refund(event);
    const taken = debitOf(outcome);
    if (taken && 'customerId' in outcome)
      changes.push({ marker: refundMarker(event.source, event.orderId, event.refundId), memberId: outcome.customerId, points: -taken });
    return outcome;
  };
  return { purchase, refund, earns: (event) => runEarns(event, ledger, { purchase, refund }), members: run.members };
}

function notePurchase(event: PurchaseEvent, outcome: ProcessOutcome, changes: PointChange[]): void {
  if (outcome.kind === 'credited') {
    changes.push({ marker: purchaseMarker(event.source, event.orderId), memberId: outcome.customerId, points: outcome.points });
    // Refunds that waited for this purchase ran with it.
    for (const f of outcome.followUps ?? []) {
      if ((f.kind === 'debited' || f.kind === 'insufficient_points') && (f.points ?? 0) > 0)
        changes.push({
          marker: refundMarker(event.source, event.orderId, f.refundId),
          memberId: outcome.customerId,
          points: -(f.points ?? 0),
        });
    }
  }
}

/** What a refund took (positive), or undefined when it took nothing. */
function debitOf(outcome: ProcessOutcome): number | undefined {
  if ((outcome.kind === 'debited' || outcome.kind === 'insufficient_points') && outcome.points > 0) return outcome.points;
  return undefined;
}
