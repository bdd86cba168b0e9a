import { scanTillSpendShortfalls } from '../shared/ledger/index.js';
import type { ConsoleSource } from './source.js';

/** A till spend the membership balance cut short (tillPoints membership), as the console lists it. */
export interface TillShortfallView {
  source: string;
  spend: string;
  at: string | null;
  member: string;
  spent: number;
  taken: number;
  short: number;
  policy: string;
}

/** Every till spend cut short, newest first (a scan, like the order list): the shop settles each with its member. */
export async function listTillShortfalls(source: Pick<ConsoleSource, 'ledger'>): Promise<TillShortfallView[]> {
  const records = await scanTillSpendShortfalls(source.ledger.client, source.ledger.tableName);
  return records.reverse().map((r) => {
    const spent = Number(r.eligibleExact ?? r.eligibleAmount ?? 0);
    const short = r.shortfall ?? 0;
    return {
      source: r.source,
      spend: r.orderId,
      at: r.createdAt ?? null,
      member: r.externalId === undefined ? '(erased)' : `${r.externalKey ?? r.source}:${r.externalId}`,
      spent,
      taken: spent - short,
      short,
      policy: /^(clamp|park)\b/.exec(r.reason ?? '')?.[1] ?? '-',
    };
  });
}
