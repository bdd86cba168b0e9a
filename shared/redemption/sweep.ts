import { randomUUID } from 'node:crypto';
import type { RedemptionRecord } from '../ledger/index.js';
import { type CodeOrder, deactivateDiscountCode, discountByCode, ordersWithCode } from '../sources/shopify/index.js';
import { giveBack, type RedemptionDeps, retryParkedClawBack, settleDeduction } from './protocol.js';
import { drive } from './redeem.js';

/**
 * The sweep: a redemption whose code ended more than `graceSeconds` ago (a checkout that took it just
 * before its end has become an order by then) has its code deactivated at Shopify
 * (`discountCodeDeactivate`, so it can never be used after), then Shopify's orders naming the code are
 * read (`orders(query: "discount_code:…")`): an order of the code's customer, not cancelled, links the
 * code to it (`used`, or `reserved` while its payment is pending), never returned; otherwise the points
 * come back, exactly once. `asyncUsageCount` alone is not trusted: counted used with no order found yet,
 * the code waits for the next run. A redemption whose code was never made (its maker gave up) gives its
 * deduction back. A claw-back parked under `park` (its member held too few points) is tried again on
 * every run until it is taken, once. A redemption whose deduction was left in doubt is listed once its
 * horizon has passed (protocol.ts: writeInDoubt), so it ends even if nobody presses again: its deduction
 * found by a search, its code is made (kept until its end, as a press would); not found by a complete
 * search, it ends `failed` (`not_run`): nothing deducted, no code. Never sent again here. Under a till's
 * `tillPoints: membership`, each run also finishes the web legs' till mirror steps left open (finishMirrors).
 * Run on a schedule in AWS, every minute under `npm start`, and by `npm run redemptions -- sweep`.
 */

export interface SweepResult {
  due: number;
  returned: number;
  used: number;
  failed: number;
  /** Held by someone else or not finished (tried again next run). */
  later: number;
  /** Parked claw-backs tried again, and those taken by this run. */
  parked: number;
  clawedBack: number;
  /** Deductions left in doubt ended past their horizon: found (the code made), or never ran (counted in `failed` too). */
  madeAfterDoubt: number;
  notRun: number;
  /** Web legs' till mirror steps left open (a process died between a points call and its mirror), and those finished. */
  mirrorsOpen: number;
  mirrorsFinished: number;
}

/** The run's line; the parked claw-backs' figures only when there were some. */
export const sweepSummary = (r: SweepResult) =>
  `redemptions sweep: due=${r.due} returned=${r.returned} used=${r.used} failed=${r.failed} later=${r.later}` +
  (r.parked > 0 ? ` parked=${r.parked} clawed_back=${r.clawedBack}` : '') +
  (r.madeAfterDoubt + r.notRun > 0 ? ` in_doubt_made=${r.madeAfterDoubt} in_doubt_not_run=${r.notRun}` : '') +
  (r.mirrorsOpen > 0 ? ` till_mirrors_open=${r.mirrorsOpen} till_mirrors_finished=${r.mirrorsFinished}` : '');

export async function sweepRedemptions(deps: RedemptionDeps): Promise<SweepResult> {
  const result: SweepResult = {
    due: 0,
    returned: 0,
    used: 0,
    failed: 0,
    later: 0,
    parked: 0,
    clawedBack: 0,
    madeAfterDoubt: 0,
    notRun: 0,
    mirrorsOpen: 0,
    mirrorsFinished: 0,
  };
  const due = await deps.ledger.listDue(deps.source, new Date(deps.now() - deps.settings.graceSeconds * 1000).toISOString());
  for (const pk of due) {
    result.due += 1;
    const owner = randomUUID();
    const record = await deps.ledger.claim(pk, owner);
    if (!record) {
      result.later += 1;
      continue;
    }
    try {
      const codeLive = Date.parse(record.expiresAt) + deps.settings.graceSeconds * 1000 > deps.now();
      const end = codeLive ? await finishInDoubt(deps, record, owner) : await endOne(deps, record, owner);
      if (end === 'made') result.madeAfterDoubt += 1;
      else if (end === 'not_run') {
        result.notRun += 1;
        result.failed += 1;
      } else result[end] += 1;
    } catch (e) {
      deps.logger?.warn('redemption not swept', { source: deps.source, error: e instanceof Error ? e.name : 'unknown' });
      await deps.ledger.update(pk, owner, { lastError: e instanceof Error ? e.name : 'unknown' }, { release: true });
      result.later += 1;
    }
  }
  await retryParked(deps, result);
  await finishMirrors(deps, result);
  return result;
}

/**
 * The till mirror steps of web legs whose process died between the points call and the mirror (or whose
 * `till_mirror` message was lost), finished once each: the member's till record follows within a run,
 * whoever made the leg and whether or not anyone repeats it. Only with Smaregi access (tillPoints: membership).
 */
async function finishMirrors(deps: RedemptionDeps, result: SweepResult): Promise<void> {
  if (!deps.tillMirror?.finishOpen) return;
  try {
    const finished = await deps.tillMirror.finishOpen();
    result.mirrorsOpen = finished.open;
    result.mirrorsFinished = finished.finished;
  } catch (e) {
    // The list unreadable: the next run lists them again; the sweep's own work stands.
    deps.logger?.warn('till mirror steps not finished', { source: deps.source, error: e instanceof Error ? e.name : 'unknown' });
  }
}

/** Each parked claw-back, under its lease, tried again (retryParkedClawBack); one held elsewhere waits. */
async function retryParked(deps: RedemptionDeps, result: SweepResult): Promise<void> {
  for (const pk of await deps.ledger.listParked(deps.source)) {
    result.parked += 1;
    const owner = randomUUID();
    const record = await deps.ledger.claim(pk, owner);
    if (!record) continue;
    try {
      const taken = await retryParkedClawBack(deps, record, owner);
      if (taken.ok && (taken.record.clawedBackPoints ?? 0) > 0) result.clawedBack += 1;
    } catch (e) {
      deps.logger?.warn('parked claw-back not tried', { source: deps.source, error: e instanceof Error ? e.name : 'unknown' });
      await deps.ledger.update(pk, owner, { lastError: e instanceof Error ? e.name : 'unknown' }, { release: true });
    }
  }
}

/**
 * Listed before its code's end: a deduction left in doubt whose horizon has passed. Settled by a search
 * (never sent again): found, the code is made as a press would make it; absent, it ends not run. Anything
 * else (pressed again meanwhile, still in doubt) waits: a record no longer in doubt goes back under its
 * code's end.
 */
async function finishInDoubt(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<'made' | 'not_run' | 'later'> {
  if (record.state === 'pending' && !record.deducted && record.deductionSent) {
    const settled = await settleDeduction(deps, record, owner);
    if (settled.kind === 'not_run') return 'not_run';
    if (settled.kind !== 'deducted') return 'later';
    const made = await drive(deps, settled.record, owner);
    return made.ok ? 'made' : 'later';
  }
  if (record.state === 'pending' && record.deducted) return (await drive(deps, record, owner)).ok ? 'made' : 'later';
  await deps.ledger.update(record.pk, owner, {}, { release: true, dueAt: record.expiresAt });
  return 'later';
}

async function endOne(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<'returned' | 'used' | 'failed' | 'later'> {
  // The code, as Shopify has it (made by an attempt whose answer was lost, too).
  const node = await discountByCode(deps.shopify, record.code);
  // Ended first, so no order can take it between the search below and the giving back.
  if (node && node.codeDiscount.status !== 'EXPIRED') {
    const ended = await deactivateDiscountCode(deps.shopify, node.id);
    if (!ended.ok) {
      await deps.ledger.update(record.pk, owner, { lastError: `deactivate: ${ended.reason}` }, { release: true });
      return 'later';
    }
  }
  const orders = node ? await ordersWithCode(deps.shopify, record.code) : [];
  const own = orders.find((o) => ownOrder(record, o) && !o.cancelled);
  if (own) {
    await deps.ledger.linkOrder(deps.source, own.orderId, record.pk);
    await deps.ledger.update(record.pk, owner, { state: own.pending ? 'reserved' : 'used', orderId: own.orderId }, { release: true });
    return 'used';
  }
  if (node && (node.codeDiscount.asyncUsageCount ?? 0) > 0 && orders.length === 0) {
    // Counted used, yet no order found: Shopify's search lags; the next run looks again.
    await deps.ledger.update(record.pk, owner, { lastError: 'counted used by Shopify, no order found yet' }, { release: true });
    return 'later';
  }
  const made = record.state === 'redeemed' || node !== undefined;
  const back = await giveBack(
    deps,
    record,
    owner,
    made ? { state: 'returned', returnReason: 'expired' } : { state: 'failed', returnReason: 'code_unavailable' },
  );
  if (!back.ok) return 'later';
  return back.record.state === 'returned' ? 'returned' : 'failed';
}

/** An order of the code's own customer (a redacted customer's code is matched by code alone). */
const ownOrder = (record: RedemptionRecord, order: CodeOrder) =>
  record.customerId.startsWith('redacted-') || order.customerId === record.customerId;
