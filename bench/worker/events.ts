import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { PurchaseEvent, RefundEvent } from '../../shared/events/index.js';

/** The bench's emulator clients and members, and the events it sends, shaped as the queue delivers them. */

export const CLIENT = { id: 'bench-worker', secret: 'bench-worker-secret' };
export const RATE_CLIENT = { id: 'bench-rate', secret: 'bench-rate-secret' };
export const RATE_BUDGET = 2000;

export function members(prefix: string, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    login_id: `${prefix}-${i}`,
    password: 'bench-pass',
    rank: i % 4 === 0 ? 'gold' : 'regular',
    external_ids: { shopify: `${prefix}${100_000 + i}` },
  }));
}

export function benchConfig(memberCount: number, rateMembers: number, now: string): unknown {
  const client = (c: { id: string; secret: string }, list: unknown[]) => ({
    client_id: c.id,
    client_secrets: [c.secret],
    ranks: { regular: 0.01, gold: 0.05 },
    external_keys: ['shopify', 'pos_card'],
    members: list,
  });
  return {
    now,
    clients: [client(CLIENT, members('w', memberCount)), client(RATE_CLIENT, members('r', rateMembers))],
  };
}

export let orderSeq = 0;
export function purchase(externalId: string, amount = 1000 + (orderSeq % 500)): PurchaseEvent {
  const orderId = `b${++orderSeq}`;
  return {
    type: 'purchase',
    eventId: `shopify:order:${orderId}`,
    source: 'shopify',
    orderId,
    customer: { externalKey: 'shopify', externalId },
    currency: 'USD',
    occurredAt: '2026-01-15T10:00:00+00:00',
    pointTitle: `Purchase #${orderId}`,
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'orders/paid', receivedAt: new Date().toISOString() },
    eligibleAmount: amount,
    expiryDays: null,
  };
}

export function refund(of: PurchaseEvent, refundId: string, amount: number): RefundEvent {
  return {
    type: 'refund',
    eventId: `shopify:refund:${of.orderId}:${refundId}`,
    source: of.source,
    orderId: of.orderId,
    refundId,
    customer: of.customer,
    currency: of.currency,
    occurredAt: of.occurredAt,
    pointTitle: `Refund #${of.orderId}`,
    test: false,
    delivery: { id: `d-${of.orderId}-${refundId}`, topic: 'refunds/create', receivedAt: new Date().toISOString() },
    refundAmount: amount,
    refundsRemainder: false,
  };
}

/** An SQS FIFO record as the event source mapping delivers it (what the handler really parses). */
/** The event as one SQS record; `receiveCount`: which delivery of the message it is (1 for the first). */
export function sqsEvent(event: PurchaseEvent | RefundEvent, receiveCount = 1): SQSEvent {
  const record: SQSRecord = {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body: JSON.stringify(event),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDABENCH',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      SequenceNumber: String(orderSeq).padStart(20, '0'),
      MessageGroupId: `${event.source}:${event.customer?.externalKey}:${event.customer?.externalId}`,
      MessageDeduplicationId: `${event.source}:${event.delivery.id}`,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench.fifo',
    awsRegion: 'us-east-1',
  };
  return { Records: [record] };
}
