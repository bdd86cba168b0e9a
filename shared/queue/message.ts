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
 * The queue message of an event. Group: source + customer, so one customer's events are processed
 * in order (an event without a customer groups by its order). Deduplication: source + delivery id,
 * so a sender's retry of one delivery within SQS's 5-minute window is dropped by SQS itself.
 */
export function queueMessageFor(event: QueuedEvent): QueueMessage {
  const customer = event.customer
    ? `${event.customer.externalKey}:${event.customer.externalId}`
    : `order:${'orderId' in event ? event.orderId : event.eventId}`;
  return {
    body: JSON.stringify(event),
    groupId: sqsId(event.source, customer),
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
