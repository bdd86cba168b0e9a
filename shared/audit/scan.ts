import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OrderRecord, RefundRecord, scanOrdersAndRefunds, type TimeRange } from '../ledger/index.js';
import { UnreadableRecordError } from './errors.js';

export type { TimeRange } from '../ledger/index.js';

export interface LedgerRecords {
  orders: OrderRecord[];
  refunds: RefundRecord[];
  /** Records off their schema, when the caller keeps going past them (`keepUnreadable`). */
  unreadable?: { pk: string; reason: string }[];
}

/**
 * Every order and refund record created (or first seen) in the range, read by the ledger's paginated
 * Scan (shared/ledger/scans.ts: the table has only a partition key, so it reads the whole table).
 */
export async function scanLedger(
  client: Pick<DynamoDBDocumentClient, 'send'>,
  tableName: string,
  range: TimeRange = {},
  onPage?: (items: number) => void,
  /** true: an unreadable record is listed (`unreadable`) instead of ending the scan (the console shows it as a row). */
  options: { keepUnreadable?: boolean } = {},
): Promise<LedgerRecords> {
  const out: LedgerRecords = { orders: [], refunds: [], ...(options.keepUnreadable ? { unreadable: [] } : {}) };
  for await (const items of scanOrdersAndRefunds(client, tableName, range)) {
    for (const item of items) {
      const schema = item.kind === 'order' ? OrderRecord : RefundRecord;
      const parsed = schema.safeParse(item);
      if (!parsed.success) {
        const reason = parsed.error.issues[0]?.message ?? 'invalid';
        if (!options.keepUnreadable) throw new UnreadableRecordError(String(item.pk), reason);
        out.unreadable?.push({ pk: String(item.pk), reason });
        continue;
      }
      if (parsed.data.kind === 'order') out.orders.push(parsed.data);
      else out.refunds.push(parsed.data);
    }
    onPage?.(items.length);
  }
  return out;
}
