import type { ProcessingSettings } from '../config/index.js';
import { queueMessageFor } from '../queue/index.js';
import type { RefundEvent } from '../events/index.js';

/**
 * Whether a refund was queued in its customer's FIFO group (a till's return names the customer), which is
 * where that customer's sale is queued too: the sale can then only be BEHIND the refund, so waiting for
 * it cannot help and would hold back the customer's later sales. `groupId` is the message's group.
 */
export function queuedWithItsPurchase(event: RefundEvent, groupId: string | undefined): boolean {
  return groupId !== undefined && event.customer !== null && queueMessageFor(event).groupId === groupId;
}

/**
 * How long a refund that arrived before its purchase is worth waiting for it: 0 when it shares its
 * purchase's group (parked at once; the sale picks it up when credited), else `refundWaitSeconds`
 * (a refund without customer sits in a group of its own).
 */
export function refundWaitMs(settings: Pick<ProcessingSettings, 'refundWaitSeconds'>, sharesPurchaseGroup: boolean): number {
  return sharesPurchaseGroup ? 0 : settings.refundWaitSeconds * 1000;
}
