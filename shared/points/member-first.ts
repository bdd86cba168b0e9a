import type { CustomerRef, PurchaseEvent } from '../events/index.js';
import type { FoundMember, OrderRecord } from '../ledger/index.js';
import type { OpenApiError } from '../openapi/index.js';
import type { ProcessorDeps } from './deps.js';
import { asOpenApiError } from './failures.js';
import { findMember } from './find-member.js';
import { awaitsCustomer, awaitsLink } from './late-customer.js';
import type { MemberMemo } from './member-memo.js';
import { earnBaseOf, provisionalWhen, reopensForEarn } from './provisional.js';

/**
 * The member a purchase's call will go to, known before the order is claimed, so the claim writes it
 * (`foundMember`) in the same write: a worker killed after its call (no write between the call and its
 * death) leaves on the order the member the call went to, and its successor searches that member's
 * history, whoever a lookup would find after a re-link. Steady state stays 2 writes and 2 calls (one
 * read more: the order, to skip the lookup where no call will follow).
 */
export type Looked =
  | { member: FoundMember; fromMemo: boolean; balanceRead: boolean }
  | { error: OpenApiError }
  /** The service knows no member for the customer: the claim records `customer_not_found`. */
  | { notFound: OpenApiError };

/** Looks the customer up (or takes the member an earlier event of the same message found). */
async function lookMember(deps: ProcessorDeps, customer: CustomerRef, memo: MemberMemo | undefined): Promise<Looked> {
  const known = memo?.found(customer);
  if (known) return { member: known, fromMemo: true, balanceRead: memo?.balance(customer) !== undefined };
  try {
    const { id, point, rank } = await findMember(deps.openapi, customer);
    const member = { id, point, ...(rank ? { rank } : {}) };
    memo?.remember(customer, member);
    return { member, fromMemo: false, balanceRead: true };
  } catch (e) {
    const error = asOpenApiError(e);
    return error.kind === 'member_not_found' ? { notFound: error } : { error };
  }
}

/** Lookups for one attempt: the message's memo is asked the first time only (a member it gave that is gone is looked up for real). */
export function memberLookup(deps: ProcessorDeps, memo: MemberMemo | undefined): (customer: CustomerRef) => Promise<Looked> {
  let asked = false;
  return (customer) => {
    const first = !asked;
    asked = true;
    return lookMember(deps, customer, first ? memo : undefined);
  };
}

/**
 * Whether the claim this attempt is about to make will lead to a points call for a member it has to
 * look up: not for an order done (and not re-opened), one whose earlier attempt's member is kept on it,
 * a provisional sale waiting for its moment, nor one earning nothing. A wrong guess costs a lookup (or
 * one write more after the claim), never correctness: the member is written before any call.
 */
export function callFollows(order: OrderRecord | undefined, event: PurchaseEvent, nowMs: number, customerLinked: boolean): boolean {
  if (!order) return provisionalWhen(event, nowMs) === undefined;
  if (order.state === 'pending' && order.foundMember) return false;
  const reopens = awaitsCustomer(order, nowMs) || (customerLinked && awaitsLink(order)) || reopensForEarn(order, event, nowMs);
  if (order.state === 'done' && !reopens) return false;
  if (order.earning || order.earnBase) return earnBaseOf(order).amount !== 0;
  return provisionalWhen(event, nowMs) === undefined;
}
