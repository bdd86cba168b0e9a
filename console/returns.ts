import { scanTillReturns } from '../shared/ledger/index.js';
import type { ConsoleSource } from './source.js';

/** A till's plain return naming no sale, as the console lists it: where, when, whose, how much, what, and how it stands. */
export interface TillReturnView {
  source: string;
  returnId: string;
  at: string;
  store: string | null;
  terminal: string | null;
  member: string;
  amount: string;
  lines: string;
  status: string;
  /** Applied: the sale; dismissed: why. */
  settled: string | null;
}

/** Every till return of the ledger table, open ones first, then newest first (a scan, like the order list). */
export async function listTillReturns(source: Pick<ConsoleSource, 'ledger'>, status?: string): Promise<TillReturnView[]> {
  const records = await scanTillReturns(source.ledger.client, source.ledger.tableName);
  return records
    .filter((r) => status === undefined || r.status === status)
    .sort((a, b) => Number(b.status === 'open') - Number(a.status === 'open') || b.occurredAt.localeCompare(a.occurredAt))
    .map((r) => ({
      source: r.source,
      returnId: r.returnId,
      at: r.occurredAt,
      store: r.storeId ?? null,
      terminal: r.terminalId ?? null,
      // A privacy erase took the member out of the record.
      member: r.externalId === undefined ? '(erased)' : `${r.externalKey}:${r.externalId}`,
      amount: r.amount,
      lines: r.lines.map((l) => `${l.productId}×${l.quantity}`).join(', '),
      status: r.status,
      settled: r.status === 'applied' ? `sale ${r.saleId}` : r.status === 'dismissed' ? (r.why ?? null) : null,
    }));
}
