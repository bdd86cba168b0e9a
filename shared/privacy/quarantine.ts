import type { QuarantineStore, QuarantineSummary } from '../quarantine/index.js';

/**
 * The quarantined deliveries a privacy request concerns. A quarantined body is one intake could not
 * read, so it is searched as text, not parsed: an entry concerns a customer when the order or refund
 * it names (`resource`) is one of the request's orders, or when its body names the customer where
 * Shopify's payloads do (`"customer":{"id":…`, `"customer_id":…`, `gid://shopify/Customer/…`, and the
 * customer topics' own `id`). An entry concerns a shop when its Shopify shop header names it.
 */

export type QuarantineScope =
  | { kind: 'customer'; source: string; customerId: string; orderIds: readonly string[] }
  | { kind: 'shop'; source: string; shopDomain: string };

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function customerPatterns(customerId: string): RegExp[] {
  const id = `"?${literal(customerId)}"?(?![0-9])`;
  return [
    new RegExp(`"customer"\\s*:\\s*\\{[^{}]{0,4096}?"id"\\s*:\\s*${id}`),
    new RegExp(`"customer_id"\\s*:\\s*${id}`),
    new RegExp(`gid://shopify/Customer/${literal(customerId)}(?![0-9])`),
  ];
}

/** The order a summary's resource hint names (`order 1`, `refund 2 of order 1`). */
function orderOf(resource: string | undefined): string | undefined {
  return /(?:^order |of order )([0-9]+)$/.exec(resource ?? '')?.[1];
}

function shopHeader(entry: QuarantineSummary): string | undefined {
  for (const [name, value] of Object.entries(entry.headers)) if (name.toLowerCase() === 'x-shopify-shop-domain') return value;
  return undefined;
}

/** The ids of the entries (not yet redacted) the scope concerns. */
export async function quarantinedEntriesOf(store: QuarantineStore, scope: QuarantineScope): Promise<string[]> {
  const entries = (await store.list()).filter((e) => e.source === scope.source && e.state !== 'redacted');
  if (scope.kind === 'shop') return entries.filter((e) => shopHeader(e) === scope.shopDomain).map((e) => e.id);
  const orders = new Set(scope.orderIds);
  const patterns = customerPatterns(scope.customerId);
  const found: string[] = [];
  for (const summary of entries) {
    const order = orderOf(summary.resource);
    const customerTopic = summary.topic?.startsWith('customers/') && summary.resource === `id ${scope.customerId}`;
    if ((order !== undefined && orders.has(order)) || customerTopic) {
      found.push(summary.id);
      continue;
    }
    if (!summary.bodyKept) continue;
    // One body in memory at a time, inflated within the store's cap.
    const body = (await store.get(summary.id))?.body;
    if (body === undefined) continue;
    const text = Buffer.from(body).toString('utf8');
    if (patterns.some((p) => p.test(text))) found.push(summary.id);
  }
  return found;
}
