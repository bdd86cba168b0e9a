import { type ColumnTotals, netOf, POINT_COLUMNS, type PointColumn, zeroTotals } from './columns.js';
import { readRecord } from './entries.js';
import type { Entry } from './entry.js';
import { jstDay } from './jst.js';
import { pointsInYen } from './yen.js';

/**
 * The month's points ledger for the accountants (ASBJ Statement No. 29, docs/accounting.md): one row
 * per JST day × source × store, read page by page from the ledger's records, and the month's totals
 * computed a second way to prove them. The rows take each refund from its own record; the books take it
 * from its order's book (`refunds.<id>.debited`, written by another write at another step), and both
 * sum the other movements separately from the rows. Any difference, or a record that cannot be read,
 * leaves the report unreconciled with what differs.
 */

export interface PointsRow extends ColumnTotals {
  day: string;
  source: string;
  store: string;
  net: number;
  net_yen: string;
}

export interface PointsReport {
  month: string;
  valuePerPoint: string;
  rows: PointsRow[];
  totals: ColumnTotals & { net: number; net_yen: string };
  reconciled: boolean;
  differences: string[];
}

export interface PointsReportInput {
  month: string;
  /** The yen value of one point (a decimal): the stage's redemption setting. */
  valuePerPoint: string;
  /** The store column for a source and the store its record names (`web` for a Shopify source). */
  storeOf: (source: string, store: string | undefined) => string;
  /** The ledger's points records, page by page (shared/ledger `scanPointsRecords`). */
  pages: AsyncIterable<readonly Record<string, unknown>[]>;
}

/** How many single differences are named before the rest are counted. */
const MAX_NAMED = 20;

class Month {
  readonly rows = new Map<string, ColumnTotals>();
  readonly rowTotals = zeroTotals();
  readonly bookTotals = zeroTotals();
  readonly refundRows = new Map<string, number>();
  readonly refundBooks = new Map<string, number>();
  /** Refunds in the month, placed once their orders' stores are known. */
  readonly refundsToPlace: { day: string; entry: Entry }[] = [];
  /** The store of every refunded order that names one (few: refunded orders only). */
  readonly storeByOrder = new Map<string, string>();
  readonly problems: string[] = [];

  constructor(private readonly input: PointsReportInput) {}

  /** The entry's JST day when it falls in the month; a time that does not read is a problem, not a skip. */
  private dayIn(entry: Entry): string | undefined {
    const day = entry.at === undefined ? undefined : jstDay(entry.at);
    if (day === undefined) {
      this.problems.push(`record ${entry.key} has no time its ${entry.column} points moved at`);
      return undefined;
    }
    return day.startsWith(`${this.input.month}-`) ? day : undefined;
  }

  add(item: Record<string, unknown>): void {
    if (item.kind === 'order' && typeof item.store === 'string' && Object.keys((item.refunds as object | undefined) ?? {}).length > 0) {
      this.storeByOrder.set(String(item.pk), item.store);
    }
    const reading = readRecord(item);
    if ('unreadable' in reading.movements) {
      this.problems.push(reading.movements.unreadable);
      return;
    }
    for (const entry of reading.movements.entries) {
      const day = this.dayIn(entry);
      if (day === undefined) continue;
      this.rowTotals[entry.column] += entry.points;
      if (entry.column === 'refunded') this.refundRows.set(entry.key, entry.points);
      if (entry.orderKey !== undefined) this.refundsToPlace.push({ day, entry });
      else this.place(day, entry.source, this.input.storeOf(entry.source, entry.store), entry.column, entry.points);
    }
    if ('unreadable' in reading.books) return;
    for (const entry of reading.books.entries) {
      const day = entry.at === undefined ? undefined : jstDay(entry.at);
      if (day === undefined || !day.startsWith(`${this.input.month}-`)) continue;
      this.bookTotals[entry.column] += entry.points;
      if (entry.column === 'refunded') this.refundBooks.set(entry.key, entry.points);
    }
  }

  private place(day: string, source: string, store: string, column: PointColumn, points: number): void {
    const key = [day, source, store].join('\u0000');
    const row = this.rows.get(key) ?? zeroTotals();
    row[column] += points;
    this.rows.set(key, row);
  }

  finish(): PointsReport {
    for (const { day, entry } of this.refundsToPlace) {
      const store = entry.orderKey === undefined ? undefined : this.storeByOrder.get(entry.orderKey);
      this.place(day, entry.source, this.input.storeOf(entry.source, store), entry.column, entry.points);
    }
    const { valuePerPoint, month } = this.input;
    const rows = [...this.rows.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, totals]) => {
        const [day = '', source = '', store = ''] = key.split('\u0000');
        const net = netOf(totals);
        return { day, source, store, ...totals, net, net_yen: pointsInYen(net, valuePerPoint) };
      });
    const net = netOf(this.rowTotals);
    const differences = [...this.problems, ...this.columnDifferences(), ...this.refundDifferences()];
    return {
      month,
      valuePerPoint,
      rows,
      totals: { ...this.rowTotals, net, net_yen: pointsInYen(net, valuePerPoint) },
      reconciled: differences.length === 0,
      differences: named(differences),
    };
  }

  private columnDifferences(): string[] {
    return POINT_COLUMNS.filter((c) => this.rowTotals[c] !== this.bookTotals[c]).map(
      (c) => `${c}: rows ${this.rowTotals[c]}, ledger books ${this.bookTotals[c]}`,
    );
  }

  private refundDifferences(): string[] {
    const keys = new Set([...this.refundRows.keys(), ...this.refundBooks.keys()]);
    const out: string[] = [];
    for (const key of [...keys].sort()) {
      const record = this.refundRows.get(key);
      const book = this.refundBooks.get(key);
      if (record !== book) out.push(`${key}: its record ${record ?? 'none this month'}, its order's book ${book ?? 'none this month'}`);
    }
    return out;
  }
}

const named = (all: string[]) => (all.length <= MAX_NAMED ? all : [...all.slice(0, MAX_NAMED), `and ${all.length - MAX_NAMED} more`]);

/** Reads every page once; memory holds the month's rows and refunds, never the whole table. */
export async function buildPointsReport(input: PointsReportInput): Promise<PointsReport> {
  const month = new Month(input);
  for await (const page of input.pages) for (const item of page) month.add(item);
  return month.finish();
}
