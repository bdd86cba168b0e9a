import type { PointColumn } from './columns.js';

/**
 * One movement of points a ledger record shows, signed as it moved the member's balance: what the
 * report files under a day, a source, a store and a column. Read from the records the protocol writes,
 * never recomputed.
 */
export interface Entry {
  /** What moved (the record's key, a refund's own key), to name it when the two ways disagree. */
  key: string;
  /** When the points moved (ISO): the ledger's booking of it. */
  at: string | undefined;
  source: string;
  /** The store the record names (an order's `store`); refunds take their order's. */
  store?: string | undefined;
  /** A refund's order (its store is the order's). */
  orderKey?: string;
  column: PointColumn;
  points: number;
}

/** What one record gives: its entries, or why it could not be read (never skipped silently). */
export type Read = { entries: Entry[] } | { unreadable: string };
