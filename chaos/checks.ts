import type { Ledger, OrderRecord, RefundRecord } from '../shared/ledger/index.js';
import type { Mismatch, ObservedCustomer } from './compare.js';
import { upstreamReader } from './emulator-admin.js';
import { CHAOS_CLIENT } from './emulator-config.js';
import type { Model } from './model.js';
import type { UnfinishedEvent } from './report.js';
import type { Scenario } from './scenario.js';
import type { ChaosStack } from './stack.js';

/** A scripted customers' action's report (links, redactions, redemptions): what failed. */
type Reported = { report(): { failures: string[] } };

/**
 * What a run reads once the queue has drained: each customer's balance and history in the membership
 * service, each event's final outcome in the ledger, and the evidence behind an order that went wrong.
 */

export async function readUpstream(scenario: Scenario, model: Model, emulatorUrl: string): Promise<ObservedCustomer[]> {
  const reader = upstreamReader({ baseUrl: emulatorUrl, ...CHAOS_CLIENT });
  const observed: ObservedCustomer[] = [];
  for (const index of model.customers.keys()) {
    const customer = scenario.customers[index];
    if (!customer) continue;
    const member = await reader.memberByExternalId('shopify', customer.shopifyId);
    observed.push({
      index,
      balance: member?.point ?? null,
      history: member ? await reader.history(member.id) : [],
    });
  }
  return observed;
}

const FINAL_ORDER_STATES = new Set(['done']);

/**
 * A refund left parked for the moment (`before_earn`) of an order that has earned: nothing would ever debit
 * it, and the member keeps its share (seed 10: 172 points high). Named apart from other unfinished refunds.
 */
export function parkedOnEarnedOrder(
  refund: Pick<RefundRecord, 'state' | 'reason'> | undefined,
  order: Pick<OrderRecord, 'state' | 'outcome'> | undefined,
): string | undefined {
  const beforeEarn = refund?.state === 'parked' && (refund.reason ?? '').startsWith('before_earn');
  if (!beforeEarn || order?.state !== 'done' || order.outcome !== 'credited') return undefined;
  return `refund parked before_earn on an earned order (${refund.reason})`;
}

export async function checkLedger(
  scenario: Scenario,
  model: Model,
  ledger: Ledger,
): Promise<{ unfinished: UnfinishedEvent[]; mismatches: Mismatch[]; outcomes: Record<string, number> }> {
  const unfinished: UnfinishedEvent[] = [];
  const mismatches: Mismatch[] = [];
  const outcomes: Record<string, number> = {};
  const count = (name: string): void => {
    outcomes[name] = (outcomes[name] ?? 0) + 1;
  };
  for (const event of scenario.events) {
    if (event.kind === 'purchase') {
      const record: OrderRecord | undefined = await ledger.getOrder({ source: event.source, orderId: event.orderId });
      if (event.test) {
        // Test orders are answered "ignored" by intake and never queued (testOrders "ignore").
        count(record?.outcome ?? 'ignored_test');
        continue;
      }
      if (!record || !FINAL_ORDER_STATES.has(record.state) || !record.outcome) {
        unfinished.push({
          key: event.key,
          why: record ? `order state ${record.state}, ${record.lastError ?? 'no error'}` : 'no ledger record',
        });
        continue;
      }
      count(`purchase ${record.outcome}`);
      const expected = model.orders.get(event.orderId);
      // Refunded in full before it shipped: a provisional order never earns (provisional.ts).
      const neverEarned = expected?.provisional === true && expected.fullyRefunded && record.outcome === 'not_earned';
      if (expected?.credited && record.outcome !== 'credited' && !neverEarned) {
        mismatches.push({
          customer: event.customer,
          orderId: event.orderId,
          what: `purchase outcome ${record.outcome}, expected credited`,
        });
      }
      if (expected && !expected.credited && record.outcome === 'credited') {
        mismatches.push({ customer: event.customer, orderId: event.orderId, what: 'purchase credited, expected no credit' });
      }
    } else {
      const record: RefundRecord | undefined = await ledger.getRefund({
        source: event.source,
        orderId: event.orderId,
        refundId: event.refundId,
      });
      // A refund of an order whose customer is no member waits (then is parked) for the customer to be linked.
      const ledgerOrder = await ledger.getOrder({ source: event.source, orderId: event.orderId });
      const awaitsLink = ledgerOrder?.state === 'done' && ledgerOrder.outcome === 'customer_not_found';
      const final =
        record !== undefined &&
        record.outcome !== undefined &&
        (record.state === 'done' || (record.state === 'parked' && (event.orphan || awaitsLink)));
      const stranded = parkedOnEarnedOrder(record, ledgerOrder);
      if (stranded) mismatches.push({ customer: event.customer, orderId: event.orderId, what: `refund ${event.refundId}: ${stranded}` });
      if (!final) {
        unfinished.push({
          key: event.key,
          why: stranded
            ? stranded
            : record
              ? `refund state ${record.state}${record.outcome ? ` (${record.outcome})` : ''}, ${record.lastError ?? 'no error'}`
              : 'no ledger record',
        });
        continue;
      }
      count(`refund ${record.outcome}`);
      // Provisional orders (provisional.ts): which refunds came before the moment (debited at it, unless never earned).
      if (ledgerOrder?.refundsBeforeEarn[event.refundId]) count('refund before the moment');
      const order = model.orders.get(event.orderId);
      const notEarned = ledgerOrder?.outcome === 'not_earned';
      const expected = event.orphan || awaitsLink ? 'refund_parked' : order?.credited && !notEarned ? 'debited' : 'skipped';
      if (record.outcome !== expected) {
        mismatches.push({
          customer: event.customer,
          orderId: event.orderId,
          what: `refund ${event.refundId} outcome ${record.outcome}, expected ${expected}`,
        });
      }
    }
  }
  return { unfinished, mismatches, outcomes };
}

/** What a reader needs to see why an order went wrong: its events, deliveries, history entries and ledger records. */
export async function collectEvidence(
  scenario: Scenario,
  observed: ObservedCustomer[],
  ledger: Ledger,
  orderIds: string[],
): Promise<string[]> {
  const lines: string[] = [];
  const orders = [...new Set(orderIds)];
  for (const orderId of orders.slice(0, 10)) {
    const events = scenario.events.filter((e) => e.orderId === orderId);
    const source = events[0]?.source ?? 'shopify';
    lines.push(`order ${orderId} (${source}):`);
    for (const e of events) {
      lines.push(
        e.kind === 'purchase'
          ? `  event purchase amount ${e.amount} customer ${e.customer ?? '-'}${e.test ? ' test' : ''}`
          : `  event refund ${e.refundId} amount ${e.amount}${e.cancel ? ' cancel' : ''}${e.orphan ? ' orphan' : ''}`,
      );
    }
    const positions = scenario.deliveries.flatMap((d, i) =>
      scenario.events[d.event]?.orderId === orderId
        ? [`${i}:${scenario.events[d.event]?.kind}${d.fulfilment ? '(fulfilled)' : d.partial ? `(shipped ${d.partial}/3)` : ''}/${d.kind}`]
        : [],
    );
    lines.push(`  deliveries ${positions.join(' ')}`);
    for (const customer of observed) {
      for (const entry of customer.history) {
        if (`${entry.remarks ?? ''}`.includes(orderId)) {
          lines.push(`  history customer ${customer.index}: ${entry.id} ${entry.point} ${entry.remarks ?? ''}`);
        }
      }
    }
    const order = await ledger.getOrder({ source, orderId });
    lines.push(`  ledger order ${JSON.stringify(order)}`);
    for (const e of events) {
      if (e.kind !== 'refund') continue;
      const refund = await ledger.getRefund({ source, orderId, refundId: e.refundId });
      if (refund) {
        const { event: _event, ...rest } = refund;
        lines.push(`  ledger refund ${JSON.stringify(rest)}`);
      }
    }
  }
  return lines;
}

/** The customers' actions that failed and the messages left in the dead-letter list. */
export function failuresOf(
  {
    links,
    redactions,
    redemptions,
    stack,
  }: { links: Reported; redactions: Reported; redemptions: Reported; stack: Pick<ChaosStack, 'queue'> },
  redrive: boolean,
): UnfinishedEvent[] {
  const unfinished: UnfinishedEvent[] = [];
  for (const failure of links.report().failures) unfinished.push({ key: 'link', why: failure });
  for (const failure of redactions.report().failures) unfinished.push({ key: 'redaction', why: failure });
  for (const failure of redemptions.report().failures) unfinished.push({ key: 'redemption', why: failure });
  for (const letter of stack.queue.deadLetters()) {
    const eventId = (JSON.parse(letter.body) as { eventId?: string }).eventId ?? letter.messageId;
    unfinished.push({
      key: eventId,
      why: `in the dead-letter list${redrive ? ' after redrives' : ''}${letter.lastError ? `: ${letter.lastError}` : ''}`,
    });
  }
  return unfinished;
}
