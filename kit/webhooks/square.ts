import { signSquare } from '../senders.js';
import type { WebhookRequest } from './webhooks.js';

/**
 * Square webhook requests as Square builds them (the shape of its API reference's PaymentUpdatedEvent
 * and RefundUpdatedEvent examples, money in integer minor units), signed with the subscription's
 * signature key over the notification URL + body.
 */

export interface SquareSigning {
  key: string;
  notificationUrl: string;
}

export interface SquarePaymentInput {
  paymentId: string;
  /** Square customer id; null: not (yet) matched to a customer. */
  customerId: string | null;
  status: 'APPROVED' | 'PENDING' | 'COMPLETED' | 'CANCELED' | 'FAILED';
  /** Integer minor units (yen for JPY). */
  amount: number;
  tip: number;
  currency: string;
}

function request(body: unknown, signing: SquareSigning): WebhookRequest {
  const text = JSON.stringify(body);
  return {
    path: '/webhooks/square',
    headers: {
      'content-type': 'application/json',
      'x-square-hmacsha256-signature': signSquare(text, signing.key, signing.notificationUrl),
    },
    body: text,
  };
}

export function squarePayment(
  type: 'payment.created' | 'payment.updated',
  p: SquarePaymentInput,
  signing: SquareSigning,
  eventId: string,
  nowMs: number,
): WebhookRequest {
  const at = new Date(nowMs).toISOString();
  const money = (amount: number) => ({ amount, currency: p.currency });
  const payment = {
    id: p.paymentId,
    created_at: at,
    updated_at: at,
    amount_money: money(p.amount),
    tip_money: money(p.tip),
    total_money: money(p.amount + p.tip),
    approved_money: money(p.amount + p.tip),
    status: p.status,
    source_type: 'CARD',
    location_id: 'L-DEMO',
    order_id: `O-${p.paymentId}`,
    ...(p.customerId === null ? {} : { customer_id: p.customerId }),
  };
  return request(
    { merchant_id: 'M-DEMO', type, event_id: eventId, created_at: at, data: { type: 'payment', id: p.paymentId, object: { payment } } },
    signing,
  );
}

export interface SquareRefundInput {
  refundId: string;
  paymentId: string;
  status: 'PENDING' | 'COMPLETED' | 'REJECTED' | 'FAILED';
  amount: number;
  currency: string;
}

export function squareRefund(
  type: 'refund.created' | 'refund.updated',
  r: SquareRefundInput,
  signing: SquareSigning,
  eventId: string,
  nowMs: number,
): WebhookRequest {
  const at = new Date(nowMs).toISOString();
  const refund = {
    id: r.refundId,
    status: r.status,
    amount_money: { amount: r.amount, currency: r.currency },
    payment_id: r.paymentId,
    order_id: `O-${r.paymentId}`,
    location_id: 'L-DEMO',
    created_at: at,
    updated_at: at,
  };
  return request(
    { merchant_id: 'M-DEMO', type, event_id: eventId, created_at: at, data: { type: 'refund', id: r.refundId, object: { refund } } },
    signing,
  );
}
