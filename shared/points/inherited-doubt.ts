import type { OrderRecord, PurchaseResult } from '../ledger/index.js';
import type { ProcessOutcome } from '../events/index.js';
import { type Doubt, doubtOf, type HorizonSettings } from './engine/index.js';
import { inDoubtOutcome } from './failures.js';

/**
 * The rule for a doubt an order inherits (a call of an earlier attempt that may still land: released unsure,
 * or its attempt died holding the lease): no write that ends the order drops it unless the writer proved the
 * call absent (a complete search past the horizon found nothing) or found it (then recorded from its entry).
 * The ledger's finishing write keeps the doubt fields unless told `doubtSettled` (shared/ledger/orders.ts);
 * a finish needing no claim (a skip) is refused by an order in doubt; a cancellation that would end a
 * provisional order `not_earned` waits for it. Otherwise the next claim sends the credit again without a
 * search (a double inside the horizon), or a credit that lands later stays on a sale that earns nothing.
 */

/** How long a write refused by a doubt whose horizon has passed waits before it looks again (someone is settling it). */
const SETTLING_RETRY_MS = 60_000;

/** What a purchase attempt's finish says of the doubt it inherited: kept, unless its search settled it (or none was). */
export function doubtOnFinish(doubt: Doubt | undefined, settled: boolean): Pick<PurchaseResult, 'inDoubt' | 'doubtSettled'> {
  return doubt && !settled ? { inDoubt: doubt } : { doubtSettled: true };
}

/** The order's inherited doubt, when its lease is free (a live lease is another attempt at work, not a doubt yet). */
function openDoubt(order: OrderRecord, horizon: HorizonSettings, nowMs: number): Doubt | undefined {
  if (order.leaseUntil !== undefined && order.leaseUntil >= nowMs) return undefined;
  return doubtOf(order, horizon);
}

type Wait = Extract<ProcessOutcome, { kind: 'outcome_unknown' }>;

const waitFor = (doubt: Doubt, why: string, nowMs: number): Wait =>
  inDoubtOutcome('in_doubt', why, doubt.until > nowMs ? doubt.until : nowMs + SETTLING_RETRY_MS);

/**
 * A skip (no claim) refused by an order still in progress: while a call of its purchase is in doubt, the
 * delivery naming nobody waits for whoever settles it (the delivery naming the customer, retried), then
 * answers from the order as it ended. Undefined: the order is not in doubt (the caller's usual answer).
 */
export function skipOverDoubt(current: OrderRecord | undefined, horizon: HorizonSettings, nowMs: number): Wait | undefined {
  if (current?.state !== 'pending') return undefined;
  const doubt = openDoubt(current, horizon, nowMs);
  if (!doubt) return undefined;
  return waitFor(doubt, 'a credit of this order may still land: the delivery naming no customer waits until it is settled', nowMs);
}

/**
 * A refund before the moment that would end a provisional order `not_earned` while the order's credit is in
 * doubt (its moment ran before the payment was recorded): it waits until the moment's delivery settles the
 * doubt (credited from the history, or sent after a search found nothing), then debits its share of that
 * credit like any refund after it, so a credit that landed is taken back once. Like a sibling refund in
 * doubt (siblings.ts): the share is not worked out while what it depends on may still change.
 */
export function cancelOverDoubt(order: OrderRecord, horizon: HorizonSettings, nowMs: number): Wait | undefined {
  if (order.state !== 'done' || order.outcome !== 'pending_earn') return undefined;
  const doubt = openDoubt(order, horizon, nowMs);
  if (!doubt) return undefined;
  return waitFor(doubt, 'the provisional credit of this order may still land: the refund ending it waits until it is settled', nowMs);
}
