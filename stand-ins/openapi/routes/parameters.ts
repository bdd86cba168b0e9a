/**
 * Reading the parameters of the Open API endpoints: the body as an object, paging, flags, and the points
 * endpoints' integer and text fields. Each problem is the API's message (shared/openapi/messages.ts).
 */
import { AMOUNT_MAX, MESSAGES, POINT_MIN } from '../../../shared/openapi/index.js';
import { UnreadableBody } from '../body.js';
import { endOfDay, parseDateTime, startOfDay } from '../clock.js';
import { apiErrors } from '../errors.js';
import { longerThan } from '../text.js';

export type Body = Record<string, unknown>;

export function bodyObject(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (body instanceof UnreadableBody) throw apiErrors.badRequest(body.message);
  if (typeof body !== 'object' || Array.isArray(body)) throw apiErrors.badRequest(MESSAGES.invalidJson);
  return body as Body;
}

export const isTrue = (v: unknown): boolean => v === true || v === 'true' || v === '1' || v === 1;

export function paging(query: Record<string, unknown>): { perPage: number; page: number } {
  const errors: string[] = [];
  const read = (v: unknown, fallback: number, ok: (n: number) => boolean, message: string): number => {
    if (v === undefined || v === '') return fallback;
    const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
    if (!ok(n)) errors.push(message);
    return n;
  };
  const perPage = read(query.per_page, 50, (n) => n >= 1 && n <= 1000, MESSAGES.perPageRange);
  const page = read(query.page, 1, (n) => n >= 1 && Number.isSafeInteger(n), MESSAGES.pageMin);
  if (errors.length > 0) throw apiErrors.validation(errors);
  return { perPage, page };
}

/** An integer as JSON number or a string of digits (as a Laravel integer rule reads it). */
function readInteger(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  return undefined;
}

export interface PointExtras {
  title: string;
  remarks: string | null;
  expiresAt: number | null;
}

/** title, remarks and expired_at of the two points endpoints; `addition` false skips expired_at (ignored for deduction). */
export function pointExtras(body: Body, expiryDays: number | null, now: number, addition: boolean, errors: string[]): PointExtras {
  const text = (field: string): string | null => {
    const v = body[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') {
      errors.push(MESSAGES.mustBeString(field));
      return null;
    }
    if (longerThan(v, 255)) errors.push(MESSAGES.maxLength(field, 255));
    return v;
  };
  const title = text('title') ?? '';
  const remarks = text('remarks');
  let expiresAt = expiryDays === null ? null : endOfDay(now, expiryDays);
  const raw = body.expired_at;
  if (addition && raw !== undefined && raw !== null && raw !== '') {
    const day = typeof raw === 'string' ? parseDateTime(raw, 'date') : undefined;
    if (day === undefined) errors.push(MESSAGES.expiredAtFormat);
    else if (day < startOfDay(now)) errors.push(MESSAGES.expiredAtPast);
    else expiresAt = endOfDay(day);
  }
  return { title, remarks, expiresAt };
}

/** The integer parameter of a points endpoint (`point` of a grant, `amount` of a calculation) and its messages. */
export interface IntegerParameter {
  name: 'point' | 'amount';
  required: string;
  notInteger: string;
  /** The message when out of range; undefined when in range. */
  outOfRange(n: number): string | undefined;
  /** Whether the request adds points (and so validates expired_at); `n` undefined: not readable. */
  adds(n: number | undefined): boolean;
}

export const POINT: IntegerParameter = {
  name: 'point',
  required: MESSAGES.pointRequired,
  notInteger: MESSAGES.pointInteger,
  outOfRange: (n) => (n < POINT_MIN ? MESSAGES.pointMin(POINT_MIN) : undefined),
  adds: (n) => n === undefined || n > 0,
};

export const AMOUNT: IntegerParameter = {
  name: 'amount',
  required: MESSAGES.amountRequired,
  notInteger: MESSAGES.amountInteger,
  outOfRange: (n) => (n < 0 ? MESSAGES.amountMin : n > AMOUNT_MAX ? MESSAGES.amountMax(AMOUNT_MAX) : undefined),
  adds: () => true,
};

/** The parameter's value (also when out of range); undefined when missing or not an integer. Problems go to `errors`. */
export function readParameter(body: Body, p: IntegerParameter, errors: string[]): number | undefined {
  const raw = body[p.name];
  if (raw === undefined || raw === null || raw === '') {
    errors.push(p.required);
    return undefined;
  }
  const n = readInteger(raw);
  if (n === undefined) {
    errors.push(p.notInteger);
    return undefined;
  }
  const problem = p.outOfRange(n);
  if (problem !== undefined) errors.push(problem);
  return n;
}
