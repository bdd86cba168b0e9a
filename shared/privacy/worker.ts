import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CustomerRecords } from '../customers/index.js';
import { PrivacyEvent, type PrivacyFigures } from '../events/index.js';
import { createLedgerRedactor, type Ledger } from '../ledger/index.js';
import { type ProcessOutcome, type Processor, withTypedEvents } from '../points/index.js';
import type { QuarantineStore } from '../quarantine/index.js';
import { type LedgerRedaction, redactCustomerRecords, redactShopRecords } from './ledger.js';
import { type QuarantineScope, quarantinedEntriesOf } from './quarantine.js';
import { describeCustomerData } from './report.js';
import { type PrivacyRequestRecord, type PrivacyRequests, REPORT_TTL_DAYS } from '../ledger/index.js';

/** What the worker needs to act on privacy requests. */
export interface PrivacyDeps {
  client: DynamoDBDocumentClient;
  tableName: string;
  ledger: Pick<Ledger, 'listUnlinkedOrders' | 'getOrder' | 'listRefunds'>;
  records: Pick<CustomerRecords, 'get' | 'markRedacted'>;
  quarantine: QuarantineStore;
  requests: PrivacyRequests;
  /** How long a redaction's record is kept (the ledger's retention): the shop's proof it was done. */
  ledgerTtlDays: number;
  clock: () => number;
  /** The invocation's time left: a shop's redaction stops in time and goes on when retried. */
  remainingMs?: () => number | undefined;
  logger?: { info(message: string, fields?: Record<string, unknown>): void };
}

/**
 * The worker's processor for privacy requests, everything else to `next`. `deps` undefined: privacy
 * requests cannot be processed in this setup (answered configuration_error, retried, never dropped).
 */
export function withPrivacyEvents(next: Processor, deps: PrivacyDeps | undefined): Processor {
  return withTypedEvents(next, {
    type: 'privacy',
    schema: PrivacyEvent,
    deps,
    needs: 'the quarantine table',
    process: processPrivacyEvent,
  });
}

/** Acts on one request, records what it did; retried while a record it must change is being processed. */
export async function processPrivacyEvent(deps: PrivacyDeps, event: PrivacyEvent): Promise<ProcessOutcome> {
  if (event.action !== 'redact_shop' && event.customer === null) {
    return { kind: 'invalid_event', action: 'retry', reason: `customer: a ${event.delivery.topic} request names its customer` };
  }
  if (event.action === 'report_customer') return report(deps, event);
  const redaction =
    event.action === 'redact_shop'
      ? await redactShopRecords(deps, { source: event.source, shopDomain: event.shopDomain, unattributed: event.soleShop === true })
      : await redactCustomerRecords(deps, { ...customerOf(event), orderIds: event.orderIds });
  if (redaction.stopped) {
    const done = `${redaction.orders} order(s) and ${redaction.customers} customer record(s) this pass`;
    return { kind: 'redaction_continues', action: 'retry', reason: `${event.delivery.topic}: ${done}; the retry goes on` };
  }
  // Redemption records name the shop customer too (their key): moved to a key naming none (shared/ledger/redaction).
  const records = createLedgerRedactor(deps);
  const redemptions =
    event.action === 'redact_shop'
      ? await records.redactShopRedemptions({ source: event.source, shopDomain: event.shopDomain, unattributed: event.soleShop === true })
      : await records.redactCustomerRedemptions(customerOf(event));
  if (redaction.busy.length + redemptions.busy.length > 0) return busy({ ...redaction, busy: [...redaction.busy, ...redemptions.busy] });
  const entries = await quarantinedEntriesOf(deps.quarantine, quarantineScope(event));
  for (const id of entries) await deps.quarantine.redact(id, event.delivery.topic);
  const figures = {
    orders: redaction.orders,
    refunds: redaction.refunds,
    customers: redaction.customers,
    quarantined: entries.length,
    redemptions: redemptions.redemptions,
  };
  await deps.requests.save(recordOf(deps, event, 'redacted', figures), deps.ledgerTtlDays);
  deps.logger?.info('privacy request done', { id: event.eventId, action: event.action, ...figures });
  return { kind: 'redacted', action: 'ack', figures };
}

async function report(deps: PrivacyDeps, event: PrivacyEvent): Promise<ProcessOutcome> {
  const quarantined = await quarantinedEntriesOf(deps.quarantine, quarantineScope(event));
  const held = await describeCustomerData(deps, { ...customerOf(event), orderIds: event.orderIds, quarantined });
  const figures = {
    orders: held.orders.length,
    refunds: held.orders.reduce((n, o) => n + o.refunds.length, 0),
    customers: held.enrolment ? 1 : 0,
    quarantined: quarantined.length,
  };
  await deps.requests.save({ ...recordOf(deps, event, 'reported', figures), report: JSON.stringify(held) }, REPORT_TTL_DAYS);
  // The operator answers the shop from the record (npm run privacy -- show <id>): the log names no customer.
  deps.logger?.info('privacy data request recorded', { id: event.eventId, requestId: event.requestId, ...figures });
  return { kind: 'reported', action: 'ack', figures };
}

function customerOf(event: PrivacyEvent): { source: string; externalKey: string; customerId: string } {
  // Checked by processPrivacyEvent: only shop/redact comes without a customer.
  const customer = event.customer ?? { externalKey: event.source, externalId: '' };
  return { source: event.source, externalKey: customer.externalKey, customerId: customer.externalId };
}

/** The quarantined deliveries a request concerns: its shop's, or its customer's and their orders'. */
function quarantineScope(event: PrivacyEvent): QuarantineScope {
  if (event.action === 'redact_shop') return { kind: 'shop', source: event.source, shopDomain: event.shopDomain };
  return { kind: 'customer', source: event.source, customerId: customerOf(event).customerId, orderIds: event.orderIds };
}

function busy(redaction: LedgerRedaction): ProcessOutcome {
  const first = redaction.busy.slice(0, 3).join(', ');
  return {
    kind: 'lease_held',
    action: 'retry',
    reason: `${redaction.busy.length} record(s) being processed (${first}): redaction retried`,
  };
}

function recordOf(
  deps: PrivacyDeps,
  event: PrivacyEvent,
  outcome: PrivacyRequestRecord['outcome'],
  figures: PrivacyFigures,
): Omit<PrivacyRequestRecord, 'pk' | 'kind' | 'ttl'> {
  return {
    id: event.eventId,
    source: event.source,
    action: event.action,
    topic: event.delivery.topic,
    shopDomain: event.shopDomain,
    ...(event.requestId ? { requestId: event.requestId } : {}),
    orderIds: event.orderIds,
    ...(event.occurredAt ? { occurredAt: event.occurredAt } : {}),
    finishedAt: new Date(deps.clock()).toISOString(),
    outcome,
    figures,
  };
}
