import { randomUUID } from 'node:crypto';
import type { Customer, Step } from './step.js';
import type { SmaregiDemoAccess } from './target.js';
import type { WebhookRequest } from '../kit/webhooks/index.js';

/**
 * The demo's Smaregi till: a member's sale (¥11,000 including ¥1,000 tax), the same transaction
 * delivered again as `edited`, its void (取消), a second sale and its return-cancellation (返品取消); when
 * the stack's `tillPoints` is `membership`, a sale paid partly in points (300 spent at the till come off
 * the membership balance, beside what the sale earns) and its void (the 300 given back).
 * Smaregi's webhooks name transaction ids only, so each step first puts the transaction's state in the
 * Smaregi stand-in (as Smaregi would hold it), then delivers the thin webhook with the custom header.
 */

export async function seed(url: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${url}/__smaregi/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.body?.cancel();
  if (res.status !== 201) throw new Error(`the Smaregi stand-in at ${url} refused the demo's ${path} (${res.status})`);
}

export function webhook(access: SmaregiDemoAccess, action: string, ids: string[], eventId: string): WebhookRequest {
  const body = JSON.stringify({ contractId: access.contractId, event: 'pos:transactions', action, transactionHeadIds: ids });
  return {
    path: '/webhooks/smaregi',
    headers: {
      'content-type': 'application/json',
      'smaregi-event': 'pos:transactions',
      'smaregi-contract-id': access.contractId,
      'smaregi-event-id': eventId,
      [access.header]: access.secret,
    },
    body,
  };
}

/** A one-line transaction as Smaregi's API returns it (amounts as strings; tax inside the price). */
export function transaction(id: string, customerId: string, price: number, tax: number, now: number, extra: Record<string, unknown> = {}) {
  const at = new Date(now).toISOString();
  const s = (n: number) => String(n);
  return {
    transactionHeadId: id,
    transactionDateTime: at,
    transactionHeadDivision: '1',
    cancelDivision: '0',
    returnSales: '0',
    disposeDivision: '0',
    subtotal: s(price),
    total: s(price),
    taxInclude: s(tax),
    taxExclude: '0',
    customerId,
    updDateTime: at,
    details: [
      {
        transactionHeadId: id,
        transactionDetailId: '1',
        transactionDetailDivision: '1',
        taxDivision: '0',
        taxRate: '10',
        quantity: price < 0 ? '-1' : '1',
        unitDiscountedSum: s(price),
        taxIncludeProportional: s(tax),
        pointNotApplicable: '0',
        salesDivision: '0',
      },
    ],
    ...extra,
  };
}

export function smaregiSteps(
  buyer: Customer,
  credit: (amount: number) => number,
  access: SmaregiDemoAccess,
  runId: number,
  now: number,
): Step[] {
  const customerId = String(8_000 + (runId % 1000));
  const [sale, other, cancelling, paidInPoints] = [1, 2, 3, 4].map((n) => `${runId}${n}`) as [string, string, string, string];
  const event = (_n: number) => randomUUID();
  const put = (tx: unknown) => seed(access.url, 'transactions', tx);
  const member = () =>
    // The till's own record holds enough for the sale paid in points (Smaregi refuses a spend beyond it).
    seed(access.url, 'customers', { customerId, customerCode: buyer.externalId, lastName: 'デモ', firstName: buyer.label, point: '10000' });
  const first = credit(10_000);
  const second = credit(5_000);
  // ¥11,000 incl. ¥1,000 tax, 300 of it paid with points: the points paid earn nothing (pointsSpent discount).
  const earned = credit(9_700);
  const spent = 300;
  const pointsSale = (extra: Record<string, unknown> = {}) =>
    transaction(paidInPoints, customerId, 11_000, 1_000, now, {
      total: '10700',
      pointDiscount: String(spent),
      spendPoint: String(spent),
      details: [{ ...transaction(paidInPoints, customerId, 11_000, 1_000, now).details[0], discountPointProportional: String(spent) }],
      ...extra,
    });
  const step = (
    label: string,
    request: WebhookRequest,
    record: Step['record'],
    expected: Step['expected'],
    prepare: () => Promise<void>,
  ): Step => ({
    customer: buyer,
    label,
    request,
    record,
    expected,
    prepare,
  });
  return [
    step(
      'Smaregi sale ¥11,000 incl. ¥1,000 tax (created)',
      webhook(access, 'created', [sale], event(1)),
      { source: 'smaregi', orderId: sale },
      { kind: 'credited', points: first },
      async () => {
        await member();
        await put(transaction(sale, customerId, 11_000, 1_000, now));
      },
    ),
    step(
      'same transaction again, as edited',
      webhook(access, 'edited', [sale], event(2)),
      { source: 'smaregi', orderId: sale },
      { kind: 'duplicate' },
      async () => {},
    ),
    step(
      'Smaregi void (取消) of that sale',
      webhook(access, 'canceled', [sale], event(3)),
      { source: 'smaregi', orderId: sale, refundId: 'cancel' },
      { kind: 'debited', points: first },
      () => put(transaction(sale, customerId, 11_000, 1_000, now, { cancelDivision: '1' })),
    ),
    step(
      'Smaregi sale ¥5,500 incl. ¥500 tax',
      webhook(access, 'created', [other], event(4)),
      { source: 'smaregi', orderId: other },
      { kind: 'credited', points: second },
      () => put(transaction(other, customerId, 5_500, 500, now)),
    ),
    step(
      'its return-cancellation (返品取消): the new record',
      webhook(access, 'created', [cancelling], event(5)),
      { source: 'smaregi', orderId: other, refundId: 'cancel' },
      { kind: 'debited', points: second },
      async () => {
        await put(transaction(cancelling, customerId, -5_500, -500, now, { disposeDivision: '2', disposeServerTransactionHeadId: other }));
        await put(transaction(other, customerId, 5_500, 500, now, { disposeDivision: '1', disposeServerTransactionHeadId: cancelling }));
      },
    ),
    // One at a time: two messages racing for one order's lease would wait on the queue's clock.
    step(
      'the original, edited by the return-cancellation',
      webhook(access, 'edited', [other], event(6)),
      { source: 'smaregi', orderId: other, refundId: 'cancel' },
      { kind: 'duplicate' },
      async () => {},
    ),
    ...(access.tillPoints === 'membership'
      ? [
          step(
            `Smaregi sale ¥11,000 incl. ¥1,000 tax, ${spent} points spent at the till (tillPoints membership)`,
            webhook(access, 'created', [paidInPoints], event(7)),
            { source: 'smaregi', orderId: `${paidInPoints}/spend-1` },
            { kind: 'moved', outcome: 'debited', points: earned - spent },
            () => put(pointsSale()),
          ),
          step(
            `its void (取消): the ${spent} points given back, the ${earned} taken back`,
            webhook(access, 'canceled', [paidInPoints], event(8)),
            { source: 'smaregi', orderId: `${paidInPoints}/spend-1/back` },
            { kind: 'moved', outcome: 'credited', points: spent - earned },
            () => put(pointsSale({ cancelDivision: '1' })),
          ),
        ]
      : []),
  ];
}
