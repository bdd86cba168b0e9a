import { DAY_MS } from '../../time/index.js';
import type { SmaregiClient } from './client.js';
import { smaregiTime, smaregiWindows } from './reconcile.js';

/**
 * What can be read through the Platform API of the Smaregi point settings a shop must turn off when its
 * tills spend the membership balance (`tillPoints: membership`, docs/smaregi.md): the settings themselves
 * are not published in the API, their effects are:
 * - Smaregi's own earning (ポイント付与, at the shop, store, rank or product level): an ordinary sale
 *   (division 1) of the last `days` days that Smaregi gave points for (`newPoint` above 0);
 * - Smaregi's own expiry (ポイント有効期限): a customer with a point expiry date (`pointExpireDate`).
 */

export interface PointSettingsCheck {
  days: number;
  sales: number;
  /** Ordinary sales Smaregi gave its own points for, and a few of their ids. */
  ownPoints: number;
  ownPointSales: string[];
  customers: number;
  /** Customers with a Smaregi point expiry date, and a few of their ids. */
  expiring: number;
  expiringCustomers: string[];
  /** A page cap was reached: the figures are a lower bound. */
  partial: boolean;
}

const PAGE = 1000;
const MAX_PAGES = 20;
const EXAMPLES = 5;

export async function checkPointSettings(
  client: Pick<SmaregiClient, 'listTransactions' | 'listCustomers'>,
  options: { now: Date; days: number },
): Promise<PointSettingsCheck> {
  const result: PointSettingsCheck = {
    days: options.days,
    sales: 0,
    ownPoints: 0,
    ownPointSales: [],
    customers: 0,
    expiring: 0,
    expiringCustomers: [],
    partial: false,
  };
  const since = new Date(options.now.getTime() - options.days * DAY_MS);
  // Up to a minute past now: Smaregi's filter is to the second, and the till's clock may run ahead.
  for (const w of smaregiWindows(since, new Date(options.now.getTime() + 60_000))) {
    for (let page = 1; ; page++) {
      if (page > MAX_PAGES) {
        result.partial = true;
        break;
      }
      const { items } = await client.listTransactions({ from: smaregiTime(w.from), to: smaregiTime(w.to), page, limit: PAGE });
      for (const item of items as Record<string, unknown>[]) {
        if (item.transactionHeadDivision !== undefined && item.transactionHeadDivision !== '1') continue;
        result.sales += 1;
        if (Number(item.newPoint ?? '0') > 0) {
          result.ownPoints += 1;
          if (result.ownPointSales.length < EXAMPLES) result.ownPointSales.push(String(item.transactionHeadId));
        }
      }
      if (items.length < PAGE) break;
    }
  }
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) {
      result.partial = true;
      break;
    }
    const customers = await client.listCustomers({ page, limit: PAGE });
    for (const c of customers) {
      result.customers += 1;
      if (c.pointExpireDate) {
        result.expiring += 1;
        if (result.expiringCustomers.length < EXAMPLES) result.expiringCustomers.push(c.customerId);
      }
    }
    if (customers.length < PAGE) break;
  }
  return result;
}
