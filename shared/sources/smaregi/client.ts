import { type CircuitBreaker, createCircuitBreaker } from '../../retry/index.js';
import {
  createTransport,
  DEFAULT_CALL_DEADLINE_MS,
  type HttpAnswer,
  sendRetrying,
  sleepMs,
  throughBreaker,
  type Transport,
} from '../../http-client/index.js';
import { SmaregiError } from './errors.js';
import { type AppCredentials, createTokenSource, SMAREGI_POINT_WRITE_SCOPES, type TokenSource } from './token.js';
import { SmaregiTransaction, SmaregiTransactionListItem } from './transaction.js';
import * as z from 'zod';
import { lazySchema } from '../../schema/index.js';

/**
 * A client of Smaregi's Platform API, as much as the worker and the reconcile read: one transaction
 * (`with_details=all&with_customer=all`) and the transaction list by update time, paged. Under the Open
 * API client's rules, shared through shared/http-client: one HTTP stack (answer cap, an overall deadline
 * per call), 429 (Smaregi throttles per app and contract, per second) and 5xx retried with backoff
 * honouring `Retry-After`, a circuit breaker; the token renewed before expiry and on a 401.
 */
export const SMAREGI_HOSTS = {
  production: { api: 'https://api.smaregi.jp', id: 'https://id.smaregi.jp' },
  sandbox: { api: 'https://api.smaregi.dev', id: 'https://id.smaregi.dev' },
} as const;

export interface SmaregiClientOptions {
  contractId: string;
  apiOrigin: string;
  idOrigin: string;
  credentials: () => Promise<AppCredentials>;
  deadlineMs?: number;
  /** Calls of one read, the first included (default 3). */
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  breaker?: CircuitBreaker;
  transport?: Transport;
  now?: () => number;
}

/** A customer's point fields as Smaregi lists them (strings; the expiry `yyyy-mm-dd`, empty or absent: none). */
export interface CustomerPoints {
  customerId: string;
  point?: string | undefined;
  pointExpireDate?: string | null | undefined;
}

export interface ListPage {
  items: SmaregiTransactionListItem[];
}

export interface SmaregiClient {
  /** The transaction's current state, details and customer included; `not_found` when Smaregi has none. */
  getTransaction(id: string): Promise<SmaregiTransaction>;
  /**
   * One page (1-based) of the transactions updated in [from, to] (ISO with offset), `limit` at most 1000;
   * with `customerCode`, only that member's (Smaregi's `customer_code` filter, an exact match).
   */
  listTransactions(query: {
    from: string;
    to: string;
    page: number;
    limit: number;
    customerCode?: string | undefined;
    /** Which time `from`/`to` filter: the last change (default) or the server's receipt of the transaction. */
    by?: 'upd_date_time' | 'transaction_date_time' | undefined;
  }): Promise<ListPage>;
  /**
   * Sets the customer's point balance to `point` (会員ポイント更新, `PATCH /pos/customers/{id}/point`: an
   * absolute value, so a repeat is harmless). Its token asks for `pos.customers:write` too, on first use.
   */
  setCustomerPoint(customerId: string, point: number): Promise<void>;
  /**
   * Adds `delta` to the customer's points (会員ポイント相対値更新, `POST /pos/customers/{id}/point/add`;
   * negative: takes off; Smaregi expires lapsed points first and refuses going below 0, status 400) and
   * answers the points after it. Not safe to repeat: sent once, never retried here (the caller's ledger step
   * decides after a lost answer).
   */
  addCustomerPoint(customerId: string, delta: number): Promise<number>;
  /** The customer's points as Smaregi holds them now. */
  getCustomerPoint(customerId: string): Promise<number>;
  /** The customer's points now and code (the transaction list's filter names a member by code). */
  readCustomer(customerId: string): Promise<{ point: number; customerCode: string | undefined }>;
  /** The Smaregi customer id holding this customer code, or undefined for none. */
  findCustomerByCode(code: string): Promise<string | undefined>;
  /** One page (1-based) of the contract's customers, their point fields only (`npm run smaregi -- check`). */
  listCustomers(query: { page: number; limit: number }): Promise<CustomerPoints[]>;
  close(): Promise<void>;
}

const ID = /^[0-9]{1,20}$/;
const List = lazySchema(() => z.array(SmaregiTransactionListItem));

export function createSmaregiClient(opts: SmaregiClientOptions): SmaregiClient {
  const transport = opts.transport ?? createTransport();
  const breaker = opts.breaker ?? createCircuitBreaker({ openMs: 30_000 });
  const { tokens, writer } = tokenSources(opts, transport);
  const retry = { maxAttempts: opts.maxAttempts ?? 3, sleep: opts.sleep ?? sleepMs };
  const contractPath = `/${encodeURIComponent(opts.contractId)}/pos`;
  const base = `${contractPath}/transactions`;

  /** One call; a PATCH here sets an absolute value, so it is as safe to repeat as a GET; a POST (a relative add) is not. */
  async function once(path: string, token: string, patch?: unknown, method: 'PATCH' | 'POST' = 'PATCH'): Promise<HttpAnswer> {
    try {
      return await transport.send({
        method: patch === undefined ? 'GET' : method,
        origin: opts.apiOrigin,
        path,
        bearer: token,
        ...(patch === undefined ? {} : { body: patch }),
        idempotent: method !== 'POST',
        deadlineMs: opts.deadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
      });
    } catch (e) {
      throw new SmaregiError('unavailable', `Smaregi API at ${opts.apiOrigin}: ${e instanceof Error ? e.message : 'no answer'}`);
    }
  }

  /** One GET (or PATCH) with retries; a 401 renews the token and tries once more (a token revoked or expired early). */
  async function get(path: string, what: string, patch?: unknown, method: 'PATCH' | 'POST' = 'PATCH'): Promise<unknown> {
    const source = patch === undefined ? tokens : writer();
    let answer: HttpAnswer | undefined;
    for (let renewals = 0; renewals < 2; renewals++) {
      const token = await source.token();
      // A relative add is sent once: an answer lost or a 5xx leaves it in doubt, which only the caller can settle.
      answer = method === 'POST' ? await once(path, token, patch, method) : await sendRetrying(() => once(path, token, patch), retry);
      if (answer.status !== 401) break;
      source.forget(token);
    }
    return bodyOf(answer as HttpAnswer, what, patch !== undefined);
  }

  const guarded = <T>(call: () => Promise<T>) =>
    throughBreaker(
      breaker,
      call,
      (e) => e instanceof SmaregiError && e.kind === 'unavailable',
      () => new SmaregiError('unavailable', 'Smaregi API is failing: waiting for the next probe'),
    );

  return {
    getTransaction(id) {
      if (!ID.test(id)) return Promise.reject(new SmaregiError('not_found', 'not a Smaregi transaction id'));
      return guarded(async () => {
        return transactionIn(id, await get(`${base}/${id}?with_details=all&with_customer=all`, `transaction ${id}`));
      });
    },
    listTransactions({ from, to, page, limit, customerCode, by = 'upd_date_time' }) {
      const query = new URLSearchParams({
        [`${by}-from`]: from,
        [`${by}-to`]: to,
        page: String(page),
        limit: String(limit),
        sort: 'transactionHeadId',
        ...(customerCode === undefined ? {} : { customer_code: customerCode }),
      });
      return guarded(async () => {
        const parsed = List.safeParse(await get(`${base}?${query.toString()}`, 'transaction list'));
        if (!parsed.success) throw new SmaregiError('invalid_response', 'Smaregi transaction list is not a list of transactions');
        return { items: parsed.data };
      });
    },
    setCustomerPoint(customerId, point) {
      if (!ID.test(customerId)) return Promise.reject(new SmaregiError('not_found', 'not a Smaregi customer id'));
      const path = `${contractPath}/customers/${customerId}/point`;
      return guarded(async () => {
        await get(path, `customer ${customerId}`, { point: String(point) });
      });
    },
    addCustomerPoint(customerId, delta) {
      if (!ID.test(customerId)) return Promise.reject(new SmaregiError('not_found', 'not a Smaregi customer id'));
      const path = `${contractPath}/customers/${customerId}/point/add`;
      return guarded(async () => pointIn(await get(path, `customer ${customerId}`, { point: String(delta) }, 'POST')));
    },
    getCustomerPoint(customerId) {
      if (!ID.test(customerId)) return Promise.reject(new SmaregiError('not_found', 'not a Smaregi customer id'));
      return guarded(async () => pointIn(await get(`${contractPath}/customers/${customerId}`, `customer ${customerId}`)));
    },
    readCustomer(customerId) {
      if (!ID.test(customerId)) return Promise.reject(new SmaregiError('not_found', 'not a Smaregi customer id'));
      return guarded(async () => {
        const body = await get(`${contractPath}/customers/${customerId}`, `customer ${customerId}`);
        const code = (body as { customerCode?: unknown } | null)?.customerCode;
        return { point: pointIn(body), customerCode: typeof code === 'string' && code !== '' ? code : undefined };
      });
    },
    findCustomerByCode(code) {
      const query = new URLSearchParams({ customer_code: code, limit: '2' });
      return guarded(async () => {
        const found = await get(`${contractPath}/customers?${query.toString()}`, 'customer list');
        const list = Array.isArray(found) ? (found as { customerId?: unknown; customerCode?: unknown }[]) : [];
        const id = list.find((c) => c.customerCode === code)?.customerId;
        return typeof id === 'string' && ID.test(id) ? id : undefined;
      });
    },
    listCustomers({ page, limit }) {
      const query = new URLSearchParams({ page: String(page), limit: String(limit), fields: 'customerId,point,pointExpireDate' });
      return guarded(async () => {
        return customerPointsIn(await get(`${contractPath}/customers?${query.toString()}`, 'customer list'));
      });
    },
    close: () => transport.close(),
  };
}

/** The `point` of a customer or of a point update's answer (a string of digits), as a number. */
function pointIn(body: unknown): number {
  const point = (body as { point?: unknown } | null)?.point;
  if (typeof point !== 'string' || !/^[0-9]{1,9}$/.test(point)) throw new SmaregiError('invalid_response', 'Smaregi answered no point');
  return Number(point);
}

/**
 * The read token source and, made on first use, the write one: kept apart so reads never ask for
 * `pos.customers:write`.
 */
function tokenSources(opts: SmaregiClientOptions, transport: Transport): { tokens: TokenSource; writer: () => TokenSource } {
  const common = {
    idOrigin: opts.idOrigin,
    contractId: opts.contractId,
    credentials: opts.credentials,
    transport,
    ...(opts.now ? { now: opts.now } : {}),
  };
  const tokens = createTokenSource(common);
  let writeTokens: TokenSource | undefined;
  const writer = () => (writeTokens ??= createTokenSource({ ...common, scopes: SMAREGI_POINT_WRITE_SCOPES }));
  return { tokens, writer };
}

/** The parsed JSON of a final answer (after retries and renewals), or the SmaregiError its status means. */
function bodyOf({ status, text }: HttpAnswer, what: string, write: boolean): unknown {
  if (status === 429 || status >= 500) throw new SmaregiError('unavailable', `Smaregi API answered ${status}`, status);
  if (status === 401 || status === 403) {
    throw new SmaregiError(
      'unauthorized',
      `Smaregi API answered ${status}: check the app's scopes (${write ? SMAREGI_POINT_WRITE_SCOPES : 'pos.transactions:read pos.customers:read'}) and the contract`,
      status,
    );
  }
  if (status === 404) throw new SmaregiError('not_found', `Smaregi has no ${what}`, status);
  if (status === 400) throw new SmaregiError('invalid_response', `Smaregi refused the request for ${what} (400)`, status);
  if (status !== 200) throw new SmaregiError('invalid_response', `Smaregi API answered ${status}`, status);
  try {
    return JSON.parse(text);
  } catch {
    throw new SmaregiError('invalid_response', 'Smaregi API answered with no JSON', status);
  }
}

/** Transaction `id`'s answer checked against the schema; the first issue names what was wrong. */
function transactionIn(id: string, body: unknown): SmaregiTransaction {
  const parsed = SmaregiTransaction.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SmaregiError(
      'invalid_response',
      `Smaregi transaction ${id}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'unreadable'}`,
    );
  }
  return parsed.data;
}

/** A customer list answer's point fields (anything else Smaregi sends is dropped). */
function customerPointsIn(found: unknown): CustomerPoints[] {
  if (!Array.isArray(found)) throw new SmaregiError('invalid_response', 'Smaregi customer list is not a list');
  return (found as Record<string, unknown>[]).map((c) => ({
    customerId: String(c.customerId ?? ''),
    point: typeof c.point === 'string' ? c.point : undefined,
    pointExpireDate: typeof c.pointExpireDate === 'string' ? c.pointExpireDate : undefined,
  }));
}
