/**
 * Points as lots on the emulator's clock: additions, deductions (earliest expiry first, non-expiring last),
 * expiry, the detail form's point_* fields, history and expiry summary.
 */
import { endOfDay, formatDate, formatDateTime } from './clock.js';
import type { ClientSettingsState, Member, PointRecord } from './model.js';

let historySeq = 0;

/**
 * Drops the buckets whose expiry has passed: points are held through the whole second 23:59:59 of their
 * expiry day. Expired points simply stop being held (no history item).
 */
export function sweepExpired(member: Member, now: number): void {
  const buckets = member.buckets;
  let expired = 0;
  for (const b of buckets) {
    if (b.expiresAt + 1000 > now) break;
    expired++;
  }
  if (expired > 0) buckets.splice(0, expired);
}

export function heldPoints(member: Member, now: number): number {
  sweepExpired(member, now);
  let sum = member.unlimited;
  for (const b of member.buckets) sum += b.remaining;
  return sum;
}

function addToBucket(member: Member, expiresAt: number, points: number): void {
  const buckets = member.buckets;
  // New expiries are usually the latest: search from the end.
  let i = buckets.length;
  let prev = buckets[i - 1];
  while (prev && prev.expiresAt > expiresAt) {
    i--;
    prev = buckets[i - 1];
  }
  if (prev && prev.expiresAt === expiresAt) prev.remaining += points;
  else buckets.splice(i, 0, { expiresAt, remaining: points });
}

export interface PointOperation {
  point: number;
  title: string;
  remarks: string | null;
  /** Expiry of an addition; null: none. Ignored for deductions. */
  expiresAt: number | null;
}

/**
 * Applies one grant or deduction (the caller has checked that a deduction is covered) and records it in the
 * history at emulator time `now`, committed at real time `committedAt` (elapsedMs).
 */
export function applyPoints(member: Member, op: PointOperation, now: number, committedAt: number): void {
  sweepExpired(member, now);
  const nowText = formatDateTime(now);
  if (op.point > 0) {
    if (op.expiresAt === null) member.unlimited += op.point;
    else addToBucket(member, op.expiresAt, op.point);
    member.total_point += op.point;
    member.point_geted_at = nowText;
  } else if (op.point < 0) {
    consume(member, -op.point);
    member.point_used_at ??= formatDate(now);
  }
  member.total_point_count += 1;
  member.updated_at = nowText;
  const record: PointRecord = {
    id: String(++historySeq),
    point: op.point,
    title: op.title,
    detail: null,
    remarks: op.remarks,
    expired_at: op.point > 0 && op.expiresAt !== null ? formatDateTime(op.expiresAt) : null,
    created_at: nowText,
    updated_at: nowText,
  };
  member.history.push({ record, committedAt });
}

function consume(member: Member, amount: number): void {
  let left = amount;
  const buckets = member.buckets;
  let emptied = 0;
  for (const b of buckets) {
    if (left === 0) break;
    const take = Math.min(b.remaining, left);
    b.remaining -= take;
    left -= take;
    if (b.remaining === 0) emptied++;
  }
  if (emptied > 0) buckets.splice(0, emptied);
  member.unlimited -= left;
}

const grouped = (n: number): string => (n >= 1000 ? n.toLocaleString('en-US') : String(n));

/** point_used_at, point_expired_at, point_expired_point of the detail form. */
export function pointDisplayFields(
  client: ClientSettingsState,
  member: Member,
  now: number,
): { point_used_at: string; point_expired_at: string; point_expired_point: string } {
  sweepExpired(member, now);
  const first = member.buckets[0];
  let expiring = 0;
  if (first) {
    // Default setting: the points of the nearest expiry date. Otherwise: everything expiring within the period.
    const limit = client.near_expiry_days === null ? endOfDay(first.expiresAt) : endOfDay(now, client.near_expiry_days);
    for (const b of member.buckets) {
      if (b.expiresAt > limit) break;
      expiring += b.remaining;
    }
  }
  return {
    point_used_at: member.point_used_at ?? '--',
    point_expired_at: first ? formatDate(first.expiresAt) : '--',
    point_expired_point: expiring > 0 ? grouped(expiring) : '--',
  };
}

export interface Page<T> {
  items: T[];
  total: number;
  per_page: number;
  current_page: number;
  last_page: number;
}

export function paginate<T>(total: number, perPage: number, page: number, slice: (from: number, to: number) => T[]): Page<T> {
  const from = (page - 1) * perPage;
  const to = Math.min(total, from + perPage);
  return {
    items: from < total ? slice(from, to) : [],
    total,
    per_page: perPage,
    current_page: page,
    last_page: Math.max(1, Math.ceil(total / perPage)),
  };
}

/**
 * History newest first (later registration first; equal times by registration order), of the entries
 * committed at or before real time `visibleUpTo` only (a lagging read replica): total and pages count
 * what is shown.
 */
export function historyPage(member: Member, perPage: number, page: number, visibleUpTo = Number.POSITIVE_INFINITY): Page<PointRecord> {
  const h = member.history;
  // Kept in commit order, so the visible entries are a prefix: drop the newest still too young.
  let n = h.length;
  while (n > 0 && (h[n - 1]?.committedAt ?? 0) > visibleUpTo) n--;
  // The page is the matching slice from the end of that prefix, reversed.
  return paginate(n, perPage, page, (from, to) =>
    h
      .slice(n - to, n - from)
      .reverse()
      .map((e) => e.record),
  );
}

/** Expiry summary nearest first; point always a string. */
export function expiryPage(member: Member, now: number, perPage: number, page: number): Page<{ expired_at: string; point: string }> {
  sweepExpired(member, now);
  const b = member.buckets;
  return paginate(b.length, perPage, page, (from, to) =>
    b.slice(from, to).map((x) => ({ expired_at: formatDateTime(x.expiresAt), point: String(x.remaining) })),
  );
}

/** floor(amount x rate) without binary floating point error: the rate is read as the decimal it was written as. */
export function calculatePoints(amount: number, rate: number): number {
  const text = rate.toString();
  if (/e/i.test(text)) return Math.floor(amount * rate);
  const [whole = '0', frac = ''] = text.split('.');
  const scale = 10n ** BigInt(frac.length);
  const numerator = BigInt(whole + frac);
  return Number((BigInt(amount) * numerator) / scale);
}
