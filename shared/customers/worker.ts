import { CustomerEvent } from '../events/index.js';
import type { Ledger } from '../ledger/index.js';
import { type ProcessContext, type ProcessOutcome, type Processor, withTypedEvents } from '../points/index.js';
import { type EnrolApi, type EnrolResult, enrolCustomer } from './enrol.js';
import type { CustomerRecords } from '../ledger/index.js';
import { creditEarlierPurchases, type EarlierCredits } from './retro.js';

/** What the worker needs for customer events, beside the points processor. */
export interface CustomerEventDeps {
  records: CustomerRecords;
  openapi: EnrolApi;
  ledger: Pick<Ledger, 'listUnlinkedOrders' | 'getOrder' | 'leaveUnlinkedIndex' | 'markCustomerLinked'>;
  clock: () => number;
  logger?: { warn(message: string, fields?: Record<string, unknown>): void };
}

/**
 * The worker's processor for everything the queue carries: customer events (enrol, linked) here,
 * points events to the points processor. `deps` undefined: customer events cannot be processed in this
 * setup (answered configuration_error, retried, never dropped).
 */
export function withCustomerEvents(points: Processor, deps: CustomerEventDeps | undefined): Processor {
  return withTypedEvents(points, {
    type: 'customer',
    schema: CustomerEvent,
    deps,
    needs: 'the customer records',
    process: (customerDeps, event, context) => processCustomerEvent({ ...customerDeps, processor: points }, event, context),
  });
}

/** Enrol (when asked), then credit the customer's earlier purchases; retried until both are done. */
export async function processCustomerEvent(
  deps: CustomerEventDeps & { processor: Pick<Processor, 'creditLinkedPurchase'> },
  event: CustomerEvent,
  context?: ProcessContext,
): Promise<ProcessOutcome> {
  const { customer } = event;
  let enrolled: Done | undefined;
  if (event.action === 'enrol') {
    const result = await enrolCustomer(deps, {
      source: event.source,
      externalKey: customer.externalKey,
      customerId: customer.externalId,
      shopDomain: event.delivery.shopDomain,
    });
    if (result.action === 'retry') return retryOutcome(result);
    // Erased by customers/redact: nothing is enrolled or credited again (a replayed customers/create).
    if (result.kind === 'redacted') return { kind: 'skipped', action: 'ack', reason: 'customer_redacted' };
    if (result.kind === 'enrol_rejected') return { kind: 'enrol_rejected', action: 'ack', reason: result.reason ?? 'refused' };
    enrolled = result.kind === 'duplicate' ? result : { kind: result.kind, memberId: result.memberId ?? '' };
  }
  const { handOver, ...earlier } = await creditEarlierPurchases(
    deps,
    { source: event.source, externalKey: customer.externalKey, externalId: customer.externalId, days: event.retroCreditDays },
    context,
  );
  const action = earlier.pending > 0 ? 'retry' : 'ack';
  const next = handOver ? { next: { handOver } } : {};
  if (!enrolled) return { kind: 'linked', action, earlier, ...next };
  if (enrolled.kind === 'duplicate') return { kind: 'duplicate', action, previous: enrolled.previous, earlier, ...next };
  return { kind: enrolled.kind, action, memberId: enrolled.memberId, earlier, ...next };
}

/** How an enrolment ended, when it did. */
type Done = { kind: 'enrolled' | 'already_member'; memberId: string } | { kind: 'duplicate'; previous: string };

function retryOutcome(result: Extract<EnrolResult, { action: 'retry' }>): ProcessOutcome {
  switch (result.kind) {
    case 'lease_held':
    case 'lease_lost':
      return { kind: result.kind, action: 'retry', reason: result.reason };
    case 'outcome_unknown':
      // The register call may still land: the lease is kept until it runs out (enrol.ts).
      return { kind: 'outcome_unknown', action: 'retry', errorKind: 'enrolment', reason: result.reason, leaseKept: true };
    default:
      return { kind: result.kind, action: 'retry', errorKind: 'enrolment', reason: result.reason };
  }
}

export type { EarlierCredits };
