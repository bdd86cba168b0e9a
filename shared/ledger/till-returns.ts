import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { indexKeys } from './index-keys.js';
import { Expression } from './expression.js';
import { type Clock, createStore } from './store.js';
import { lazyObject } from '../schema/index.js';

/**
 * A till's plain return that names no sale (Smaregi's 返品販売), kept for an operator to settle, and the
 * little of each till sale a return is matched against. Ids, amounts, products and quantities only:
 *
 * - `till-return#<source>#<return id>`: the return (store, terminal, time, member, amount, lines) and its
 *   status: `open`, then `applied` to one sale (a refund of it, queued or run) or `dismissed` (who, why,
 *   when), each by one conditional write from `open`. An open return carries the sparse index's keys
 *   (partition `till-return-open#<source>`, sort its time), so the open ones are listed without a scan.
 * - `till-sale#<source>#<sale id>`: a member's sale, its store, time and products with their quantities,
 *   under the index's partition `till-sale#<source>#<member>#<store>` (sort: its time), so the sales of one
 *   member in one store within a window are one query. Written again as the sale changes (an edit).
 *
 * Both name the member (the code the till sends). An in-store member's erase (redaction/till-returns.ts)
 * removes the code and the sale's index keys; ids, amounts, products and status stay, and an open return
 * is dismissed (nobody is left to take its points from). Neither is written again once redacted.
 */

export const TILL_RETURN_STATUSES = ['open', 'applied', 'dismissed'] as const;
export type TillReturnStatus = (typeof TILL_RETURN_STATUSES)[number];

/** One product of a sale or a return: its id, the quantity (a decimal string, positive) and, on a return, the amount. */
export const TillLine = lazyObject(z.object, () => ({
  productId: z.string(),
  quantity: z.string(),
  amount: z.string().optional(),
}));
export type TillLine = z.infer<typeof TillLine>;

export const TillReturnRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('till_return'),
  source: z.string(),
  returnId: z.string(),
  storeId: z.string().optional(),
  terminalId: z.string().optional(),
  /** The return's time (the till's, ISO with offset). */
  occurredAt: z.string(),
  /** The member (the source's external key and the code the till sent); the code is gone after an erase. */
  externalKey: z.string(),
  externalId: z.string().optional(),
  /** The money given back, exact and positive (the amount the refund of a sale is made with). */
  amount: z.string(),
  currency: z.string(),
  /** How the source turns an amount into units, and the refund's title template: the refund of a sale is made with them. */
  rule: z.enum(['major_floor', 'minor']),
  refundTitle: z.string(),
  lines: z.array(TillLine),
  status: z.enum(TILL_RETURN_STATUSES),
  /** Applied: the sale, the refund taking its share back, who applied it (`auto`: the worker's match) and when. */
  saleId: z.string().optional(),
  refundId: z.string().optional(),
  appliedBy: z.string().optional(),
  appliedAt: z.string().optional(),
  /** Dismissed: who, why, when. */
  dismissedBy: z.string().optional(),
  why: z.string().optional(),
  dismissedAt: z.string().optional(),
  /** When an erase removed the member. */
  redactedAt: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type TillReturnRecord = z.infer<typeof TillReturnRecord>;

export const TillSaleRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('till_sale'),
  source: z.string(),
  saleId: z.string(),
  storeId: z.string(),
  occurredAt: z.string(),
  externalKey: z.string(),
  /** The member's code; gone after an erase (and with it the index keys: no return is matched with the sale). */
  externalId: z.string().optional(),
  lines: z.array(TillLine),
  redactedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type TillSaleRecord = z.infer<typeof TillSaleRecord>;

const part = encodeURIComponent;
export const tillReturnKey = (source: string, returnId: string) => `till-return#${part(source)}#${part(returnId)}`;
export const tillSaleKey = (source: string, saleId: string) => `till-sale#${part(source)}#${part(saleId)}`;
const openKey = (source: string) => `till-return-open#${part(source)}`;
const memberStoreKey = (source: string, externalKey: string, externalId: string, storeId: string) =>
  `till-sale#${part(source)}#${part(externalKey)}#${part(externalId)}#${part(storeId)}`;

/** What the store sets itself, and the code (optional on a record, since an erase removes it; required of a new one). */
type SetByStore = 'pk' | 'kind' | 'updatedAt' | 'ttl' | 'redactedAt' | 'externalId';
export type NewTillReturn = Omit<TillReturnRecord, SetByStore | 'status' | 'createdAt'> & { externalId: string };
export type NewTillSale = Omit<TillSaleRecord, SetByStore> & { externalId: string };

/** A change from `open`: done (the record after it), or refused with the record as it is (not open, or none). */
export type TillReturnChange = { ok: true; record: TillReturnRecord } | { ok: false; current: TillReturnRecord | undefined };

export interface SalesQuery {
  source: string;
  externalKey: string;
  externalId: string;
  storeId: string;
  /** ISO: sales at or after `from` and before `until`. */
  from: string;
  until: string;
}

export interface TillReturns {
  /** Keeps the return, open, where none is: `created` tells whether this call made it. */
  record(input: NewTillReturn): Promise<{ created: boolean; record: TillReturnRecord }>;
  get(source: string, returnId: string): Promise<TillReturnRecord | undefined>;
  /** open → applied to `saleId` (its refund `refundId`), by whom. */
  apply(source: string, returnId: string, applied: { saleId: string; refundId: string; by: string }): Promise<TillReturnChange>;
  /** open → dismissed: no points move; who, why. */
  dismiss(source: string, returnId: string, dismissed: { by: string; why: string }): Promise<TillReturnChange>;
  /** The source's open returns, oldest first. */
  listOpen(source: string): Promise<TillReturnRecord[]>;
  /** Keeps (or replaces, after an edit) a member's sale: its store, time and products; one an erase redacted stays as it is. */
  rememberSale(sale: NewTillSale): Promise<void>;
  getSale(source: string, saleId: string): Promise<TillSaleRecord | undefined>;
  /** One member's sales in one store within the window, oldest first. */
  salesOf(query: SalesQuery): Promise<TillSaleRecord[]>;
}

export interface TillReturnsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  ttlDays?: number;
}

export function createTillReturns(options: TillReturnsOptions): TillReturns {
  const store = createStore({ ...options, ttlDays: options.ttlDays ?? 400, leaseMs: 0 });
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  const get = async (source: string, returnId: string) => {
    const item = await store.get(tillReturnKey(source, returnId));
    return item ? TillReturnRecord.parse(item) : undefined;
  };

  /** One conditional write from `open`; leaving `open` drops the record from the index of open returns. */
  async function change(source: string, returnId: string, fields: Partial<TillReturnRecord>): Promise<TillReturnChange> {
    const e = new Expression().setAll({ ...fields, updatedAt: store.iso(store.clock()) });
    e.remove(index.partitionKey, index.sortKey);
    const item = await store.update(tillReturnKey(source, returnId), e, `${e.path('status')} = ${e.value('open')}`);
    return item ? { ok: true, record: TillReturnRecord.parse(item) } : { ok: false, current: await get(source, returnId) };
  }

  const keysIn = (partition: string, from: string, until: string) =>
    indexKeys(options.client, options.tableName, partition, { from, until });

  /** The items behind an index's keys, read consistently (the index is eventually consistent). */
  async function itemsOf<T>(pks: string[], parse: (item: Record<string, unknown>) => T | undefined): Promise<T[]> {
    const items = await Promise.all(pks.map((pk) => store.get(pk)));
    return items.flatMap((item) => {
      const parsed = item ? parse(item) : undefined;
      return parsed === undefined ? [] : [parsed];
    });
  }

  return {
    async record(input) {
      const now = store.clock();
      const record: TillReturnRecord = {
        ...input,
        pk: tillReturnKey(input.source, input.returnId),
        kind: 'till_return',
        status: 'open',
        createdAt: store.iso(now),
        ttl: store.ttlFrom(now),
      };
      const created = await store.create({ ...record, [index.partitionKey]: openKey(input.source), [index.sortKey]: input.occurredAt });
      if (created) return { created: true, record };
      return { created: false, record: (await get(input.source, input.returnId)) ?? record };
    },
    get,
    apply: (source, returnId, applied) =>
      change(source, returnId, {
        status: 'applied',
        saleId: applied.saleId,
        refundId: applied.refundId,
        appliedBy: applied.by,
        appliedAt: store.iso(store.clock()),
      }),
    dismiss: (source, returnId, dismissed) =>
      change(source, returnId, {
        status: 'dismissed',
        dismissedBy: dismissed.by,
        why: dismissed.why,
        dismissedAt: store.iso(store.clock()),
      }),
    async listOpen(source) {
      const pks = await keysIn(openKey(source), '0', '9');
      const records = await itemsOf(pks, (item) => {
        const parsed = TillReturnRecord.safeParse(item);
        return parsed.success && parsed.data.status === 'open' ? parsed.data : undefined;
      });
      return records.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    },
    async rememberSale(sale) {
      const now = store.clock();
      const e = new Expression().setAll({
        ...sale,
        kind: 'till_sale',
        updatedAt: store.iso(now),
        ttl: store.ttlFrom(now),
        [index.partitionKey]: memberStoreKey(sale.source, sale.externalKey, sale.externalId, sale.storeId),
        [index.sortKey]: sale.occurredAt,
      });
      const pk = tillSaleKey(sale.source, sale.saleId);
      // Never over a redacted one: a delivery that read no tombstone before an erase wrote it must not bring the member back.
      await store.update(pk, e, `attribute_not_exists(${e.path('redactedAt')})`);
    },
    async getSale(source, saleId) {
      const item = await store.get(tillSaleKey(source, saleId));
      return item ? TillSaleRecord.parse(item) : undefined;
    },
    async salesOf(query) {
      const partition = memberStoreKey(query.source, query.externalKey, query.externalId, query.storeId);
      const pks = await keysIn(partition, query.from, query.until);
      const sales = await itemsOf(pks, (item) => {
        const parsed = TillSaleRecord.safeParse(item);
        // The item as it is now: an edit may have moved the sale to another member or store since the index was read.
        const same =
          parsed.success &&
          parsed.data.externalId === query.externalId &&
          parsed.data.externalKey === query.externalKey &&
          parsed.data.storeId === query.storeId;
        return same ? parsed.data : undefined;
      });
      return sales.sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
    },
  };
}
