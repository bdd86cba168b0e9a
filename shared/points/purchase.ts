import { randomUUID } from 'node:crypto';
import { type FoundMember, leaseSendWindow, type OrderRef, type PurchaseClaimInput, type PurchaseResult } from '../ledger/index.js';
import { CLOSED_SEND_WINDOW, type OpenApiError, type PointItem, type SendWindow } from '../openapi/index.js';
import type { Checkpoint, ProcessorDeps } from './deps.js';
import type { CustomerRef, PurchaseEvent } from '../events/index.js';
import { asOpenApiError, inDoubtOutcome, isUnrecognisedRefusal, leaseLost, rejectedOutcome, transientOutcome } from './failures.js';
import { callFollows, type Looked, memberLookup } from './member-first.js';
import { noteAnswer } from './member-memo.js';
import { checkDoubt, type Doubt, doubtOf, type OperationResult, type PointsCall, runOperation } from './engine/index.js';
import { engineOf } from './engine-deps.js';
import { awaitsCustomer, awaitsLink, unlinkedFacts } from './late-customer.js';
import { settleBonuses } from './bonus.js';
import { laterInChain } from './chain.js';
import { doubtOnFinish } from './inherited-doubt.js';
import { skipPurchase } from './purchase-skip.js';
import { purchaseMarker } from './markers.js';
import { earnBaseOf, endWithoutMember, provisionalFacts, provisionalWhen, reopensForEarn, reviseProvisional } from './provisional.js';
import { dueForWaitingRefunds } from './before-earn.js';
import type { ProcessOutcome } from '../events/index.js';
import {
  alreadyDone,
  campaignsFor,
  creditedUnread,
  expiryDate,
  type PurchaseOptions,
  type PurchaseProcessed,
  skipReason,
} from './purchase-parts.js';

export { expiryDate, type PurchaseOptions, type PurchaseProcessed } from './purchase-parts.js';

/** A step either ends the attempt with `end` or hands its result on to the next step. */
type Step<T> = { end: PurchaseProcessed } | (T & { end?: undefined });

/**
 * Processes one purchase, in the steps `PurchaseAttempt.run` takes in this order: claim the order ->
 * look the customer up -> (reconcile, only after an unknown outcome or a takeover) -> one points
 * calculation carrying the order's marker -> record. Steady state: 2 calls, 2 writes. The credited
 * figure recorded is the balance difference (a hint); the exact figure is read from the history entry
 * with the marker the first time a refund needs it. Nothing to credit: one write records why.
 */
export async function processPurchase(
  deps: ProcessorDeps,
  event: PurchaseEvent,
  options: PurchaseOptions = {},
): Promise<PurchaseProcessed> {
  const processed = await new PurchaseAttempt(deps, event, options).run();
  const { order } = processed;
  // The campaigns' bonuses after the credit (each its own call, once): also on a redelivery, which
  // finishes what a crash between the credit and a bonus left. An order without campaigns reads nothing.
  if (!order?.campaigns?.length || order.outcome !== 'credited') return processed;
  const bonuses = await settleBonuses(deps, order);
  return bonuses.ok ? processed : { ...processed, outcome: bonuses.outcome };
}

class PurchaseAttempt {
  private readonly owner = randomUUID();
  /** Re-opened for its linked customer with refunds already waiting (parked) for it: see finish(). */
  private keepFindable = false;
  /** The time the order's lease leaves to send the points call (set at the claim). */
  private window: SendWindow = CLOSED_SEND_WINDOW;
  /** What an earlier attempt left in doubt (set at the claim; cleared once a complete search settles it). */
  private doubt: Doubt | undefined;
  /** A search settled that doubt (found its call, or proved it absent past the horizon): a finish may drop it. */
  private settled = false;
  /** The moment of a provisional order came: what it earns on (its amount as paid less the refunds before). */
  private earnOn: { amount: number; exact: string | undefined } | undefined;
  /** The member's rank, when looked up (campaigns may be limited to ranks). */
  private rank: string | undefined;
  /**
   * The member this order's calls go to: found by this attempt's lookup, or kept on the order by an
   * earlier attempt's release (then `kept`: no lookup, unless the service no longer knows that member).
   */
  private found: FoundMember | undefined;
  private kept = false;
  /** Looked up before the claim (member-first.ts), for the claim to write; taken by the first lookUp. */
  private looked: Looked | undefined;
  /** The member the order names (`foundMember`): every call goes to it, so a dead attempt's successor knows whom to search. */
  private recorded: string | undefined;
  private readonly lookMember: (customer: CustomerRef) => Promise<Looked>;
  /** `found.point` read by this attempt's message (its lookup, the memo's last answer): only then is its move a hint. */
  private balanceRead = false;
  private readonly ref: OrderRef;
  private readonly marker: string;
  private readonly checkpoint: Checkpoint;
  /** What the event says of the order, recorded with any result. */
  private readonly facts: Omit<PurchaseClaimInput, keyof OrderRef | 'owner'>;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly event: PurchaseEvent,
    private readonly options: PurchaseOptions = {},
  ) {
    this.ref = { source: event.source, orderId: event.orderId };
    this.marker = purchaseMarker(event.source, event.orderId);
    this.checkpoint = deps.checkpoint ?? (() => undefined);
    this.lookMember = memberLookup(deps, options.members);
    this.facts = {
      eligibleAmount: event.eligibleAmount,
      eligibleExact: event.eligibleExact,
      terms: event.terms,
      currency: event.currency,
      externalKey: event.customer?.externalKey,
      externalId: event.customer?.externalId,
      shopDomain: event.delivery.shopDomain,
      store: event.store,
    };
  }

  async run(): Promise<PurchaseProcessed> {
    const skip = skipReason(this.event);
    const customer = this.event.customer;
    if (skip || !customer) {
      // The member taken off a sale that is still provisional: nobody earns it (revised, not skipped).
      const order = (skip && skip !== 'no_customer') || !this.event.earnAfter ? undefined : await this.deps.ledger.getOrder(this.ref);
      const revised = await reviseProvisional(this.deps, this.event, order);
      return (
        revised ??
        (await endWithoutMember(this.deps, this.event, order)) ??
        skipPurchase(this.deps, this.event, this.facts, skip ?? 'no_customer')
      );
    }
    const order = await this.deps.ledger.getOrder(this.ref);
    if (callFollows(order, this.event, this.deps.clock(), this.options.customerLinked === true)) {
      this.looked = await this.lookMember(customer);
    }
    const claimed = await this.claim();
    if (claimed.end) return claimed.end;
    if (this.earnOn?.amount === 0) return this.finish({ outcome: 'not_earned' }, { kind: 'not_earned', action: 'ack' });
    const when = this.earnOn ? undefined : provisionalWhen(this.event, this.deps.clock());
    if (when) return this.pend(customer, when);
    // Credited for a customer just linked, but its sale moved on while it waited (chain.ts): no credit.
    // Not with a doubt: a call of an earlier attempt may have landed, and is settled as usual.
    if (this.options.customerLinked && !this.doubt) {
      const moved = await this.movedOn();
      if (moved) return moved;
    }
    // A call in doubt whose member is known is settled before anything else: found, the order is done
    // with that member, whoever a lookup would find now (a re-link between attempts).
    const known = this.doubt?.memberId;
    if (known) {
      const settled = await this.settleDoubt(known);
      if (settled) return settled;
    }
    return this.call(customer);
  }

  /** The points call for the member found (kept from an earlier attempt, or looked up now). */
  private async call(customer: CustomerRef): Promise<PurchaseProcessed> {
    const found = this.found ? { member: this.found } : await this.lookUp(customer);
    if (found.end) return found.end;
    if (this.recorded !== found.member.id) {
      // Looked up after the claim (rare): the order names the member before the call goes to it.
      if (!(await this.deps.ledger.keepFoundMember(this.ref, this.owner, found.member))) return { outcome: leaseLost() };
      this.recorded = found.member.id;
    }
    return this.event.fixedPoints === undefined ? this.credit(found.member) : this.grantFixed(found.member, this.event.fixedPoints);
  }

  /** The order's lease (a skip still awaiting its customer is re-opened); hands on whether to reconcile. */
  private async claim(): Promise<Step<{ mustReconcile: boolean }>> {
    const { ledger, clock } = this.deps;
    const ours = this.looked && 'member' in this.looked ? this.looked.member : undefined;
    const input = { ...this.ref, owner: this.owner, ...this.facts, ...(ours ? { foundMember: ours } : {}) };
    this.window = leaseSendWindow(clock, ledger.leaseMs);
    let claim = await ledger.claimPurchase(input);
    if (!claim.ok && awaitsCustomer(claim.current, clock())) claim = await ledger.reopenPurchase(input);
    if (!claim.ok && this.options.customerLinked && awaitsLink(claim.current)) claim = await ledger.reopenUnlinked(input);
    if (!claim.ok && reopensForEarn(claim.current, this.event, clock())) claim = await ledger.reopenForEarn(input);
    if (!claim.ok) return { end: (await reviseProvisional(this.deps, this.event, claim.current)) ?? alreadyDone(claim.current) };
    // Provisional until now (or an earlier attempt at the moment died): it earns on its amount as paid, and
    // the refunds before the moment, listed on it, then debit their shares (order-independent: provisional.ts).
    if (claim.previous?.earning || claim.previous?.earnBase) this.earnOn = earnBaseOf(claim.previous);
    if (this.earnOn) await dueForWaitingRefunds(this.deps, this.ref, claim.previous);
    this.keepFindable =
      this.options.customerLinked === true && this.options.ownMessage !== true && (claim.previous?.waitingRefunds.length ?? 0) > 0;
    await this.checkpoint('purchase:claimed');
    // A lease never released means an attempt died; a flag, that one did not learn its call's outcome.
    this.doubt = doubtOf(claim.previous, engineOf(this.deps).horizon);
    // An earlier attempt of this order looked its member up and ended unfinished: no lookup again.
    const kept = claim.previous?.state === 'pending' ? claim.previous.foundMember : undefined;
    // The claim wrote ours unless the order named a member already (if_not_exists).
    this.recorded = claim.previous?.foundMember?.id ?? ours?.id;
    if (kept) {
      this.found = kept;
      this.kept = true;
      this.rank = kept.rank;
    }
    return { mustReconcile: this.doubt !== undefined };
  }

  /** Provisional (provisional.ts): no call; a `days` wait also its due entry, first. A doubt left by an earlier attempt
   * (its moment ran before this payment) stays on the order (finish): the moment's claim inherits it, searches first. */
  private async pend(customer: CustomerRef, earnWhen: string): Promise<PurchaseProcessed> {
    if (earnWhen !== 'fulfilled') await this.deps.ledger.scheduleEarn(this.ref, earnWhen);
    const provisional = provisionalFacts(this.event, customer, earnWhen);
    return this.finish({ outcome: 'pending_earn', provisional }, { kind: 'pending_earn', action: 'ack', earnWhen });
  }

  private async lookUp(customer: CustomerRef): Promise<Step<{ member: FoundMember }>> {
    const looked = this.looked ?? (await this.lookMember(customer));
    this.looked = undefined;
    if ('notFound' in looked) {
      const err = looked.notFound;
      await this.checkpoint('purchase:not-found');
      // The Open API answers the same (member_not_found) for unknown and withdrawn customers: we cannot tell them apart here.
      // A fixed grant (a till's spend or its give-back) is not kept for a later link: it belongs to the sale's state then;
      // nor a shipped share (shares.ts): the whole order earns for a customer linked later, at its fulfilment.
      const keptForLink = this.event.fixedPoints === undefined && this.options.shippedShare !== true;
      const unlinked = keptForLink ? { unlinked: unlinkedFacts(this.event, customer) } : {};
      const end = await this.finish(
        { outcome: 'customer_not_found', reason: err.message, ...unlinked },
        { kind: 'customer_not_found', action: 'ack' },
      );
      return { end: keptForLink ? await this.linkedMeanwhile(customer, end) : end };
    }
    if ('error' in looked) return { end: await this.retry(looked.error, {}) };
    const { member } = looked;
    // Found by an earlier event of this message: kept like an earlier attempt's (looked up again if gone).
    if (looked.fromMemo) this.kept = true;
    else await this.checkpoint('purchase:customer');
    this.rank = member.rank;
    this.found = member;
    this.balanceRead = looked.balanceRead;
    return { member };
  }

  /**
   * A purchase that waited for its customer's link while a later edit of its sale (another customer, or
   * back to its member) made a later purchase of the sale's chain: crediting it too would make the sale
   * earn twice. Recorded `skipped` / `sale_moved` (it leaves the customer's index), with no call.
   */
  private async movedOn(): Promise<PurchaseProcessed | undefined> {
    const { source, orderId } = this.ref;
    const later = await laterInChain((ref) => this.deps.ledger.getOrder(ref), source, orderId);
    if (!later) return undefined;
    this.deps.logger?.warn('linked purchase not credited: its sale moved on', { source, orderId, later });
    return this.finish({ outcome: 'skipped', reason: 'sale_moved' }, { kind: 'skipped', action: 'ack', reason: 'sale_moved' });
  }

  /**
   * Recorded customer_not_found; but if the customer was linked (or enrolled) after our lookup, that
   * link's crediting may have looked for their unlinked orders before this record was written, and
   * will not look again. Its mark, written before it looked, says so: the order is then re-opened and
   * credited now, once, as the link would have done (the lookup finds the member this time).
   */
  private async linkedMeanwhile(customer: CustomerRef, recorded: PurchaseProcessed): Promise<PurchaseProcessed> {
    if (this.options.customerLinked || recorded.outcome.kind !== 'customer_not_found') return recorded;
    const { source } = this.event;
    if (!(await this.deps.ledger.customerLinked({ source, externalKey: customer.externalKey, externalId: customer.externalId }))) {
      return recorded;
    }
    return processPurchase(this.deps, this.event, { customerLinked: true, ownMessage: true });
  }

  /**
   * The doubt an earlier attempt left, settled by a complete search of the history of the member its
   * call went to: found, the order is done from the entry; still in doubt, the attempt waits; settled
   * absent (the horizon passed), undefined: the call may be sent (to whomever the lookup finds).
   */
  private async settleDoubt(memberId: string): Promise<PurchaseProcessed | undefined> {
    const doubt = this.doubt as Doubt;
    try {
      const check = await checkDoubt(engineOf(this.deps), doubt, [this.marker], memberId);
      const entry = check.found.get(this.marker);
      this.settled = entry !== undefined || check.settled;
      if (entry) return this.fromHistory(doubt.memberId ?? memberId, entry);
      if (!check.settled) return this.stillInDoubt(doubt, check.why);
    } catch (e) {
      return this.retry(asOpenApiError(e), {});
    }
    this.doubt = undefined;
    return undefined;
  }

  /** The order's call found in the history (it ran): recorded from its entry, with no call again. */
  private fromHistory(customerId: string, found: PointItem): Promise<PurchaseProcessed> {
    if (this.event.fixedPoints !== undefined && this.event.fixedPoints < 0) return this.deducted(customerId, found.point, true);
    return this.finish(
      { outcome: 'credited', customerId, pointsCredited: found.point, reconciled: true },
      { kind: 'credited', action: 'ack', customerId, points: found.point, exact: true, reconciled: true },
    );
  }

  /** The call may still land: the order waits for the horizon, its doubt recorded (when, since when, to whom). */
  private async stillInDoubt(doubt: Doubt, why: string, error?: OpenApiError): Promise<PurchaseProcessed> {
    this.doubt = doubt;
    const reason = error?.message ?? `a points call of this order may still land (${why})`;
    await this.release(reason, {});
    return { outcome: inDoubtOutcome(error?.kind ?? why, reason, doubt.until) };
  }

  /** The points call through the engine (after any doubt left by an earlier attempt, searched first). */
  private async operate(call: PointsCall): Promise<OperationResult> {
    const result = await runOperation(engineOf(this.deps), { marker: this.marker, call, window: this.window }, this.doubt);
    // Not in doubt after it: the engine searched first (found, or settled absent) before it sent anything.
    if (result.kind !== 'in_doubt') this.settled = true;
    // The balance the answer gave, for the message's later events (a till's mirror).
    if (this.options.members && this.event.customer && this.found)
      noteAnswer(this.options.members, this.event.customer, this.found, result);
    return result;
  }

  /** One points calculation carrying the order's marker, then the record. */
  private async credit(member: FoundMember): Promise<PurchaseProcessed> {
    const { event } = this;
    const input = {
      amount: this.earnOn?.amount ?? event.calculationAmount ?? event.eligibleAmount,
      ...(event.pointTitle ? { title: event.pointTitle } : {}),
      ...(event.expiryDays !== null ? { expired_at: expiryDate(event.occurredAt, event.expiryDays) } : {}),
    };
    const sentFrom = this.deps.clock();
    const result = await this.operated(() => this.operate({ kind: 'calculation', memberId: member.id, input }));
    if (result.kind !== 'ran') return this.notRan(result, member.id);
    await this.checkpoint('purchase:granted');
    if (result.entry) return this.fromHistory(result.memberId, result.entry);
    if (!this.balanceRead) {
      const unread = await creditedUnread(this.deps.openapi, { memberId: member.id, marker: this.marker, since: sentFrom });
      return this.finish(unread.result, unread.outcome);
    }
    const hint = (result.member?.point ?? member.point) - member.point;
    return this.finish(
      { outcome: 'credited', customerId: member.id, pointsHint: hint },
      { kind: 'credited', action: 'ack', customerId: member.id, points: hint, exact: false, reconciled: false },
    );
  }

  /** Runs an operation; a search the engine could not read is a retry with the doubt kept. */
  private async operated(run: () => Promise<OperationResult>): Promise<OperationResult | { kind: 'ended'; end: PurchaseProcessed }> {
    try {
      return await run();
    } catch (e) {
      return { kind: 'ended', end: await this.retry(asOpenApiError(e), {}) };
    }
  }

  /** An operation that did not (knowingly) run: refused by the answer, or in doubt. */
  private notRan(
    result: Exclude<OperationResult, { kind: 'ran' }> | { kind: 'ended'; end: PurchaseProcessed },
    memberId: string,
    onRefused: (err: OpenApiError) => Promise<PurchaseProcessed> = (err) => this.grantRefused(err, memberId),
  ): Promise<PurchaseProcessed> {
    if (result.kind === 'ended') return Promise.resolve(result.end);
    if (result.kind === 'in_doubt') return this.stillInDoubt(result.doubt, result.why, result.error);
    return onRefused(result.error);
  }

  /** The grant was refused (it did not run): the member withdrew, points are off for them, or try again. */
  private async grantRefused(err: OpenApiError, memberId: string): Promise<PurchaseProcessed> {
    const customer = this.event.customer;
    if (err.kind === 'member_not_found' && this.kept && customer) {
      // The member an earlier attempt found is gone (withdrawn, erased, the customer relinked since): the
      // call did not run, so this attempt looks the customer up as a first one would, once.
      this.kept = false;
      this.found = undefined;
      this.rank = undefined;
      this.balanceRead = false;
      return this.call(customer);
    }
    if (err.kind === 'member_not_found') {
      const result = { outcome: 'customer_withdrawn', customerId: memberId, reason: err.message } as const;
      return this.finish(result, { kind: 'customer_withdrawn', action: 'ack', customerId: memberId });
    }
    if (err.kind === 'points_not_available') {
      return this.finish({ outcome: 'points_not_available', reason: err.message }, { kind: 'points_not_available', action: 'ack' });
    }
    return this.retry(err, {});
  }

  /** A fixed grant carrying the order's marker (a sender's resolution makes them): points spent at a till, or given back. */
  private async grantFixed(member: FoundMember, points: number): Promise<PurchaseProcessed> {
    const { event } = this;
    const expiry = points > 0 && event.expiryDays !== null ? { expired_at: expiryDate(event.occurredAt, event.expiryDays) } : {};
    const input = { point: points, ...(event.pointTitle ? { title: event.pointTitle } : {}), ...expiry };
    const result = await this.operated(() => this.operate({ kind: 'grant', memberId: member.id, input }));
    if (result.kind !== 'ran') {
      return this.notRan(result, member.id, (err) =>
        err.kind === 'insufficient_points' && points < 0
          ? this.insufficient(member.id, -points, err.message)
          : this.grantRefused(err, member.id),
      );
    }
    await this.checkpoint('purchase:granted');
    if (result.entry) return this.fromHistory(result.memberId, result.entry);
    if (points < 0) return this.deducted(member.id, points, false);
    return this.finish(
      { outcome: 'credited', customerId: member.id, pointsCredited: points },
      { kind: 'credited', action: 'ack', customerId: member.id, points, exact: true, reconciled: false },
    );
  }

  /**
   * A deduction the balance could not cover, by the refund policy: `park` deducts nothing, `clamp` what
   * the member holds (one grant with the marker). Recorded `insufficient_points` with the shortfall.
   */
  private async insufficient(customerId: string, wanted: number, message: string): Promise<PurchaseProcessed> {
    const policy = this.deps.settings.insufficientPointsPolicy;
    let taken = 0;
    if (policy === 'clamp') {
      try {
        taken = Math.min(wanted, Math.max(0, (await this.deps.openapi.getMember(customerId)).point));
      } catch (e) {
        return this.retry(asOpenApiError(e), {});
      }
      if (taken > 0) {
        // The refused call proved nothing ran: the same marker goes once more, for what is held.
        const result = await this.operated(() => this.operate({ kind: 'grant', memberId: customerId, input: { point: -taken } }));
        // Includes insufficient_points again (the balance moved between the read and the deduction): nothing ran.
        if (result.kind !== 'ran') return this.notRan(result, customerId, (err) => this.retry(err, {}));
        if (result.entry) return this.deducted(customerId, result.entry.point, true);
      }
    }
    const shortfall = wanted - taken;
    return this.finish(
      { outcome: 'insufficient_points', customerId, pointsCredited: taken > 0 ? -taken : 0, shortfall, reason: `${policy}: ${message}` },
      { kind: 'insufficient_points', action: 'ack', policy, customerId, points: taken, target: wanted, shortfall, reconciled: false },
    );
  }

  /** A fixed deduction done (its history entry's points, negative): all it asked for, or less (clamped). */
  private deducted(customerId: string, points: number, reconciled: boolean): Promise<PurchaseProcessed> {
    const wanted = -(this.event.fixedPoints ?? points);
    const taken = -points;
    if (taken >= wanted) {
      return this.finish(
        { outcome: 'debited', customerId, pointsCredited: points, reconciled },
        { kind: 'debited', action: 'ack', customerId, points: taken, target: wanted, reconciled },
      );
    }
    const policy = this.deps.settings.insufficientPointsPolicy;
    const shortfall = wanted - taken;
    return this.finish(
      { outcome: 'insufficient_points', customerId, pointsCredited: points, shortfall, reconciled, reason: `${policy}: clamped` },
      { kind: 'insufficient_points', action: 'ack', policy, customerId, points: taken, target: wanted, shortfall, reconciled },
    );
  }

  private async finish(found: PurchaseResult, outcome: ProcessOutcome): Promise<PurchaseProcessed> {
    const earned = found.outcome === 'credited' && this.earnOn ? { earnedOn: this.earnOn } : {};
    const result =
      found.outcome === 'credited'
        ? {
            ...found,
            ...earned,
            ...(this.options.shippedShare ? {} : await campaignsFor(this.deps, this.event, this.rank, found.customerId)),
          }
        : found;
    // Credited late with refunds already waiting (no message of their own any more: parked): findable by
    // its customer until they are through, so a crash among them is retried by the link (retro.ts takes it out).
    const kept = this.keepFindable && result.unlinked === undefined ? { ...result, keepUnlinked: true } : result;
    // An inherited doubt this attempt did not settle stays on the order, whatever the outcome (inherited-doubt.ts).
    const done = await this.deps.ledger.finishPurchase(this.ref, this.owner, { ...kept, ...doubtOnFinish(this.doubt, this.settled) });
    if (!done) return { outcome: leaseLost() };
    await this.checkpoint('purchase:recorded');
    return { outcome, order: done };
  }

  /** A failure that proves nothing ran: the lease released, back to the queue (or parked: failures.ts). */
  private async retry(err: OpenApiError, opts: { needsReconcile?: boolean }): Promise<PurchaseProcessed> {
    if (isUnrecognisedRefusal(err) && !opts.needsReconcile && !this.doubt) {
      // The event is kept: `npm run reprocess -- --outcome upstream_rejected` runs it again after the fix.
      const rejected = { outcome: 'upstream_rejected', reason: err.message, rejectedEvent: JSON.stringify(this.event) } as const;
      return this.finish(rejected, rejectedOutcome(err));
    }
    await this.release(err.message, opts);
    return { outcome: transientOutcome(err) };
  }

  /** Gives the lease back; a doubt still open stays recorded on the order, for whoever claims it next. */
  private async release(lastError: string, opts: { needsReconcile?: boolean }): Promise<void> {
    const doubt = this.doubt ? { needsReconcile: true, inDoubt: this.doubt } : {};
    const found = this.found ? { foundMember: this.found } : {};
    await this.deps.ledger.releaseOrder(this.ref, this.owner, { lastError, ...opts, ...doubt, ...found });
  }
}
