import type { ProcessingSettings } from '../config/index.js';
import type { RefundEvent } from '../events/index.js';

/**
 * Whether a refund was queued in its customer's FIFO group (a till's return names the customer), which is
 * where that customer's sale is queued too: the sale can then only be BEHIND the refund, so waiting for
 * it cannot help and would hold back the customer's later sales. `inEventGroup`: the consumer's word
 * that the message sits in the group its event was queued in (ProcessContext).
 */
export function queuedWithItsPurchase(event: RefundEvent, inEventGroup: boolean | undefined): boolean {
  return inEventGroup === true && event.customer !== null;
}

/**
 * How long a refund that arrived before its purchase is worth waiting for it: 0 when it shares its
 * purchase's group (parked at once; the sale picks it up when credited), else `refundWaitSeconds`
 * (a refund without customer sits in a group of its own).
 */
export function refundWaitMs(settings: Pick<ProcessingSettings, 'refundWaitSeconds'>, sharesPurchaseGroup: boolean): number {
  return sharesPurchaseGroup ? 0 : settings.refundWaitSeconds * 1000;
}
