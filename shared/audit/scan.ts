import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OrderRecord, RedemptionRecord, RefundRecord, scanOrdersAndRefunds, type TimeRange } from '../ledger/index.js';
import { UnreadableRecordError } from './errors.js';

export type { TimeRange } from '../ledger/index.js';

export interface LedgerRecords {
  orders: OrderRecord[];
  refunds: RefundRecord[];
  /** Members of the redemptions in range (`redemptionMembers`): their histories are read for duplicates too. */
  members?: string[];
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
  /**
   * keepUnreadable: an unreadable record is listed (`unreadable`) instead of ending the scan (the console
   * shows it as a row). redemptionMembers: the members of the redemptions in range are listed (`members`).
   */
  options: { keepUnreadable?: boolean; redemptionMembers?: boolean } = {},
): Promise<LedgerRecords> {
  const out: LedgerRecords = { orders: [], refunds: [], ...(options.keepUnreadable ? { unreadable: [] } : {}) };
  const members = new Set<string>();
  for await (const items of scanOrdersAndRefunds(client, tableName, range, { redemptions: options.redemptionMembers === true })) {
    for (const item of items) {
      if (item.kind === 'redemption') {
        // Only its member matters here: redemptions are checked against their own records elsewhere.
        const redemption = RedemptionRecord.safeParse(item);
        if (redemption.success) members.add(redemption.data.memberId);
        continue;
      }
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
  if (options.redemptionMembers) out.members = [...members];
  return out;
}
