import type { OrderRecord, PurchaseResult } from '../ledger/index.js';
import type { OpenApiClient } from '../openapi/index.js';
import { campaignsOf, needsRank } from './bonus.js';
import type { ProcessorDeps } from './deps.js';
import { searchHistory } from './engine/index.js';
import type { ProcessOutcome, PurchaseEvent, SkipReason } from '../events/index.js';
import type { MemberMemo } from './member-memo.js';

/** The purchase's types and its small rules, beside the attempt (purchase.ts) that uses them. */

/** What a purchase came to, with its order when that is done: the refunds still listed on it are then due. */
export interface PurchaseProcessed {
  outcome: ProcessOutcome;
  /** The order, done (credited or not): the processor runs the refunds that waited for it. */
  order?: OrderRecord;
}

export interface PurchaseOptions {
  /** Its customer was linked or enrolled since: an order that ended `customer_not_found` is re-opened (once). */
  customerLinked?: boolean;
  /**
   * Re-opened by the purchase's own message, not by the link's crediting: its refunds that waited are
   * retried by that message, so the order need not stay findable by its customer for them.
   */
  ownMessage?: boolean;
  /** The members found by the message's other events: a hit needs no lookup; every answer updates it. */
  members?: MemberMemo;
  /** A shipped share of a provisional order (shares.ts): no campaign bonus, which comes with the whole order's credit. */
  shippedShare?: boolean;
}

/** Why the purchase earns nothing, or undefined when it is to be credited. */
export function skipReason(event: PurchaseEvent): SkipReason | undefined {
  if (event.test) return 'test';
  if (event.notEarning) return event.notEarning;
  if (event.customer === null) return 'no_customer';
  if (event.fixedPoints !== undefined) return event.fixedPoints === 0 ? 'amount_zero' : undefined;
  if ((event.calculationAmount ?? event.eligibleAmount) === 0) return 'amount_zero';
  return undefined;
}

/** The order is already claimed: done (a duplicate, whose waiting refunds may still be due) or leased. */
export function alreadyDone(current: OrderRecord | undefined): PurchaseProcessed {
  if (current?.state === 'done') {
    return { outcome: { kind: 'duplicate', action: 'ack', previous: current.outcome ?? 'unknown' }, order: current };
  }
  const until = current?.leaseUntil;
  return { outcome: { kind: 'lease_held', action: 'retry', reason: 'another attempt holds the order', ...(until ? { until } : {}) } };
}

/** `Y-m-d` that many days after the purchase's local date (the date part of its ISO timestamp). */
export function expiryDate(occurredAt: string, days: number): string {
  const date = new Date(`${occurredAt.slice(0, 10)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/**
 * The campaigns the credit qualifies for, kept with the order in its finishing write (no write more):
 * their bonuses follow (bonus.ts). The rank is read only when a rule needs it and no lookup gave it.
 */
export async function campaignsFor(
  deps: Pick<ProcessorDeps, 'settings' | 'openapi'>,
  event: PurchaseEvent,
  known: string | undefined,
  customerId: string | undefined,
): Promise<Pick<PurchaseResult, 'campaigns'>> {
  const { settings, openapi } = deps;
  if (!settings.campaigns?.length) return {};
  let rank = known;
  if (rank === undefined && customerId !== undefined && needsRank(settings.campaigns, event)) {
    try {
      rank = (await openapi.getMember(customerId)).rank ?? undefined;
    } catch {
      // The rank unread: rank-limited rules do not apply (the others still do); never a reason to lose the credit.
    }
  }
  const expiry = event.expiryDays !== null ? { expiredAt: expiryDate(event.occurredAt, event.expiryDays) } : {};
  const campaigns = campaignsOf(settings.campaigns, event, rank).map((c) => ({ ...c, ...expiry }));
  return campaigns.length > 0 ? { campaigns } : {};
}

/**
 * A credit whose balance before the call was not read by this attempt (a member kept from an earlier
 * one: the balance's move would count whatever moved it since): the entry's points, read from the
 * history, or no figure while the history lags behind or cannot be read (a refund or a bonus reads the
 * entry when it needs it). The calculation's answer cannot prove it instead: its member (detail form)
 * has `point` and `total_point` but no `total_point_count` (the Open API gives that in the customer
 * list only), so nothing in it rules out another grant since the kept member was read.
 */
export async function creditedUnread(
  api: Pick<OpenApiClient, 'listPoints'>,
  call: { memberId: string; marker: string; since: number },
): Promise<{ result: PurchaseResult; outcome: ProcessOutcome }> {
  const search = searchHistory(api, call.memberId, [call.marker], { since: call.since });
  const points = await search.then(
    (s) => s.found.get(call.marker)?.point,
    () => undefined,
  );
  const customerId = call.memberId;
  return {
    result: { outcome: 'credited', customerId, ...(points === undefined ? {} : { pointsCredited: points }) },
    outcome: { kind: 'credited', action: 'ack', customerId, points: points ?? 0, exact: points !== undefined, reconciled: false },
  };
}
