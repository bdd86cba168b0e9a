import type { CustomerEvent } from '../events/index.js';

/**
 * The queued consequence of a new link: the customer's earlier purchases that found no member are
 * credited by the worker, in the customer's FIFO group (after any of their orders already queued).
 * Its id is the link itself (customer and member), so copies of one link's event collapse.
 */
export function linkedEvent(input: {
  source: string;
  externalKey: string;
  customerId: string;
  memberId: string;
  retroCreditDays: number;
  nowMs: number;
}): CustomerEvent {
  const eventId = `${input.source}:customer:${input.customerId}:linked`;
  return {
    type: 'customer',
    eventId,
    source: input.source,
    action: 'linked',
    customer: { externalKey: input.externalKey, externalId: input.customerId },
    occurredAt: new Date(input.nowMs).toISOString(),
    retroCreditDays: input.retroCreditDays,
    delivery: { id: `${eventId}:${input.memberId}`, topic: 'app_proxy/link' },
  };
}
