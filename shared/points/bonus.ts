import { randomUUID } from 'node:crypto';
import { type Campaign, campaignBonus, matchingCampaigns } from '../campaigns/index.js';
import type { ProcessOutcome, PurchaseEvent } from '../events/index.js';
import {
  type AppliedRefund,
  type BonusRecord,
  type BonusRef,
  leaseSendWindow,
  type OrderCampaign,
  type OrderRecord,
} from '../ledger/index.js';
import { parseDecimal } from '../money/index.js';
import type { OpenApiError, SendWindow } from '../openapi/index.js';
import type { ProcessorDeps } from './deps.js';
import { creditNotVisibleUntil, type Doubt, doubtOf, type OperationResult, runOperation, searchHistory } from './engine/index.js';
import { engineOf } from './engine-deps.js';
import { asOpenApiError, inDoubtOutcome, transientOutcome } from './failures.js';
import { bonusMarker, bonusReturnMarker, purchaseMarker } from './markers.js';

/**
 * Campaign bonuses (issue 53), each its own points call after the order's credit, exactly once, through
 * the protocol engine: claim the bonus record (shared/ledger/bonuses.ts) -> (a doubt? search) -> grant ->
 * record. Then each refund booked on the order takes its share of the bonus back, in the order the
 * refunds were booked, by the refund rule applied to the bonus (floor(bonus × refundedSoFar / eligible)
 * less what earlier refunds took), with a marker of its own per refund, booked on the bonus record.
 * Run after every purchase and refund of an order with campaigns (and their redeliveries), so a crash
 * anywhere is finished by the next delivery of either.
 */

/** The campaigns a credited purchase qualifies for, as the order keeps them (a snapshot of each rule). */
export function campaignsOf(campaigns: readonly Campaign[] | undefined, event: PurchaseEvent, rank: string | undefined): OrderCampaign[] {
  if (!campaigns || campaigns.length === 0 || event.fixedPoints !== undefined) return [];
  const matched = matchingCampaigns(campaigns, {
    source: event.source,
    occurredAt: event.occurredAt,
    store: event.store,
    rank,
    eligibleExact: event.eligibleExact,
    eligibleAmount: event.eligibleAmount,
  });
  return matched.map((c) => ({
    id: c.id,
    title: c.title,
    ...(c.multiplier !== undefined ? { multiplier: c.multiplier } : {}),
    ...(c.fixedPoints !== undefined ? { fixedPoints: c.fixedPoints } : {}),
  }));
}

/** Whether some rule would match but for the member's rank (the rank must then be read). */
export function needsRank(campaigns: readonly Campaign[] | undefined, event: PurchaseEvent): boolean {
  const byRank = (campaigns ?? []).filter((c) => c.ranks !== undefined).map((c) => ({ ...c, ranks: undefined }));
  return byRank.length > 0 && campaignsOf(byRank, event, undefined).length > 0;
}

/** What the bonuses of an order came to: done, or an outcome that retries (the delivery finishes them later). */
export type BonusesSettled = { ok: true; bonuses: BonusRecord[] } | { ok: false; outcome: Extract<ProcessOutcome, { action: 'retry' }> };

/** Grants each campaign's bonus of a credited order and takes back the refunds' shares, once each. */
export async function settleBonuses(deps: ProcessorDeps, order: OrderRecord): Promise<BonusesSettled> {
  const bonuses: BonusRecord[] = [];
  if (order.outcome !== 'credited' || !order.customerId) return { ok: true, bonuses };
  for (const campaign of order.campaigns ?? []) {
    const settled = await new BonusAttempt(deps, order, campaign).run();
    if (!settled.ok) return settled;
    bonuses.push(settled.record);
  }
  return { ok: true, bonuses };
}

type Settled = { ok: true; record: BonusRecord } | { ok: false; outcome: Extract<ProcessOutcome, { action: 'retry' }> };

/** The title of a claw-back entry in the member's history. */
const RETURN_TITLE = (title: string) => `${title}（返品による取消）`;

class BonusAttempt {
  private readonly owner = randomUUID();
  private readonly ref: BonusRef;
  private readonly marker: string;
  private readonly memberId: string;
  private window: SendWindow | undefined;
  private doubt: Doubt | undefined;

  constructor(
    private readonly deps: ProcessorDeps,
    private readonly order: OrderRecord,
    private readonly campaign: OrderCampaign,
  ) {
    this.ref = { source: order.source, orderId: order.orderId, campaignId: campaign.id };
    this.marker = bonusMarker(order.source, order.orderId, campaign.id);
    this.memberId = order.customerId as string;
  }

  async run(): Promise<Settled> {
    const { ledger, clock } = this.deps;
    const current = await ledger.getBonus(this.ref);
    // Done and every booked refund taken back: nothing to do, nothing written (a redelivery's usual case).
    if (current?.state === 'done' && this.dueRefunds(current).length === 0) return { ok: true, record: current };
    this.window = leaseSendWindow(clock, ledger.leaseMs);
    const claim = await ledger.claimBonus(this.ref, this.marker, this.owner);
    if (!claim.ok) {
      const until = claim.current?.leaseUntil;
      return {
        ok: false,
        outcome: { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the bonus', ...(until ? { until } : {}) },
      };
    }
    await this.deps.checkpoint?.('bonus:claimed');
    this.doubt = doubtOf(claim.previous, engineOf(this.deps).horizon);
    let record = claim.previous ?? (await ledger.getBonus(this.ref));
    if (!record) return this.fail(`the bonus record of ${this.marker} vanished`);
    if (record.state !== 'done') {
      const granted = await this.grant();
      if (!granted.ok) return granted;
      record = granted.record;
    }
    for (const [refundId, refund] of this.dueRefunds(record)) {
      const taken = await this.takeBack(record, refundId, refund);
      if (!taken.ok) return taken;
      record = taken.record;
    }
    await ledger.releaseBonus(this.ref, this.owner);
    return { ok: true, record };
  }

  /** The refunds booked on the order whose share of the bonus is not booked yet, in the order they were booked. */
  private dueRefunds(record: BonusRecord): [string, AppliedRefund][] {
    return Object.entries(this.order.refunds)
      .filter(([id]) => record.clawbacks[id] === undefined)
      .sort(([a, x], [b, y]) => x.refundedAfter - y.refundedAfter || x.at.localeCompare(y.at) || a.localeCompare(b));
  }

  /** The bonus: its base read exactly (the history entry of the order's marker), then one grant with its marker. */
  private async grant(): Promise<Settled> {
    const base = await this.base();
    if (!base.ok) return base;
    const points = campaignBonus(asRule(this.campaign), base.points);
    if (points === 0) return this.granted({ base: base.points, points: 0, reconciled: false });
    const input = {
      point: points,
      title: this.campaign.title,
      ...(this.campaign.expiredAt ? { expired_at: this.campaign.expiredAt } : {}),
    };
    const result = await this.operate(this.marker, { kind: 'grant', memberId: this.memberId, input });
    if (result.kind === 'ended') return result.settled;
    if (result.kind === 'in_doubt') return this.inDoubt(result);
    if (result.kind === 'refused') {
      // The member withdrew or points are off for them: no bonus, recorded with why (nothing ran).
      if (result.error.kind === 'member_not_found' || result.error.kind === 'points_not_available') {
        return this.granted({ base: base.points, points: 0, reconciled: false });
      }
      return this.retry(result.error);
    }
    await this.deps.checkpoint?.('bonus:granted');
    return this.granted({ base: base.points, points: result.entry ? result.entry.point : points, reconciled: result.reconciled });
  }

  private async granted(g: { base: number; points: number; reconciled: boolean }): Promise<Settled> {
    const record = await this.deps.ledger.grantBonus(this.ref, this.owner, { memberId: this.memberId, ...g });
    if (!record) return this.lost();
    // Whatever an earlier attempt left in doubt was this grant (claw-backs come only after it is recorded): settled.
    this.doubt = undefined;
    return { ok: true, record };
  }

  /** The order's credit exactly: from its record when a refund read it already, else from the history. */
  private async base(): Promise<{ ok: true; points: number } | Exclude<Settled, { ok: true }>> {
    if (this.order.pointsCredited !== undefined) return { ok: true, points: this.order.pointsCredited };
    const marker = purchaseMarker(this.order.source, this.order.orderId);
    const since = this.order.createdAt ? Date.parse(this.order.createdAt) : undefined;
    try {
      const search = await searchHistory(engineOf(this.deps).api, this.memberId, [marker], { since });
      const entry = search.found.get(marker);
      if (entry) return { ok: true, points: entry.point };
    } catch (e) {
      return this.retry(asOpenApiError(e));
    }
    // Not in the history yet: wait for it as a refund does (the engine's rule). The balance difference is no
    // stand-in before then: other orders may have moved the balance around the credit.
    const engine = engineOf(this.deps);
    const visibleBy = creditNotVisibleUntil(this.order.finishedAt, engine.horizon, engine.clock());
    if (visibleBy !== undefined) {
      const reason = 'the credit entry is not in the point history yet: the bonus waits for it';
      await this.deps.ledger.releaseBonus(this.ref, this.owner, reason, this.doubt);
      return { ok: false, outcome: inDoubtOutcome('credit_not_visible', reason, visibleBy) };
    }
    this.deps.logger?.warn('credit entry not found in the point history; the bonus uses the balance difference', this.ref);
    return { ok: true, points: this.order.pointsHint ?? 0 };
  }

  /**
   * One refund's share of the bonus back: floor(bonus × refundedAfter / eligible) less what earlier
   * refunds took (their targets), exactly when the order keeps exact amounts. 0: booked, no call.
   */
  private async takeBack(record: BonusRecord, refundId: string, refund: AppliedRefund): Promise<Settled> {
    const bonus = record.points ?? 0;
    const target = Math.max(0, shareOf(bonus, this.order, refund) - record.clawbackTarget);
    const at = new Date(this.deps.clock()).toISOString();
    if (target === 0) return this.booked(refundId, { target: 0, taken: 0, at });
    const marker = bonusReturnMarker(this.order.source, this.order.orderId, this.campaign.id, refundId);
    const call = (point: number) =>
      this.operate(marker, {
        kind: 'grant',
        memberId: record.memberId ?? this.memberId,
        input: { point: -point, title: RETURN_TITLE(this.campaign.title) },
      });
    let result = await call(target);
    if (result.kind === 'ended') return result.settled;
    if (result.kind === 'in_doubt') return this.inDoubt(result);
    let wanted = target;
    if (result.kind === 'refused') {
      if (result.error.kind !== 'insufficient_points') return this.retry(result.error);
      // Too few points: `park` takes nothing, `clamp` what the member holds (the refusal proved nothing ran).
      if (this.deps.settings.insufficientPointsPolicy === 'park') return this.booked(refundId, { target, taken: 0, at });
      try {
        wanted = Math.min(target, Math.max(0, (await this.deps.openapi.getMember(record.memberId ?? this.memberId)).point));
      } catch (e) {
        return this.retry(asOpenApiError(e));
      }
      if (wanted === 0) return this.booked(refundId, { target, taken: 0, at });
      result = await call(wanted);
      if (result.kind === 'ended') return result.settled;
      if (result.kind === 'in_doubt') return this.inDoubt(result);
      if (result.kind === 'refused') return this.retry(result.error);
    }
    await this.deps.checkpoint?.('bonus:taken-back');
    const taken = result.entry ? -result.entry.point : wanted;
    return this.booked(refundId, { target, taken, ...(result.reconciled ? { reconciled: true } : {}), at });
  }

  private async booked(refundId: string, clawback: { target: number; taken: number; reconciled?: boolean; at: string }): Promise<Settled> {
    const record = await this.deps.ledger.bookClawback(this.ref, this.owner, refundId, clawback);
    if (!record) return this.lost();
    this.doubt = undefined;
    return { ok: true, record };
  }

  /** Through the engine; a history that cannot be read ends the attempt (a retry, the doubt kept). */
  private async operate(
    marker: string,
    call: Parameters<typeof runOperation>[1]['call'],
  ): Promise<OperationResult | { kind: 'ended'; settled: Exclude<Settled, { ok: true }> }> {
    try {
      return await runOperation(engineOf(this.deps), { marker, call, window: this.window as SendWindow }, this.doubt);
    } catch (e) {
      return { kind: 'ended', settled: await this.retry(asOpenApiError(e)) };
    }
  }

  private async inDoubt(result: Extract<OperationResult, { kind: 'in_doubt' }>): Promise<Settled> {
    const reason = result.error?.message ?? `a bonus call of this order may still land (${result.why})`;
    await this.deps.ledger.releaseBonus(this.ref, this.owner, reason, result.doubt);
    return { ok: false, outcome: inDoubtOutcome(result.error?.kind ?? result.why, reason, result.doubt.until) };
  }

  private async retry(err: OpenApiError): Promise<Exclude<Settled, { ok: true }>> {
    await this.deps.ledger.releaseBonus(this.ref, this.owner, err.message, this.doubt);
    return { ok: false, outcome: transientOutcome(err) };
  }

  private async fail(reason: string): Promise<Settled> {
    await this.deps.ledger.releaseBonus(this.ref, this.owner, reason, this.doubt);
    return { ok: false, outcome: { kind: 'upstream_error', action: 'retry', errorKind: 'bonus', reason } };
  }

  private lost(): Settled {
    return { ok: false, outcome: { kind: 'lease_lost', action: 'retry', reason: 'the bonus lease expired and was taken over' } };
  }
}

/** The rule as its snapshot on the order says (only what the bonus needs). */
const asRule = (c: OrderCampaign): Campaign => ({ ...c, from: '', to: '' }) as Campaign;

/** floor(bonus × refundedAfter / eligible): exact amounts when the order and the refund keep them, else the integers. */
function shareOf(bonus: number, order: OrderRecord, refund: AppliedRefund): number {
  const exact = order.eligibleExact !== undefined && refund.exactRefundedAfter !== undefined;
  const whole = exact ? parseDecimal(order.eligibleExact as string) : { units: BigInt(order.eligibleAmount ?? 0), scale: 0 };
  const part = exact ? parseDecimal(refund.exactRefundedAfter as string) : { units: BigInt(refund.refundedAfter), scale: 0 };
  if (!whole || !part || bonus <= 0) return 0;
  const scale = Math.max(whole.scale, part.scale);
  const w = whole.units * 10n ** BigInt(scale - whole.scale);
  const p = part.units * 10n ** BigInt(scale - part.scale);
  if (w <= 0n) return 0;
  return Number((BigInt(bonus) * (p < w ? p : w)) / w);
}
