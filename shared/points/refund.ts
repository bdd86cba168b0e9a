import { randomUUID } from 'node:crypto';
import {
  type AppliedRefund,
  leaseSendWindow,
  type OrderRecord,
  type OrderRef,
  type RefundRef,
  type ReleaseOrderOptions,
} from '../ledger/index.js';
import { CLOSED_SEND_WINDOW, type OpenApiError, type PointItem, type SendWindow } from '../openapi/index.js';
import { type RefundShare, refundShare } from './debit.js';
import { bookOf, type Hold, holdOf } from './refund-hold.js';
import type { Checkpoint, ProcessorDeps } from './deps.js';
import type { RefundEvent } from '../events/index.js';
import { asOpenApiError, inDoubtOutcome, leaseLost, transientOutcome } from './failures.js';
import { act, creditNotVisibleUntil, type Doubt, doubtOf, type OperationResult, searchHistory } from './engine/index.js';
import { engineOf } from './engine-deps.js';
import { awaitsCustomer, awaitsLink } from './late-customer.js';
import { settleBonuses } from './bonus.js';
import { purchaseMarker, refundMarker } from './markers.js';
import type { ProcessOutcome } from '../events/index.js';
import {
  type RefundEnd,
  beforeEarnEnd,
  bookable,
  bookedEnd,
  definitiveEnd,
  isBeforeEarnParked,
  parkedEnd,
  skippedEnd,
  storedEvent,
} from './refund-results.js';
import { refundWaitMs } from './refund-wait.js';
import { beforeEarnShare } from './provisional.js';
import { earnedSinceParked } from './before-earn.js';
import { unfinishedSiblings } from './siblings.js';
import { cancelOverDoubt } from './inherited-doubt.js';

/** A step either ends the attempt with `end` or hands its result on to the next step. */
type Step<T> = { end: ProcessOutcome } | (T & { end?: undefined });
/** The debit done; `reconciled` when its amount was read from the history (its answer was lost). */
type Debit = Step<{ share: RefundShare; debited: number; reconciled?: true }>;

/**
 * Processes one refund, in the steps `RefundAttempt.run` takes in this order:
 * 1. claim the refund record (dedup, and a lease on it);
 * 2. await the purchase: bounded, then parked and left listed on the order for the purchase to pick up;
 * 3. take the ORDER's lease, so that two refunds of one order never compute from the same base;
 * 4. reconcile the refunds in doubt: book what earlier holders of the order's lease may have debited;
 * 5. debit this refund's share: one negative grant carrying its marker;
 * 6. book it on the order (once: conditional on the refund id);
 * 7. finish the refund record.
 * A crash between booking and finishing is repaired by the next attempt, which finds the refund booked.
 */
export async function processRefund(deps: ProcessorDeps, event: RefundEvent, sharesPurchaseGroup = false): Promise<ProcessOutcome> {
  const attempt = new RefundAttempt(deps, event, sharesPurchaseGroup);
  const outcome = await attempt.run();
  // Parked for a moment that came meanwhile (before-earn.ts): it debits now (once: the order stays credited).
  if (attempt.parkedBeforeEarn && (await earnedSinceParked(deps.ledger, event))) return processRefund(deps, event, sharesPurchaseGroup);
  if (!BOOKED.has(outcome.kind)) return outcome;
  // The campaigns' bonuses take their share back (bonus.ts): also on a redelivery, which finishes what a crash left.
  // The order as this attempt booked it, or read (a duplicate): the one read more a refund costs.
  const order = attempt.booked ?? (await deps.ledger.getOrder({ source: event.source, orderId: event.orderId }));
  if (!order?.campaigns?.length) return outcome;
  const bonuses = await settleBonuses(deps, order);
  return bonuses.ok ? outcome : bonuses.outcome;
}

/** Refund outcomes after which the refund is booked on its order (its bonus share is then due). */
const BOOKED: ReadonlySet<string> = new Set(['debited', 'insufficient_points', 'duplicate']);

/** One attempt at one refund: its own lease owner, and the steps above as methods. */
class RefundAttempt {
  private readonly owner = randomUUID();
  private readonly orderRef: OrderRef;
  private readonly ref: RefundRef;
  private readonly checkpoint: Checkpoint;
  /**
   * Listed on the order as waiting for its purchase: it stays listed until its record is finished, so
   * the purchase's redelivery can still run it (a parked refund has no message of its own any more).
   */
  private listed = false;
  /**
   * The time left to send the debit: from the refund's own claim, the earlier of its two leases (the
   * order's is taken after it), so the debit ends clear of both.
   */
  private window: SendWindow = CLOSED_SEND_WINDOW;
  /** What earlier holders of the order's lease left in doubt (set when this attempt takes the order). */
  private doubt: Doubt | undefined;
  /** This refund was in the order's doubt before its claim (an earlier attempt of it held the order's lease). */
  private wasInDoubt = false;
  /** The order as this attempt last booked it (its campaign bonuses' claw-backs follow from it). */
  booked: OrderRecord | undefined;
  /** This attempt parked the refund for the order's moment (before-earn.ts: looked at again). */
  parkedBeforeEarn = false;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly event: RefundEvent,
    private readonly sharesPurchaseGroup: boolean,
  ) {
    this.orderRef = { source: event.source, orderId: event.orderId };
    this.ref = { ...this.orderRef, refundId: event.refundId };
    this.checkpoint = deps.checkpoint ?? (() => undefined);
  }

  async run(): Promise<ProcessOutcome> {
    const claimed = await this.claim();
    if (claimed.end) return claimed.end;
    const taken = await this.takeOrder(claimed.firstSeenAt);
    if (taken.end) return taken.end;
    await this.checkpoint('refund:order-claimed');
    const reconciled = await this.reconcile(taken.order);
    if (reconciled.end) return reconciled.end;
    const { hold } = reconciled;
    const debit = await this.debit(hold);
    if (debit.end) return debit.end;
    await this.checkpoint('refund:granted');
    const applied: AppliedRefund = {
      ...bookable(debit.share),
      debited: debit.debited,
      ...(debit.reconciled ? { reconciled: true } : {}),
      at: this.now(),
    };
    return this.bookAndFinish(hold, applied);
  }

  /** Step 1: the refund record's lease; hands on when the refund was first seen (its wait starts then). */
  private async claim(): Promise<Step<{ firstSeenAt: number }>> {
    const { ledger, clock } = this.deps;
    this.window = leaseSendWindow(clock, ledger.leaseMs);
    const claim = await ledger.claimRefund(this.ref, this.owner, JSON.stringify(this.event));
    if (!claim.ok) {
      if (claim.current?.state === 'done') {
        return { end: { kind: 'duplicate', action: 'ack', previous: claim.current.outcome ?? 'unknown' } };
      }
      const until = claim.current?.leaseUntil;
      return { end: { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the refund', ...(until ? { until } : {}) } };
    }
    await this.checkpoint('refund:claimed');
    if (this.event.unlinked) {
      // Money given back for no sale of ours (the sender said `unlinked`): nothing to debit, recorded with why.
      const { result, outcome } = skippedEnd('unlinked_refund', 'the sender links this refund to no payment');
      await ledger.finishRefund(this.ref, this.owner, result);
      return { end: outcome };
    }
    return { firstSeenAt: claim.previous?.firstSeenAt ? Date.parse(claim.previous.firstSeenAt) : clock() };
  }

  /** Steps 2 and 3: the credited order, leased to this refund (a few rounds: the order may change under us). */
  private async takeOrder(firstSeenAt: number): Promise<Step<{ order: OrderRecord }>> {
    const { ledger, clock } = this.deps;
    for (let round = 0; round < 3; round++) {
      const order = this.note(await ledger.getOrder(this.orderRef));
      // An order whose customer is not linked yet may still be credited: its refunds wait for that too.
      if (order?.state !== 'done' || awaitsCustomer(order, clock()) || awaitsLink(order)) {
        if (!(await ledger.registerWaitingRefund(this.ref))) continue; // the purchase finished meanwhile
        return { end: await this.awaitPurchase(firstSeenAt) };
      }
      const booked = order.refunds[this.event.refundId];
      if (booked) return { end: await this.finishFromBook(order, booked) };
      // Before the order earned its provisional points: the refund reduces them, and nothing is debited
      // yet. Once the order is credited, a refund booked before the moment debits its share like any other.
      const beforeEarn = order.refundsBeforeEarn[this.event.refundId];
      if (beforeEarn && order.outcome !== 'credited') return { end: await this.finish(beforeEarnEnd(order, beforeEarn.amount)) };
      if (order.outcome === 'pending_earn') {
        const share = beforeEarnShare(order, this.event);
        const waits = share.nothingLeft ? cancelOverDoubt(order, engineOf(this.deps).horizon, clock()) : undefined;
        if (waits) return { end: await this.retryLater(waits) }; // inherited-doubt.ts
        const booked = await ledger.bookBeforeEarn(this.orderRef, share);
        if (!booked) continue; // earned meanwhile, or booked by another attempt
        await this.checkpoint('refund:applied');
        return { end: await this.finish(beforeEarnEnd(booked, share.amount)) };
      }
      if (order.outcome !== 'credited') {
        return { end: await this.finish(skippedEnd('order_not_credited', order.outcome ?? 'unknown')) };
      }
      const claim = await ledger.claimOrderForRefund(this.ref, this.owner);
      if (claim.ok) {
        if (claim.previous) return { order: this.note(claim.previous) };
        break;
      }
      const current = this.note(claim.current);
      const bookedNow = current?.refunds[this.event.refundId];
      if (current && bookedNow) return { end: await this.finishFromBook(current, bookedNow) };
      if (current?.leaseUntil !== undefined && current.leaseUntil >= clock()) {
        const held = { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the order', until: current.leaseUntil } as const;
        return { end: await this.retryLater(held) };
      }
    }
    return { end: await this.retryLater({ kind: 'lease_held', action: 'retry', reason: 'the order kept changing' }) };
  }

  /** Step 2, the purchase not credited yet (the refund is listed on the order): wait, retried, or park. */
  private async awaitPurchase(firstSeenAt: number): Promise<ProcessOutcome> {
    const { ledger, settings, clock } = this.deps;
    const waitMs = refundWaitMs(settings, this.sharesPurchaseGroup);
    if (clock() - firstSeenAt < waitMs) {
      const reason = 'the purchase is not credited yet';
      await ledger.releaseRefund(this.ref, this.owner, { state: 'waiting', lastError: reason });
      return { kind: 'refund_waiting', action: 'retry', reason, until: firstSeenAt + waitMs };
    }
    // Parked, and still listed on the order: the purchase processes it when it is credited.
    const reason = this.sharesPurchaseGroup
      ? 'the purchase is not credited yet (queued behind this refund: parked for it)'
      : `the purchase was not credited within ${settings.refundWaitSeconds} s`;
    return this.finish({
      result: { state: 'parked', outcome: 'refund_parked', reason },
      outcome: { kind: 'refund_parked', action: 'ack', reason },
    });
  }

  /**
   * Step 4. Refunds in doubt took the order's lease before and never booked a debit: they died or lost
   * their answer, so their debit may have run. Look for their markers (and, once per order, for the
   * purchase's, to learn the exact credit) in a complete search of the history of the member their calls
   * went to, and book the debits found. One not found is proven never run only once the in-doubt horizon
   * has passed (shared/points/engine): before that the refund waits, and nothing of the order is sent.
   */
  private async reconcile(claimed: OrderRecord): Promise<Step<{ hold: Hold }>> {
    const customerId = claimed.customerId ?? '';
    const engine = engineOf(this.deps);
    this.doubt = doubtOf(claimed, engine.horizon);
    this.wasInDoubt = claimed.refundsInDoubt.includes(this.event.refundId);
    const inDoubt = claimed.refundsInDoubt.filter((id) => !claimed.refunds[id]);
    const creditMarker = purchaseMarker(this.event.source, this.event.orderId);
    const wantCredit = !claimed.pointsExact;
    const markers = [...(wantCredit ? [creditMarker] : []), ...inDoubt.map((id) => this.debitMarker(id))];
    let found = new Map<string, PointItem>();
    let complete = true;
    if (markers.length > 0) {
      const createdAt = claimed.createdAt ? Date.parse(claimed.createdAt) : undefined;
      const since = Math.min(this.doubt?.since ?? Number.POSITIVE_INFINITY, wantCredit ? (createdAt ?? 0) : Number.POSITIVE_INFINITY);
      try {
        const search = await searchHistory(engine.api, this.doubt?.memberId ?? customerId, markers, {
          since: Number.isFinite(since) ? since : undefined,
        });
        found = search.found;
        complete = search.complete;
      } catch (e) {
        return { end: await this.failed(asOpenApiError(e), customerId, false) };
      }
    }
    const exactCredit = found.get(creditMarker)?.point;
    const unresolved = inDoubt.filter((id) => !found.has(this.debitMarker(id)));
    const settled = this.doubt === undefined || (complete && engine.clock() >= this.doubt.until);
    if (unresolved.length > 0 && !settled) {
      // Book what was found first (it ran); what was not may still land: wait for the horizon.
      const hold = holdOf(claimed, customerId, exactCredit, []);
      const ended = await this.bookFound(
        hold,
        inDoubt.filter((id) => id !== this.event.refundId),
        found,
        true,
      );
      if (ended) return { end: ended };
      return { end: await this.waitForHorizon(complete ? 'in_doubt' : 'search_incomplete', claimed) };
    }
    // The credit's own entry not visible yet: until it is due (the engine's rule), the balance difference does not stand in for it.
    if (wantCredit && exactCredit === undefined) {
      const visibleBy = creditNotVisibleUntil(claimed.finishedAt, engine.horizon, engine.clock());
      if (visibleBy !== undefined) return { end: await this.waitForHorizon('credit_not_visible', claimed, visibleBy) };
      this.deps.logger?.warn('credit entry not found in the point history; using the balance difference', this.orderRef);
    }
    // A sibling not found may still land beyond the horizon: its share first (siblings.ts).
    const self = { refundId: this.event.refundId, wasInDoubt: this.wasInDoubt };
    const sibling = await unfinishedSiblings(this.deps.ledger, this.orderRef, self, unresolved, claimed.refundsSent);
    if (sibling) {
      const ended = await this.bookFound(holdOf(claimed, customerId, exactCredit, []), inDoubt, found, true);
      if (ended) return { end: ended };
      await this.checkpoint('refund:sibling-wait');
      return { end: await this.waitForHorizon('sibling_in_doubt', claimed, sibling.until ?? engine.clock()) };
    }
    // Proven by the settled search: these never debited (and never will). Not this refund: it is about
    // to debit, and stays in doubt until that is booked or proven not to have run.
    const hold = holdOf(
      claimed,
      customerId,
      exactCredit,
      unresolved.filter((id) => id !== this.event.refundId),
    );
    this.doubt = undefined;
    const ended = await this.bookFound(hold, inDoubt, found);
    return ended ? { end: ended } : { hold };
  }

  /**
   * A call of the order may still land: the order is given back with its doubt kept (this refund, if it
   * only joined the refunds in doubt by this claim, sent nothing: it leaves them), and waits for the horizon.
   */
  private async waitForHorizon(why: string, claimed: OrderRecord, until?: number): Promise<ProcessOutcome> {
    const doubt = this.doubt;
    const joinedNow = !claimed.refundsInDoubt.includes(this.event.refundId);
    const reason =
      why === 'credit_not_visible'
        ? 'the credit is not in the point history yet (a history behind the service)'
        : why === 'sibling_in_doubt'
          ? 'another refund of this order is unfinished and its debit may still land: this share follows it'
          : `a points call of this order may still land (${why})`;
    const kept = doubt ? { needsReconcile: true, inDoubt: doubt } : {};
    await this.releaseOrder(reason, { ...kept, notDebited: joinedNow });
    await this.checkpoint('refund:order-given-back');
    return this.retryLater(inDoubtOutcome(why, reason, until ?? (doubt as Doubt).until));
  }

  /**
   * Books the debits found: other refunds' first (this one then computes from the right base), this
   * one's last (then it is done). Each ran from the base it is booked on: nobody debits before the
   * refunds in doubt are resolved.
   */
  private async bookFound(
    hold: Hold,
    inDoubt: string[],
    found: Map<string, PointItem>,
    othersOnly = false,
  ): Promise<ProcessOutcome | undefined> {
    const mineLast = [...inDoubt].sort((a, b) => Number(a === this.event.refundId) - Number(b === this.event.refundId));
    for (const refundId of mineLast) {
      const entry = found.get(this.debitMarker(refundId));
      if (!entry) continue;
      const mine = refundId === this.event.refundId;
      const event = mine ? this.event : storedEvent(await this.deps.ledger.getRefund({ ...this.orderRef, refundId }));
      // Unreadable only if damaged by hand: it stays in doubt, and its own retry books it.
      if (!event) continue;
      const applied = { ...bookable(refundShare(bookOf(hold), event)), debited: -entry.point, reconciled: true, at: this.now() };
      if (mine && !othersOnly) return this.bookAndFinish(hold, applied);
      if (!(await this.book(hold, refundId, applied, true))) return leaseLost();
    }
    return undefined;
  }

  /** Step 5: one negative grant of this refund's share, carrying its marker (through the engine). */
  private async debit(hold: Hold): Promise<Debit> {
    const share = refundShare(bookOf(hold), this.event);
    if (share.target <= 0) return { share, debited: share.target };
    const result = await this.grant(hold.customerId, share.target);
    if (result.kind === 'ran') return this.ran(result, share, share.target);
    if (result.kind === 'in_doubt') return { end: await this.leftInDoubt(result) };
    const err = result.error;
    if (err.kind !== 'insufficient_points') return { end: await this.failed(err, hold.customerId, true) };
    if (this.deps.settings.insufficientPointsPolicy === 'park') {
      await this.releaseOrder(err.message, { notDebited: true });
      return { end: await this.finish(parkedEnd(hold.customerId, share.target, err.message)) };
    }
    return this.clamp(hold.customerId, share);
  }

  /** The clamp policy: debit what the customer holds (may be nothing); booking records the shortfall. */
  private async clamp(customerId: string, share: RefundShare): Promise<Debit> {
    let held: number;
    try {
      held = Math.max(0, (await this.deps.openapi.getMember(customerId)).point);
    } catch (e) {
      return { end: await this.failed(asOpenApiError(e), customerId, true) };
    }
    const debited = Math.min(held, share.target);
    if (debited <= 0) return { share, debited };
    const result = await this.grant(customerId, debited);
    if (result.kind === 'ran') return this.ran(result, share, debited);
    if (result.kind === 'in_doubt') return { end: await this.leftInDoubt(result) };
    // Includes insufficient_points again (the balance moved between the read and the debit): nothing ran.
    return { end: await this.failed(result.error, customerId, true) };
  }

  /** Ran: by the answer (what was asked), or found in the history right after an unknown ending (its entry). */
  private ran(result: Extract<OperationResult, { kind: 'ran' }>, share: RefundShare, asked: number): Debit {
    if (result.entry) return { share, debited: -result.entry.point, reconciled: true };
    return { share, debited: asked };
  }

  /** The debit may still land: the order is given back with its doubt recorded; nothing of it is sent before the horizon. */
  private async leftInDoubt(result: Extract<OperationResult, { kind: 'in_doubt' }>): Promise<ProcessOutcome> {
    const reason = result.error?.message ?? `the debit may still land (${result.why})`;
    await this.releaseOrder(reason, { needsReconcile: true, inDoubt: result.doubt, sent: true });
    return this.retryLater(inDoubtOutcome(result.error?.kind ?? result.why, reason, result.doubt.until));
  }

  private async grant(customerId: string, points: number): Promise<OperationResult> {
    const title = this.event.pointTitle ? { title: this.event.pointTitle } : {};
    return act(
      engineOf(this.deps),
      {
        marker: this.debitMarker(this.event.refundId),
        call: { kind: 'grant', memberId: customerId, input: { point: -points, ...title } },
        window: this.window,
      },
      this.doubt,
    );
  }

  /** Steps 6 and 7: this refund's debit booked on the order, then its record finished. */
  private async bookAndFinish(hold: Hold, applied: AppliedRefund): Promise<ProcessOutcome> {
    const next = await this.book(hold, this.event.refundId, applied, false);
    if (!next) return leaseLost();
    await this.checkpoint('refund:applied');
    return this.finishFromBook(next, applied);
  }

  /** Books a debit on the order, with what the history search learned (written once). keepLease: more to do. */
  private async book(hold: Hold, refundId: string, applied: AppliedRefund, keepLease: boolean): Promise<OrderRecord | undefined> {
    const next = await this.deps.ledger.applyRefund(this.orderRef, this.owner, {
      refundId,
      applied,
      refundedSoFar: applied.refundedAfter,
      refundedExact: applied.exactRefundedAfter ?? null,
      debitTarget: hold.order.debitTarget + applied.target,
      debited: hold.order.debited + applied.debited,
      pointsCredited: hold.newlyExact,
      keepLease,
      notDebited: hold.notDebited,
    });
    hold.newlyExact = undefined;
    hold.notDebited = undefined;
    if (next) hold.order = next;
    if (next) this.booked = next;
    return next;
  }

  /**
   * Ends the attempt after a failed call. atDebit: the call was this refund's debit, so an answer proves
   * it did not run (the search before it cleared earlier attempts) and a lost answer leaves it in doubt.
   */
  private async failed(err: OpenApiError, customerId: string, atDebit: boolean): Promise<ProcessOutcome> {
    const definitive = definitiveEnd(customerId, err);
    // This attempt sent nothing that may land: a refund new to the order's doubt leaves it (siblings.ts).
    await this.releaseOrder(err.message, { notDebited: (definitive !== undefined && atDebit) || !this.wasInDoubt });
    return definitive ? this.finish(definitive) : this.retryLater(transientOutcome(err));
  }

  private releaseOrder(lastError: string, opts: Omit<ReleaseOrderOptions, 'lastError' | 'refundId'> = {}) {
    // A doubt the attempt found and did not settle stays recorded for whoever takes the order next.
    const doubt = this.doubt && !opts.inDoubt ? { needsReconcile: true, inDoubt: this.doubt } : {};
    return this.deps.ledger.releaseOrder(this.orderRef, this.owner, { lastError, refundId: this.event.refundId, ...doubt, ...opts });
  }

  /** Step 7: the refund record finished (and taken off the order's waiting list once final). */
  private async finish({ result, outcome }: RefundEnd): Promise<ProcessOutcome> {
    const finished = await this.deps.ledger.finishRefund(this.ref, this.owner, result);
    // Parked for its purchase (or for the moment of a provisional order): it stays listed, the credit runs it.
    const waits = result.outcome === 'refund_parked' || isBeforeEarnParked(result);
    this.parkedBeforeEarn = finished !== undefined && isBeforeEarnParked(result);
    if (finished && this.listed && !waits) await this.deps.ledger.forgetWaitingRefund(this.ref);
    await this.checkpoint('refund:recorded');
    return outcome;
  }

  /** The refund is booked on the order (by this attempt, or an earlier one that did not finish): finish from the book. */
  private finishFromBook(order: OrderRecord, applied: AppliedRefund): Promise<ProcessOutcome> {
    return this.finish(bookedEnd(order.customerId ?? '', applied));
  }

  private async retryLater<T extends Extract<ProcessOutcome, { action: 'retry' }>>(outcome: T): Promise<T> {
    await this.deps.ledger.releaseRefund(this.ref, this.owner, { state: 'pending', lastError: outcome.reason });
    return outcome;
  }

  /** Notes whether the refund is listed on the order as waiting for its purchase. */
  private note<T extends OrderRecord | undefined>(order: T): T {
    if (order?.waitingRefunds.includes(this.event.refundId)) this.listed = true;
    return order;
  }

  private debitMarker(refundId: string): string {
    return refundMarker(this.event.source, this.event.orderId, refundId);
  }

  private now(): string {
    return new Date(this.deps.clock()).toISOString();
  }
}
