import type { CustomerRecords } from '../shared/customers/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { type LedgerReport, recordLines } from './ledger-report.js';
import { jstIfInstant } from '../shared/time/index.js';

/**
 * `npm run ledger -- <source> --customer <id>`: what the bridge holds of one shop customer, next to
 * what the membership service says: the enrolment record (its outcome, the member it found or made),
 * the member holding the customer's external id now (linked or enrolled), and the orders still waiting
 * for the customer (ended `customer_not_found`, credited once the customer is linked or enrolled).
 */
export async function customerReport(
  deps: {
    ledger: Pick<Ledger, 'listUnlinkedOrders' | 'getOrder'>;
    records: Pick<CustomerRecords, 'get'>;
    openapi: Pick<OpenApiClient, 'getMemberByExternalId'>;
  },
  input: { source: string; externalKey: string; customerId: string },
): Promise<LedgerReport> {
  const { source, externalKey, customerId } = input;
  const lines = [`customer ${source} ${customerId} (external key ${externalKey})`];
  const record = await deps.records.get({ source, customerId });
  if (record) {
    lines.push('  enrolment record:', ...recordLines(record));
  } else lines.push('  enrolment record: none (never enrolled by the bridge)');

  const member = await memberOf(deps.openapi, externalKey, customerId);
  lines.push(
    member === undefined
      ? `  membership service: no member holds ${externalKey}=${customerId} (not linked, not enrolled)`
      : `  membership service: member ${member} holds ${externalKey}=${customerId}`,
  );

  const waiting = await deps.ledger.listUnlinkedOrders({ source, externalKey, externalId: customerId, since: '0000' });
  lines.push(`  orders waiting for this customer (customer_not_found): ${waiting.length === 0 ? 'none' : ''}`.trimEnd());
  for (const ref of waiting) {
    const order = await deps.ledger.getOrder(ref);
    lines.push(
      `    ${ref.orderId}  purchased ${order?.purchasedAt === undefined ? '-' : jstIfInstant(order.purchasedAt)}  ${order?.outcome ?? order?.state ?? 'gone'}`,
    );
  }
  return { found: record !== undefined || member !== undefined || waiting.length > 0, lines };
}

async function memberOf(openapi: Pick<OpenApiClient, 'getMemberByExternalId'>, externalKey: string, customerId: string) {
  try {
    return (await openapi.getMemberByExternalId(externalKey, customerId)).id;
  } catch (e) {
    // Not found is an answer; anything else (the service failing) is the operator's to see.
    if ((e as { kind?: string }).kind === 'member_not_found') return undefined;
    throw e;
  }
}
