import type { ProcessOutcome, PurchaseEvent, RefundEvent } from '../../events/index.js';
import { type ChainLedger, type ChainOrder, purchaseMarker, refundMarker, runEarns } from '../../points/index.js';
import type { CanonicalRun } from '../resolution.js';
import { type BonusReader, bonusChanges } from './bonus-changes.js';
import type { PointChange } from './till-mirror.js';

/**
 * The points changes a till transaction made in the membership service, each to be mirrored to the
 * member's till record by its own marker (till-mirror.ts): credits, refunds' debits and the claw-backs of
 * a moved member, never the till spends and their give-backs (`<sale>/spend-<g>`, `.../back`) nor a staff
 * change (`<transaction>/staff`), which the till already made on its own record.
 */
const TILL_OWN = /\/(?:spend-\d+(?:\/back)?|staff)$/;

/** What the ledger recorded of a change that ran, read again when a delivery finds it done (a duplicate). */
export interface RecordedChanges extends ChainLedger, BonusReader {
  getOrder(ref: {
    source: string;
    orderId: string;
  }): Promise<(ChainOrder & { customerId?: string | undefined; campaigns?: readonly { id: string }[] | undefined }) | undefined>;
  getRefund(ref: {
    source: string;
    orderId: string;
    refundId: string;
  }): Promise<
    { state: string; outcome?: string | undefined; customerId?: string | undefined; pointsDebited?: number | undefined } | undefined
  >;
}

/** Where the changes are noted, and what decides whether a credit's bonuses are read. */
export interface NotedChanges {
  /** The changes to mirror to the member's till record. */
  changes: PointChange[];
  /** The till's own changes (spends, give-backs, staff), for the settle of a mirror add in doubt. */
  tills?: PointChange[] | undefined;
  /** The stage's campaign rules (ResolveDeps.campaigns); undefined: not known, the order is read. */
  campaigns?: readonly unknown[] | undefined;
}

/** Outcomes whose record says points moved (a duplicate of them is mirrored from the record). */
const MOVED = new Set(['credited', 'debited', 'insufficient_points']);

/**
 * The runs, noting each change that ran (an answer proving it: credited, debited, clamped) into `changes`.
 * A change found done (`duplicate`) is noted too, from its ledger record: an attempt that died after
 * the points call but before its mirror step was written left the mirror owed, and only a redelivery
 * sees it; the step's own record (keyed by the same marker) keeps it exactly once.
 */
export function notingChanges(run: CanonicalRun, ledger: RecordedChanges, noted: NotedChanges): CanonicalRun {
  const { changes, tills = [] } = noted;
  // A credit of this message took its campaigns from the stage's (bonus.ts): none there, no bonus to read for it.
  const creditsBonuses = noted.campaigns === undefined || noted.campaigns.length > 0;
  const purchase = async (event: PurchaseEvent) => {
    const outcome = await run.purchase(event);
    if (TILL_OWN.test(event.orderId)) {
      await noteTillOwn(ledger, event, outcome, tills);
      return outcome;
    }
    if (outcome.kind === 'duplicate' && outcome.previous === 'credited') {
      // The order read for the credit serves the bonuses too (its campaigns, kept whatever the stage's are now).
      const order = await noteRecordedPurchase(ledger, event, changes);
      await noteBonuses(ledger, event, changes, order ?? {});
      return outcome;
    }
    notePurchase(event, outcome, changes);
    if ((outcome.kind === 'credited' && creditsBonuses) || outcome.kind === 'duplicate') await noteBonuses(ledger, event, changes);
    return outcome;
  };
  const refund = async (event: RefundEvent) => {
    const outcome = await run.refund(event);
    const taken = debitOf(outcome);
    if (taken && 'customerId' in outcome)
      changes.push({ marker: refundMarker(event.source, event.orderId, event.refundId), memberId: outcome.customerId, points: -taken });
    else if (outcome.kind === 'duplicate' && MOVED.has(outcome.previous)) await noteRecordedRefund(ledger, event, changes);
    // Read whatever the stage's campaigns are now: the order keeps the rules it was credited under (docs/campaigns.md).
    if (outcome.action === 'ack') await noteBonuses(ledger, event, changes);
    return outcome;
  };
  return { purchase, refund, earns: (event) => runEarns(event, ledger, { purchase, refund }), members: run.members };
}

/**
 * The till's own change (a spend, its give-back, a staff change), noted into `tills` with the points the
 * till moved on its record (the event's fixed grant), once it ran or is found done: the settle of a mirror
 * add in doubt counts it (till-window.ts). Never mirrored: the till made it on its own record.
 */
async function noteTillOwn(ledger: RecordedChanges, event: PurchaseEvent, outcome: ProcessOutcome, tills: PointChange[]): Promise<void> {
  if (!event.fixedPoints || !MOVED_OR_DONE.has(outcome.kind)) return;
  const memberId =
    'customerId' in outcome && typeof outcome.customerId === 'string'
      ? outcome.customerId
      : (await ledger.getOrder({ source: event.source, orderId: event.orderId }))?.customerId;
  if (memberId) tills.push({ marker: purchaseMarker(event.source, event.orderId), memberId, points: event.fixedPoints });
}

const MOVED_OR_DONE = new Set<string>([...MOVED, 'duplicate']);

/**
 * The order's campaign bonuses and their take-backs (bonus-changes.ts), after the change they follow:
 * all of them, from their records, as a redelivery after a crash must find what is owed; a marker noted
 * already in this message is not noted twice.
 */
async function noteBonuses(
  ledger: RecordedChanges,
  event: { source: string; orderId: string },
  changes: PointChange[],
  known?: { campaigns?: readonly { id: string }[] | undefined },
): Promise<void> {
  for (const change of await bonusChanges(ledger, event.source, event.orderId, known)) {
    if (!changes.some((c) => c.marker === change.marker)) changes.push(change);
  }
}

/** The credit from the order's record; the order read, for its campaigns. */
async function noteRecordedPurchase(ledger: RecordedChanges, event: PurchaseEvent, changes: PointChange[]) {
  const order = await ledger.getOrder({ source: event.source, orderId: event.orderId });
  const points = order?.pointsCredited ?? order?.pointsHint;
  if (order?.outcome === 'credited' && order.customerId && points)
    changes.push({ marker: purchaseMarker(event.source, event.orderId), memberId: order.customerId, points });
  return order;
}

async function noteRecordedRefund(ledger: RecordedChanges, event: RefundEvent, changes: PointChange[]): Promise<void> {
  const record = await ledger.getRefund({ source: event.source, orderId: event.orderId, refundId: event.refundId });
  if (!record?.outcome || !MOVED.has(record.outcome) || !record.customerId || !record.pointsDebited) return;
  changes.push({
    marker: refundMarker(event.source, event.orderId, event.refundId),
    memberId: record.customerId,
    points: -record.pointsDebited,
  });
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
