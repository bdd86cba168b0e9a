import type { Ledger } from '../shared/ledger/index.js';
import type { EventQueue } from '../shared/queue/index.js';
import type { ShopifyAdminClient } from '../shared/sources/shopify/index.js';
import type { ConfiguredSource } from '../shared/sources/index.js';

/** What one run reads and writes: the shop, the ledger, the queue, and how to let go of them. */
export interface ReconcileTarget {
  client: ShopifyAdminClient;
  ledger: Ledger;
  queue: EventQueue;
  source: ConfiguredSource;
  shopDomain: string;
  close(): Promise<void>;
}
