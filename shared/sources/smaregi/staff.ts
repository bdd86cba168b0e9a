import type { PurchaseEvent } from '../../events/index.js';
import { fixedGrant } from './spend.js';
import type { SmaregiTransaction } from './transaction.js';

/**
 * Points staff add or subtract by hand at the till (Smaregi's transaction divisions 6 ポイント加算 and
 * 7 ポイント減算), under `tillPoints: membership`: the till changed its own record, so the membership
 * balance takes the same change, once, as an order of its own (`<transaction>/staff`, marker
 * `lp1:<source>:order:<transaction>%2Fstaff`), run by the purchase protocol as a fixed grant. A subtraction
 * the balance cannot cover follows the insufficient-points policy and is recorded `insufficient_points`
 * (refused loudly, never silently). The points are read from `newPoint` (an addition) and `spendPoint` (a
 * subtraction): Smaregi's published field list names them 付与ポイント and 利用ポイント; which one a staff
 * change fills is not confirmed (docs/smaregi.md). A staff change with no points readable is noted.
 */

export const STAFF_ADD = '6';
export const STAFF_SUBTRACT = '7';
export const staffChangeId = (transactionId: string) => `${transactionId}/staff`;

export type StaffChange = { event: PurchaseEvent; note?: undefined } | { event?: undefined; note?: string };

/** The staff change of `tx` for the member `sale` names (sale: the transaction read as a purchase), if it is one. */
export function staffChange(sale: PurchaseEvent, tx: SmaregiTransaction): StaffChange {
  const division = tx.transactionHeadDivision;
  if (division !== STAFF_ADD && division !== STAFF_SUBTRACT) return {};
  if (!sale.customer || tx.cancelDivision === '1') return {};
  const field = division === STAFF_ADD ? tx.newPoint : tx.spendPoint;
  const points = Math.abs(Number(field ?? 'NaN'));
  if (!Number.isSafeInteger(points) || points === 0)
    return {
      note: `staff point change ${tx.transactionHeadId} names no points (${division === STAFF_ADD ? 'newPoint' : 'spendPoint'}): not forwarded`,
    };
  const signed = division === STAFF_ADD ? points : -points;
  const title =
    division === STAFF_ADD ? `Points added at the till ${tx.transactionHeadId}` : `Points subtracted at the till ${tx.transactionHeadId}`;
  return { event: fixedGrant(sale, { orderId: staffChangeId(tx.transactionHeadId), points }, signed, title, sale.customer) };
}
