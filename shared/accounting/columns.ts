/**
 * The report's point columns, in the CSV's order: each is signed as it moves the members' balances
 * (granted, bonus, returned positive; the others negative), so `net` is their sum.
 */
export const POINT_COLUMNS = ['granted', 'refunded', 'bonus', 'redeemed', 'spent_till', 'returned', 'clawed_back', 'reversed'] as const;
export type PointColumn = (typeof POINT_COLUMNS)[number];

/** The CSV's header, exactly as the accountants' import expects it. */
export const CSV_HEADER = ['day', 'source', 'store', ...POINT_COLUMNS, 'net', 'net_yen'].join(',');

export type ColumnTotals = Record<PointColumn, number>;

export const zeroTotals = (): ColumnTotals => Object.fromEntries(POINT_COLUMNS.map((c) => [c, 0])) as ColumnTotals;

export const netOf = (totals: ColumnTotals): number => POINT_COLUMNS.reduce((sum, c) => sum + totals[c], 0);
