import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ActivityEntry, ActivityReader } from '../activity/index.js';
import type { CustomerRecords } from '../customers/index.js';
import {
  createLedgerRedactor,
  createTillMirrors,
  type Ledger,
  type TillMirrorRecord,
  type LedgerRedactor,
  type OrderRecord,
  type TillLine,
  type TillReturnRecord,
  type TillReturnStatus,
} from '../ledger/index.js';

/**
 * An in-store member's privacy request (APPI disclosure or erasure), asked of the operator directly: a
 * till's member has no platform that sends compliance webhooks. The member is the source's customer
 * code (Smaregi: `customerCode`, or the customer id under `customerField: customerId`). Their records
 * are the source's orders naming the code (sales, raises' supplements, till spends and give-backs), those
 * orders' refunds, the unlinked returns whose event names them, the till returns (`till-return#`) and
 * till sales (`till-sale#`, what a sale held, to match returns with) naming them, an enrolment record and
 * a link's mark. Found by scans of the source's records: a privacy request is rare, and no index holds a
 * member's orders.
 *
 * The erase is the Shopify customers/redact's, by the ledger's own rules (shared/ledger/redaction): the
 * code goes, amounts, point figures, outcomes and member ids stay (the books still balance, the audit
 * still reads; a till return's products and amount stay, an open one is dismissed, a till sale loses the
 * index keys that match a return with it), and a tombstone keyed by a digest of the code (written first)
 * makes the worker record nothing of the member again (shared/sources/smaregi/state.ts). Points already
 * granted stay with the membership service. A record under a live lease is left and reported busy: run
 * it again.
 */

export interface MemberRef {
  source: string;
  /** The membership external key the source files the code under (for the link mark's key). */
  externalKey: string;
  code: string;
}

export interface MemberPrivacyDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => number;
  ledger: Pick<Ledger, 'listRefunds' | 'isRedacted'>;
  records: Pick<CustomerRecords, 'get' | 'markRedacted'>;
  /** The orders' activity (what intake and the worker observed), for the report. */
  activity?: Pick<ActivityReader, 'order'>;
}

/** What a member's order is to their points: a sale, an edit's supplement, a till spend or its give-back. */
export type HeldMemberOrderKind = 'sale' | 'supplement' | 'till_spend' | 'till_give_back';

export interface HeldMemberOrder {
  orderId: string;
  kind: HeldMemberOrderKind;
  outcome: string;
  /** The member credited or debited (the membership service's id), when one was found. */
  memberId: string | null;
  points: number | null;
  recordedAt: string | null;
  refunds: { refundId: string; outcome: string; points: number | null }[];
  /** What intake and the worker observed of it (deliveries, receives, points calls). */
  activity: ActivityEntry[];
}

/** A till return naming the member (docs/smaregi.md, "Till returns"): where, when, how much, what, how it stands. */
export interface HeldTillReturn {
  returnId: string;
  status: TillReturnStatus;
  storeId: string | null;
  terminalId: string | null;
  occurredAt: string;
  amount: string;
  currency: string;
  lines: TillLine[];
  recordedAt: string;
  /** Applied: the sale and its refund, by whom, when; dismissed: by whom, why, when. */
  settled: Record<string, string> | null;
}

/** What a member's till sale keeps to match returns with: its store, time and products. */
export interface HeldTillSale {
  saleId: string;
  storeId: string;
  occurredAt: string;
  lines: TillLine[];
}

export interface HeldMemberData {
  source: string;
  customerCode: string;
  /** An erase left its tombstone: nothing of the member is recorded again. */
  erased: boolean;
  orders: HeldMemberOrder[];
  /** Returns linked to no sale whose event names the member (`unlinked/<id>`). */
  returns: { refundId: string; outcome: string; recordedAt: string | null }[];
  /** The till's plain returns naming the member, kept for an operator to settle (`npm run returns`). */
  tillReturns: HeldTillReturn[];
  /** The member's till sales as kept to match returns with. */
  tillSales: HeldTillSale[];
  /** An enrolment record under the code, when there is one. */
  enrolment: { outcome: string; memberId: string | null } | null;
  /** Points changes mirrored to the member's Smaregi record (tillPoints membership): marker, state, points, the Smaregi customer id until erased. */
  tillMirrors: { marker: string; state: string; points: number; smaregiCustomerId: string | null; recordedAt: string }[];
}

export interface MemberErasure {
  orders: number;
  refunds: number;
  returns: number;
  /** Till returns and till sales the member was taken out of (open returns among them dismissed). */
  tillReturns: number;
  tillSales: number;
  /** Till mirror steps whose Smaregi customer id was taken out (unfinished ones ended `skipped`). */
  tillMirrors: number;
  customers: number;
  /** `new`: this erase wrote it; `kept`: an earlier erase had. */
  tombstone: 'new' | 'kept';
  /** Records under a lease now (`order <id>`, `refund <order>/<id>`): run the erase again. */
  busy: string[];
}

const kindOf = (orderId: string): HeldMemberOrderKind =>
  /\/spend-\d+\/back$/.test(orderId)
    ? 'till_give_back'
    : /\/spend-\d+$/.test(orderId)
      ? 'till_spend'
      : /\/up-\d+$/.test(orderId)
        ? 'supplement'
        : 'sale';

async function memberOrders(deps: MemberPrivacyDeps, ref: MemberRef): Promise<OrderRecord[]> {
  const found: OrderRecord[] = [];
  for await (const order of createLedgerRedactor(deps).scanOrders(ref.source)) if (order.externalId === ref.code) found.push(order);
  return found.sort((a, b) => (a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0));
}

const byTime = <T extends { occurredAt: string }>(records: T[]) => records.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));

/**
 * The till mirror steps of the member (`till-mirror#`, any source's marker): those whose member is one
 * the member's orders went to, or whose Smaregi customer is the code (customerField customerId).
 */
async function memberMirrors(deps: MemberPrivacyDeps, ref: MemberRef, orders: OrderRecord[]): Promise<TillMirrorRecord[]> {
  const members = new Set(orders.map((o) => o.customerId).filter((id): id is string => id !== undefined));
  const steps = await createTillMirrors({ client: deps.client, tableName: deps.tableName, clock: deps.clock }).list();
  // list() gives steps only: the till's own changes noted for the settles (member id, points, a marker) are
  // the member's till spends, reported and redacted as the orders they were noted from.
  return steps
    .filter((s) => s.source === ref.source && (members.has(s.memberId) || s.smaregiCustomerId === ref.code))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

async function collect<T>(records: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const record of records) out.push(record);
  return out;
}

function settledOf(r: TillReturnRecord): Record<string, string> | null {
  const fields =
    r.status === 'applied'
      ? { saleId: r.saleId, refundId: r.refundId, by: r.appliedBy, at: r.appliedAt }
      : r.status === 'dismissed'
        ? { by: r.dismissedBy, why: r.why, at: r.dismissedAt }
        : {};
  const set = Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined);
  return set.length > 0 ? Object.fromEntries(set) : null;
}

async function memberTillRecords(redactor: LedgerRedactor, ref: MemberRef): Promise<Pick<HeldMemberData, 'tillReturns' | 'tillSales'>> {
  const returns = byTime(await collect(redactor.scanTillReturnsOf(ref.source, ref.code)));
  const sales = byTime(await collect(redactor.scanTillSalesOf(ref.source, ref.code)));
  return {
    tillReturns: returns.map((r) => ({
      returnId: r.returnId,
      status: r.status,
      storeId: r.storeId ?? null,
      terminalId: r.terminalId ?? null,
      occurredAt: r.occurredAt,
      amount: r.amount,
      currency: r.currency,
      lines: r.lines,
      recordedAt: r.createdAt,
      settled: settledOf(r),
    })),
    tillSales: sales.map((s) => ({ saleId: s.saleId, storeId: s.storeId, occurredAt: s.occurredAt, lines: s.lines })),
  };
}

/** Disclosure: everything the ledger table holds of the member. Changes nothing. */
export async function describeMemberData(deps: MemberPrivacyDeps, ref: MemberRef): Promise<HeldMemberData> {
  const redactor = createLedgerRedactor(deps);
  const orders: HeldMemberOrder[] = [];
  const found = await memberOrders(deps, ref);
  for (const order of found) {
    const refunds = await deps.ledger.listRefunds({ source: ref.source, orderId: order.orderId });
    orders.push({
      orderId: order.orderId,
      kind: kindOf(order.orderId),
      outcome: order.outcome ?? order.state,
      memberId: order.customerId ?? null,
      points: order.pointsCredited ?? order.pointsHint ?? null,
      recordedAt: order.createdAt ?? null,
      refunds: refunds.map((r) => ({ refundId: r.refundId, outcome: r.outcome ?? r.state, points: r.pointsDebited ?? null })),
      activity: deps.activity ? (await deps.activity.order(ref.source, order.orderId)).entries : [],
    });
  }
  const returns: HeldMemberData['returns'] = [];
  for await (const refund of redactor.scanRefundsOf(ref.source, 'unlinked'))
    if (redactor.refundCustomerId(refund) === ref.code)
      returns.push({ refundId: refund.refundId, outcome: refund.outcome ?? refund.state, recordedAt: refund.createdAt ?? null });
  const record = await deps.records.get({ source: ref.source, customerId: ref.code });
  return {
    source: ref.source,
    customerCode: ref.code,
    erased: await deps.ledger.isRedacted({ source: ref.source, customerId: ref.code }),
    orders,
    returns,
    ...(await memberTillRecords(redactor, ref)),
    enrolment: record ? { outcome: record.outcome ?? record.state, memberId: record.memberId ?? null } : null,
    tillMirrors: (await memberMirrors(deps, ref, found)).map((s) => ({
      marker: s.marker,
      state: s.state,
      points: s.points,
      smaregiCustomerId: s.smaregiCustomerId ?? null,
      recordedAt: s.createdAt,
    })),
  };
}

/** Erasure: the member's code out of every record that holds it, behind a tombstone. Idempotent. */
export async function eraseMember(deps: MemberPrivacyDeps, ref: MemberRef): Promise<MemberErasure> {
  const redactor = createLedgerRedactor(deps);
  const customer = { source: ref.source, customerId: ref.code };
  const kept = await deps.ledger.isRedacted(customer);
  // The tombstone first: a delivery processed meanwhile finds it and records nothing of the member.
  if (!kept) await deps.records.markRedacted(customer);
  const result: MemberErasure = {
    orders: 0,
    refunds: 0,
    returns: 0,
    tillReturns: 0,
    tillSales: 0,
    tillMirrors: 0,
    customers: 0,
    tombstone: kept ? 'kept' : 'new',
    busy: [],
  };
  const orders = await memberOrders(deps, ref);
  // Read before the orders are redacted (their member ids stay, but read first all the same).
  const mirrors = await memberMirrors(deps, ref, orders);
  for (const order of orders) {
    const done = await redactor.redactOrder(order);
    result.refunds += done.refunds;
    for (const refundId of done.busyRefunds) result.busy.push(`refund ${order.orderId}/${refundId}`);
    if (done.order) result.orders += 1;
    else result.busy.push(`order ${order.orderId}`);
  }
  for await (const refund of redactor.scanRefundsOf(ref.source, 'unlinked')) {
    if (redactor.refundCustomerId(refund) !== ref.code) continue;
    const done = await redactor.redactRefund(refund);
    if (done === 'busy') result.busy.push(`refund unlinked/${refund.refundId}`);
    else if (done) result.returns += 1;
  }
  // Read whole before writing: the scans are not disturbed by the records they found changing.
  for (const r of await collect(redactor.scanTillReturnsOf(ref.source, ref.code)))
    if (await redactor.redactTillReturn(r)) result.tillReturns += 1;
  for (const sale of await collect(redactor.scanTillSalesOf(ref.source, ref.code)))
    if (await redactor.redactTillSale(sale)) result.tillSales += 1;
  const steps = createTillMirrors({ client: deps.client, tableName: deps.tableName, clock: deps.clock });
  for (const step of mirrors) {
    if (step.redactedAt !== undefined && step.smaregiCustomerId === undefined) continue;
    if (await steps.redact(step)) result.tillMirrors += 1;
    else result.busy.push(`till mirror ${step.marker}`);
  }
  if (await redactor.deleteCustomerRecord(customer)) result.customers += 1;
  await redactor.deleteLinkMark({ source: ref.source, externalKey: ref.externalKey, externalId: ref.code });
  return result;
}
