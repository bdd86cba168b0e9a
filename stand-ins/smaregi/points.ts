import { smaregiTime } from '../../shared/sources/smaregi/index.js';
import type { JsonAnswer } from '../http/index.js';

/**
 * A customer's points as Smaregi keeps them (`point`, a string of digits), and what moves them:
 * - a till sale's `spendPoint` comes off the customer's point when the sale is stored, and a sale that
 *   spends more than the customer holds is refused (the till does not let it through); an edit moves the
 *   points by the difference, a void (`cancelDivision` 1) or a return-cancellation gives them back; staff
 *   point changes at the till move them too (division 6 adds `newPoint`, 7 subtracts `spendPoint`);
 * - 会員ポイント相対値更新 (`POST .../customers/{id}/point/add`): the value added (negative: taken off),
 *   refused below 0; expired points (`pointExpireDate` before today, JST) are expired first, as Smaregi
 *   describes it (失効で0になっているので減算はエラー);
 * - 会員ポイント更新 (`PATCH .../customers/{id}/point`): the value sent, absolute.
 * A customer stored without `point` holds 0 (Smaregi's record always has one).
 */

export type Customers = Map<string, Record<string, unknown>>;

const POINT = /^[0-9]{1,9}$/;
const SIGNED = /^-?[0-9]{1,9}$/;

export const smaregiError = (status: number, title: string, detail?: string): JsonAnswer => ({
  status,
  body: { type: 'about:blank', title, ...(detail ? { detail } : {}), status },
});

/** The customer's point as a number (0 when the record holds none). */
export const pointOf = (customer: Record<string, unknown> | undefined) => {
  const p = customer?.point;
  return typeof p === 'string' && POINT.test(p) ? Number(p) : 0;
};

/** Whether `point` may be stored as a customer's (absent, or digits). */
export const validPoint = (point: unknown) => point === undefined || (typeof point === 'string' && POINT.test(point));

/**
 * What a stored transaction keeps spent of its customer's point while it is live: a sale's `spendPoint`,
 * a staff subtraction's (division 7) too, and a staff addition's `newPoint` (division 6) as a negative spend.
 */
export function spentBy(tx: Record<string, unknown> | undefined): { customerId: string; points: number } | undefined {
  if (!tx || typeof tx.customerId !== 'string') return undefined;
  if (tx.cancelDivision === '1' || tx.disposeDivision === '1' || tx.disposeDivision === '2' || tx.returnSales === '1') return undefined;
  const read = (v: unknown) => (typeof v === 'string' && SIGNED.test(v) ? Math.abs(Number(v)) : 0);
  const points = tx.transactionHeadDivision === '6' ? -read(tx.newPoint) : read(tx.spendPoint);
  return points !== 0 ? { customerId: tx.customerId, points } : undefined;
}

/**
 * Stores `next` in place of `previous` (the same id): the customers' points move by what each spends.
 * Refused (nothing changes) when a customer would go below 0: the answer to give, else undefined.
 */
export function moveSpend(
  customers: Customers,
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
  nowMs: number,
): JsonAnswer | undefined {
  const before = spentBy(previous);
  const after = spentBy(next);
  const changes = new Map<string, number>();
  if (before) changes.set(before.customerId, (changes.get(before.customerId) ?? 0) + before.points);
  if (after) changes.set(after.customerId, (changes.get(after.customerId) ?? 0) - after.points);
  for (const [id, delta] of changes) {
    if (delta < 0 && pointOf(customers.get(id)) + delta < 0)
      return { status: 422, body: { error: `spendPoint: customer ${id} holds ${pointOf(customers.get(id))} points` } };
  }
  for (const [id, delta] of changes) {
    const customer = customers.get(id);
    if (!customer || delta === 0) continue;
    customers.set(id, { ...customer, point: String(pointOf(customer) + delta), updDateTime: smaregiTime(new Date(nowMs)) });
  }
  return undefined;
}

/** The customer id of a point path (`/point` or `/point/add`), and which. */
function pointPath(contract: string, path: string): { id: string; relative: boolean } | undefined {
  const m = new RegExp(`^/${contract}/pos/customers/([0-9]{1,20})/point(/add)?$`).exec(path);
  return m ? { id: m[1] as string, relative: m[2] !== undefined } : undefined;
}

/** The day (JST) of an epoch ms, as yyyy-mm-dd. */
const tokyoDay = (ms: number) => new Date(ms + 9 * 3_600_000).toISOString().slice(0, 10);

/** 会員ポイント更新 (PATCH, absolute) and 会員ポイント相対値更新 (POST .../point/add, relative). */
export function writePoint(customers: Customers, contract: string, path: string, body: Buffer, nowMs: number): JsonAnswer {
  const target = pointPath(contract, path);
  if (!target) return smaregiError(404, 'Not Found');
  const customer = customers.get(target.id);
  if (!customer) return smaregiError(404, 'Not Found', 'customer not found');
  let point: unknown;
  try {
    point = (JSON.parse(body.toString('utf8')) as { point?: unknown }).point;
  } catch {
    return smaregiError(400, 'Bad Request', 'the body is not JSON');
  }
  let next: number;
  if (target.relative) {
    if (typeof point !== 'string' || !SIGNED.test(point))
      return smaregiError(400, 'Bad Request', 'point must be a signed integer as a string');
    const expire = customer.pointExpireDate;
    const expired = typeof expire === 'string' && expire !== '' && expire < tokyoDay(nowMs);
    next = (expired ? 0 : pointOf(customer)) + Number(point);
    if (next < 0) return smaregiError(400, 'Bad Request', 'point: the customer does not hold that many points');
  } else {
    if (typeof point !== 'string' || !POINT.test(point)) return smaregiError(400, 'Bad Request', 'point must be 0-999999999 as a string');
    next = Number(point);
  }
  const updDateTime = smaregiTime(new Date(nowMs));
  customers.set(target.id, { ...customer, point: String(next), updDateTime });
  return { status: 200, body: { customerId: target.id, point: String(next), updDateTime } };
}
