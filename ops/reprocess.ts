import type { ProcessingSettings } from '../shared/config/index.js';
import { creditEarlierPurchases } from '../shared/customers/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { createProcessor } from '../shared/points/index.js';

export interface ReprocessInput {
  source: string;
  /** The source's customer id (Shopify: the customer's numeric id). */
  customer: string;
  /** The membership external key of the source; default: the source's name (`shopify`). */
  externalKey: string;
  days: number;
}

/**
 * `npm run reprocess -- --source shopify --customer ID [--days N]`: credits, once, the customer's
 * purchases of the last N days (default 30) that found no member, as linking or enrolling does; their
 * waiting refunds follow. Safe to run again: a credited order is never credited twice.
 * It processes with the settings the stage's worker uses (insufficient points, lease, retention), never defaults of its own.
 */
export async function reprocessCustomer(
  handle: { ledger: Ledger; openapi: OpenApiClient; processing: ProcessingSettings },
  input: ReprocessInput,
  print: (line: string) => void,
): Promise<number> {
  const clock = Date.now;
  const processor = createProcessor({ ledger: handle.ledger, openapi: handle.openapi, settings: handle.processing, clock });
  const tally = await creditEarlierPurchases(
    { ledger: handle.ledger, processor, clock },
    { source: input.source, externalKey: input.externalKey, externalId: input.customer, days: input.days },
  );
  print(
    `customer ${input.source} ${input.customer}: ${tally.credited} earlier order(s) credited (+${tally.points} points), ` +
      `${tally.notFound} still without a member, ${tally.pending} to try again`,
  );
  return tally.pending > 0 ? 1 : 0;
}
