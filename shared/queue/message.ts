import { createHash } from 'node:crypto';
import type { QueuedEvent, TillMirrorEvent } from '../events/index.js';
import type { QueueMessage } from './types.js';

// SQS FIFO: group and deduplication ids are 1-128 characters of letters, digits and punctuation.
const SQS_ID = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

/** The id as is when SQS accepts it (readable in the console), else a stable hash of it. */
function sqsId(source: string, id: string): string {
  const plain = `${source}:${id}`;
  return SQS_ID.test(plain) ? plain : `${source}:sha256:${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * The FIFO group of an event: source + customer, so one customer's events are processed in order; an
 * event without a customer (a Smaregi transaction, named by its id only) by its order, so a till's
 * receipts are as many groups as transactions and run side by side, while one transaction's sale and
 * later edits keep their order. No wider: SQS FIFO fills a batch from one group first, and a deep group
 * is worked one message at a time (issue 54).
 */
export function messageGroupId(source: string, customer: { externalKey: string; externalId: string } | null, orderId: string): string {
  return sqsId(source, customer ? `${customer.externalKey}:${customer.externalId}` : `order:${orderId}`);
}

/**
 * The queue message of an event: its group (messageGroupId). Deduplication: source + delivery id, so
 * a sender's retry of one delivery within SQS's 5-minute window is dropped by SQS itself.
 */
export function queueMessageFor(event: QueuedEvent): QueueMessage {
  return {
    body: JSON.stringify(event),
    groupId: messageGroupId(event.source, event.customer, 'orderId' in event ? event.orderId : event.eventId),
    deduplicationId: sqsId(event.source, event.delivery.id),
  };
}

/** A till mirror's message: one member's mirrors in one group, in order; one step's copies collapse. */
export function tillMirrorMessage(event: TillMirrorEvent): QueueMessage {
  return {
    body: JSON.stringify(event),
    groupId: sqsId(event.source, `member:${event.memberId}`),
    deduplicationId: sqsId(event.source, event.delivery.id),
  };
}
