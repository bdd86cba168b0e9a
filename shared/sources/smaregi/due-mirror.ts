import type { OrderRecord, RefundRecord, RefundRef } from '../../ledger/index.js';
import { type AfterDueEarn, purchaseMarker, refundMarker, searchHistory } from '../../points/index.js';
import { type BonusReader, bonusChanges } from './bonus-changes.js';
import { type PointChange, mirrorPointChange, type TillMirrorDeps } from './till-mirror.js';
import { mirroredOutcome } from './till-mirror-events.js';

/** The ledger reads of the due mirror: the refunds before the day and the order's campaign bonuses. */
type DueLedger = BonusReader & { getRefund(ref: RefundRef): Promise<RefundRecord | undefined> };

/**
 * A till sale earned at its day (`earnAfter: {"days": N}`, issue 53) under `tillPoints: membership`: the
 * due tick credits it, not the transaction's delivery, so the tick mirrors it to the member's till record
 * (shared/points/processor.ts runs this before it drops the order's due entry). The credit and the debits
 * of the refunds booked before the day (returns naming the sale, plain returns applied to it), taken right after it, are each a mirror step of
 * their own, keyed by the marker of the points call it copies, as a delivery's changes are (state.ts):
 * a tick run twice, or one that died between the credit and the mirror, leaves the entry listed and the
 * next tick finds the step and goes on with it, so the till gains the points once. A refund after the
 * day is a transaction's delivery and mirrored there. The campaign bonuses granted with the credit follow
 * it the same way (bonus-changes.ts).
 */
export function dueEarnMirror(deps: TillMirrorDeps, ledger: DueLedger): AfterDueEarn {
  return async (order) => {
    if (order.source !== deps.source || !order.customerId) return 'done';
    const changes = await dueChanges(deps, ledger, order, order.customerId).catch((e: unknown) => {
      // A read that failed (the history, the ledger): the entry stays, the next tick reads again.
      deps.logger?.warn('till point mirror failed', {
        source: deps.source,
        orderId: order.orderId,
        errorKind: e instanceof Error ? e.name : 'unknown',
      });
      return undefined;
    });
    if (!changes) return 'retry';
    let through = true;
    for (const change of changes) {
      // An add in doubt or a step that could not finish: the entry stays, the next tick settles it.
      if (mirroredOutcome(await mirrorPointChange(deps, change)).action === 'retry') through = false;
    }
    return through ? 'done' : 'retry';
  };
}

/** The credit and the debits of its refunds before the day; undefined while the credit's size cannot be read yet. */
async function dueChanges(
  deps: TillMirrorDeps,
  ledger: DueLedger,
  order: OrderRecord,
  memberId: string,
): Promise<PointChange[] | undefined> {
  const marker = purchaseMarker(order.source, order.orderId);
  const credited = order.pointsCredited ?? (await creditInHistory(deps, memberId, marker, order));
  if (credited === undefined) return undefined;
  const changes: PointChange[] = [{ marker, memberId, points: credited }];
  for (const refundId of Object.keys(order.refundsBeforeEarn)) {
    const refund = await ledger.getRefund({ source: order.source, orderId: order.orderId, refundId });
    // Not finished yet: the tick runs it before this (an unfinished one keeps the entry listed). No record
    // at all (damaged by hand, as the processor's own note says): nothing it took to mirror.
    if (!refund) continue;
    if (refund.state !== 'done') return undefined;
    if (refund.pointsDebited && refund.customerId)
      changes.push({
        marker: refundMarker(order.source, order.orderId, refundId),
        memberId: refund.customerId,
        points: -refund.pointsDebited,
      });
  }
  // The campaigns' bonuses granted with the day's credit (and any share a refund took back), each its own step.
  changes.push(...(await bonusChanges(ledger, order.source, order.orderId, order)));
  return changes;
}

/**
 * The credit as the member's history shows it: the order holds only the balance's move (a hint, other
 * grants may have landed in between) when its attempt read no entry. Not found yet: undefined.
 */
async function creditInHistory(deps: TillMirrorDeps, memberId: string, marker: string, order: OrderRecord): Promise<number | undefined> {
  const since = Date.parse(order.finishedAt ?? order.updatedAt ?? '');
  const search = await searchHistory(deps.openapi, memberId, [marker], Number.isNaN(since) ? {} : { since: since - 86_400_000 });
  return search.found.get(marker)?.point;
}
