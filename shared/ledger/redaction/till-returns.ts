import { LEDGER_TABLE_SCHEMA } from '../../config/index.js';
import { isConditionFailure, scanKeyPrefix, UpdateCommand } from '../../dynamodb/index.js';
import { TillReturnRecord, TillSaleRecord } from '../till-returns.js';
import { type RedactionTable, redactItem } from './item.js';

/**
 * What an in-store member's erase takes from the till records (till-returns.ts): the member's code, and
 * the index keys that find a sale by its member (`till-sale#<source>#<member>#<store>`), so no later
 * return is matched with it. Ids, store, terminal, time, amounts, products and how a return was settled
 * stay. An open return is dismissed by the same write (`privacy-erase`): nobody is left to take its
 * points from, and an operator could no longer apply it. Till records hold no lease: nothing is busy.
 */

const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
const PERSONAL = ['externalId', index.partitionKey, index.sortKey] as const;

/** Who the dismissal of an erased member's open return names, and why. */
export const ERASED_RETURN_DISMISSAL = { by: 'privacy-erase', why: 'the member was erased (npm run privacy -- smaregi erase)' } as const;

async function* scanParsed<T>(
  table: RedactionTable,
  prefix: string,
  parse: (item: Record<string, unknown>) => T | undefined,
): AsyncGenerator<T> {
  for await (const item of scanKeyPrefix(table.client, table.tableName, prefix, { consistentRead: true })) {
    const parsed = parse(item);
    if (parsed !== undefined) yield parsed;
  }
}

/** The source's till returns naming the member's code (a scan by key prefix: a privacy request is rare). */
export function scanTillReturnsOf(table: RedactionTable, source: string, code: string): AsyncGenerator<TillReturnRecord> {
  return scanParsed(table, `till-return#${encodeURIComponent(source)}#`, (item) => {
    const parsed = TillReturnRecord.safeParse(item);
    return parsed.success && parsed.data.externalId === code ? parsed.data : undefined;
  });
}

/** The source's till sales naming the member's code. */
export function scanTillSalesOf(table: RedactionTable, source: string, code: string): AsyncGenerator<TillSaleRecord> {
  return scanParsed(table, `till-sale#${encodeURIComponent(source)}#`, (item) => {
    const parsed = TillSaleRecord.safeParse(item);
    return parsed.success && parsed.data.externalId === code ? parsed.data : undefined;
  });
}

/** A till sale loses its member and its index keys; false when it is gone. */
export const redactTillSale = (table: RedactionTable, sale: Pick<TillSaleRecord, 'pk'>): Promise<boolean> =>
  redactItem(table, sale.pk, PERSONAL, {});

/**
 * A till return loses its member; an open one is dismissed in the same write (from `open` only: an
 * operator's apply or dismiss that won meanwhile stands, and the member goes from it). False when it is gone.
 */
export async function redactTillReturn(table: RedactionTable, r: Pick<TillReturnRecord, 'pk' | 'status'>): Promise<boolean> {
  if (r.status === 'open' && (await dismissErased(table, r.pk))) return true;
  return redactItem(table, r.pk, PERSONAL, {});
}

async function dismissErased(table: RedactionTable, pk: string): Promise<boolean> {
  const at = new Date(table.clock()).toISOString();
  try {
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: { pk },
        UpdateExpression:
          'SET #status = :dismissed, dismissedBy = :by, why = :why, dismissedAt = :at, updatedAt = :at, redactedAt = :at REMOVE externalId, #ip, #is',
        ConditionExpression: '#status = :open',
        ExpressionAttributeNames: { '#status': 'status', '#ip': index.partitionKey, '#is': index.sortKey },
        ExpressionAttributeValues: {
          ':dismissed': 'dismissed',
          ':open': 'open',
          ':by': ERASED_RETURN_DISMISSAL.by,
          ':why': ERASED_RETURN_DISMISSAL.why,
          ':at': at,
        },
      }),
    );
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}
