import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SmaregiCustomer, SmaregiTransaction, smaregiTime } from '../../shared/sources/smaregi/index.js';
import { faultFrom, type JsonAnswer, serveStandIn, standInAdmin, type StandInFault } from '../http/index.js';
import { listTransactions } from './list.js';

/**
 * A local stand-in of Smaregi's Platform API, as much as the worker and the reconcile use:
 * - `POST /app/{contract_id}/token` (the id host's client-credentials grant: Basic auth, a form body),
 *   answering `{access_token, token_type, expires_in, scope}`; tokens expire after `tokenTtlSeconds`;
 * - `GET /{contract_id}/pos/transactions/{id}` behind `Authorization: Bearer`, with `with_details`
 *   (`all`; `summary`: the lines' main fields only) and `with_customer` (`all` adds the customer object);
 * - `GET /{contract_id}/pos/transactions` by one of the date filters (31 days at most), honouring `sort`, paged (list.ts);
 * - with `throttlePerSecond`, 429 with `Retry-After: 1` past that many API reads in a second, for the
 *   whole contract (Smaregi's limit is per contract and second, shared by all its stores).
 * One server plays both hosts (the id host and the API host). Test surface (not Smaregi's), under the
 * admin guard of /__local/*: `POST /__smaregi/customers`, `POST /__smaregi/transactions` (as GET returns
 * it, details included; the same id replaces it; any division), both 201; `POST /__smaregi/return-cancellations`
 * (`{"transactionHeadId", "newTransactionHeadId"}`) makes a return-cancellation's two records in one call, as
 * the till does: the cancelling record (negated amounts, disposeDivision 2) and the original marked
 * disposeDivision 1, each naming the other; `POST /__smaregi/faults` makes the next N API
 * reads answer a status (429 with a Retry-After); `POST /__smaregi/expire-tokens` ends every token.
 */
export interface SmaregiStandIn {
  url: string;
  port: number;
  contractId: string;
  putTransaction(tx: SmaregiTransaction): void;
  putCustomer(customer: SmaregiCustomer): void;
  /** Removes a transaction (as Smaregi's delete does): reads answer 404. */
  deleteTransaction(id: string): void;
  /** The customer's point balance as Smaregi holds it (`point`, a string), undefined for an unknown customer. */
  customerPoint(customerId: string): string | undefined;
  /** API reads answered (faults included), token grants made. */
  reads(): number;
  grants(): number;
  close(): Promise<void>;
}

export interface SmaregiStandInOptions {
  port?: number;
  host?: string;
  contractId: string;
  clientId: string;
  clientSecret: string;
  tokenTtlSeconds?: number;
  /** API reads per second the contract may make before 429 (off: unset). */
  throttlePerSecond?: number;
  now?: () => number;
}

const MAX_BODY = 512 * 1024;
const smaregiError = (status: number, title: string, detail?: string) => ({
  status,
  body: { type: 'about:blank', title, ...(detail ? { detail } : {}), status },
});

/** One transaction as `GET /{contract_id}/pos/transactions/{id}` answers it, with the details and customer asked for. */
function transactionAnswer(
  tx: Record<string, unknown> | undefined,
  customers: Map<string, Record<string, unknown>>,
  query: URLSearchParams,
): JsonAnswer {
  if (!tx) return smaregiError(404, 'Not Found', 'transaction not found');
  const { details, customer: _, ...head } = tx;
  const customer =
    query.get('with_customer') === 'all' && typeof tx.customerId === 'string' ? (customers.get(tx.customerId) ?? null) : undefined;
  return {
    status: 200,
    body: {
      ...head,
      ...detailsFor(query.get('with_details'), details),
      ...(customer !== undefined ? { customer } : {}),
    },
  };
}

export async function startSmaregiStandIn(options: SmaregiStandInOptions): Promise<SmaregiStandIn> {
  const now = options.now ?? Date.now;
  const transactions = new Map<string, Record<string, unknown>>();
  const customers = new Map<string, Record<string, unknown>>();
  const tokens = new Map<string, number>();
  /** Tokens granted with `pos.customers:write` (the point update needs it). */
  const writers = new Set<string>();
  let faults: StandInFault | undefined;
  let reads = 0;
  let grants = 0;
  const second = { at: -1, reads: 0 };
  const contract = encodeURIComponent(options.contractId);

  function admin(path: string, json: unknown): JsonAnswer {
    if (path === '/__smaregi/transactions') {
      const parsed = SmaregiTransaction.safeParse(json);
      if (!parsed.success) return { status: 422, body: { error: describe(parsed.error.issues[0]) } };
      transactions.set(parsed.data.transactionHeadId, json as Record<string, unknown>);
      return { status: 201, body: { transactionHeadId: parsed.data.transactionHeadId } };
    }
    if (path === '/__smaregi/customers') {
      const parsed = SmaregiCustomer.safeParse(json);
      if (!parsed.success) return { status: 422, body: { error: describe(parsed.error.issues[0]) } };
      customers.set(parsed.data.customerId, json as Record<string, unknown>);
      return { status: 201, body: { customerId: parsed.data.customerId } };
    }
    if (path === '/__smaregi/faults') {
      const fault = faultFrom(json);
      if (!('times' in fault)) return fault;
      faults = fault;
      return { status: 201, body: { status: fault.status, times: fault.times } };
    }
    if (path === '/__smaregi/return-cancellations') return returnCancellation(transactions, json, now());
    if (path === '/__smaregi/expire-tokens') {
      tokens.clear();
      return { status: 201, body: { expired: true } };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }

  function grant(req: IncomingMessage, body: Buffer): JsonAnswer {
    const expected = `Basic ${Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return smaregiError(401, 'Unauthorized', 'invalid client');
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') return smaregiError(400, 'Bad Request', 'unsupported grant_type');
    grants += 1;
    const ttl = options.tokenTtlSeconds ?? 3600;
    const token = randomBytes(24).toString('hex');
    tokens.set(token, now() + ttl * 1000);
    if ((form.get('scope') ?? '').split(' ').includes('pos.customers:write')) writers.add(token);
    return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: ttl, scope: form.get('scope') ?? '' } };
  }

  function authorised(req: IncomingMessage): boolean {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const until = token === undefined ? undefined : tokens.get(token);
    return until !== undefined && now() < until;
  }

  function read(req: IncomingMessage, path: string, query: URLSearchParams): JsonAnswer {
    if (!authorised(req)) return smaregiError(401, 'Unauthorized', 'invalid or expired access token');
    reads += 1;
    const limit = options.throttlePerSecond;
    if (limit !== undefined) {
      const at = Math.floor(now() / 1000);
      if (second.at !== at) Object.assign(second, { at, reads: 0 });
      second.reads += 1;
      if (second.reads > limit)
        return { ...smaregiError(429, 'Too Many Requests', 'rate limit exceeded'), headers: { 'retry-after': '1' } };
    }
    if (faults && faults.times > 0) {
      faults.times -= 1;
      return { ...smaregiError(faults.status, 'fault'), ...(faults.retryAfter ? { headers: { 'retry-after': faults.retryAfter } } : {}) };
    }
    const one = new RegExp(`^/${contract}/pos/transactions/([0-9]{1,20})$`).exec(path);
    if (one) return transactionAnswer(transactions.get(one[1] as string), customers, query);
    if (path === `/${contract}/pos/transactions`) return listTransactions([...transactions.values()], query);
    return smaregiError(404, 'Not Found');
  }

  function handle(req: IncomingMessage, body: Buffer): JsonAnswer {
    const test = standInAdmin(req, body, '/__smaregi/', admin);
    if (test) return test;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = url.pathname;
    if (req.method === 'POST' && path === `/app/${contract}/token`) return grant(req, body);
    if (req.method === 'GET') return read(req, path, url.searchParams);
    if (req.method === 'PATCH') {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!authorised(req) || token === undefined) return smaregiError(401, 'Unauthorized', 'invalid or expired access token');
      if (!writers.has(token)) return smaregiError(403, 'Forbidden', 'the token lacks the scope pos.customers:write');
      return setPoint(customers, contract, path, body, now());
    }
    return smaregiError(404, 'Not Found');
  }

  const served = await serveStandIn(handle, { maxBodyBytes: MAX_BODY, port: options.port, host: options.host });
  return {
    url: served.url,
    port: served.port,
    contractId: options.contractId,
    putTransaction: (tx) => transactions.set(tx.transactionHeadId, tx as Record<string, unknown>),
    putCustomer: (c) => customers.set(c.customerId, c as Record<string, unknown>),
    deleteTransaction: (id) => {
      transactions.delete(id);
    },
    customerPoint: (id) => {
      const point = customers.get(id)?.point;
      return typeof point === 'string' ? point : undefined;
    },
    reads: () => reads,
    grants: () => grants,
    close: () => served.close(),
  };
}

/**
 * 会員ポイント更新 (`PATCH /{contract_id}/pos/customers/{customer_id}/point`): sets the balance to the
 * value sent (an absolute value, not an addition), as Smaregi's reference describes it.
 */
function setPoint(
  customers: Map<string, Record<string, unknown>>,
  contract: string,
  path: string,
  body: Buffer,
  nowMs: number,
): JsonAnswer {
  const id = new RegExp(`^/${contract}/pos/customers/([0-9]{1,20})/point$`).exec(path)?.[1];
  if (id === undefined) return smaregiError(404, 'Not Found');
  const customer = customers.get(id);
  if (!customer) return smaregiError(404, 'Not Found', 'customer not found');
  let point: unknown;
  try {
    point = (JSON.parse(body.toString('utf8')) as { point?: unknown }).point;
  } catch {
    return smaregiError(400, 'Bad Request', 'the body is not JSON');
  }
  if (typeof point !== 'string' || !/^[0-9]{1,9}$/.test(point))
    return smaregiError(400, 'Bad Request', 'point must be 0-999999999 as a string');
  const updDateTime = smaregiTime(new Date(nowMs));
  customers.set(id, { ...customer, point, updDateTime });
  return { status: 200, body: { customerId: id, point, updDateTime } };
}

/** The lines' fields `with_details=summary` keeps (Smaregi publishes no list: an assumption, docs/smaregi.md). */
const SUMMARY_FIELDS = [
  'transactionHeadId',
  'transactionDetailId',
  'transactionDetailDivision',
  'productId',
  'productCode',
  'productName',
  'quantity',
  'salesPrice',
  'unitDiscountedSum',
];

function detailsFor(withDetails: string | null, details: unknown): { details?: unknown[] } {
  const lines = Array.isArray(details) ? (details as Record<string, unknown>[]) : [];
  if (withDetails === 'all') return { details: lines };
  if (withDetails === 'summary')
    return { details: lines.map((l) => Object.fromEntries(SUMMARY_FIELDS.filter((f) => f in l).map((f) => [f, l[f]]))) };
  return {};
}

const AMOUNT = /^-?\d+(?:\.\d+)?$/;
const HEAD_AMOUNTS = [
  'subtotal',
  'subtotalDiscountPrice',
  'pointDiscount',
  'couponDiscount',
  'total',
  'taxInclude',
  'taxExclude',
  'amount',
];
const LINE_AMOUNTS = [
  'quantity',
  'unitDiscountedSum',
  'discountPriceProportional',
  'discountPointProportional',
  'discountCouponProportional',
  'taxIncludeProportional',
  'taxExcludeProportional',
  'productBundleProportional',
  'staffDiscountProportional',
  'bargainDiscountProportional',
  'roundingPriceProportional',
];

function negated(row: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out = { ...row };
  for (const f of fields) {
    const v = out[f];
    if (typeof v === 'string' && AMOUNT.test(v) && !/^-?0+(?:\.0+)?$/.test(v)) out[f] = v.startsWith('-') ? v.slice(1) : `-${v}`;
  }
  return out;
}

/** A return-cancellation (返品取消) as the till makes it: both records, each naming the other, updated now. */
function returnCancellation(transactions: Map<string, Record<string, unknown>>, json: unknown, nowMs: number): JsonAnswer {
  const body = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const id = String(body.transactionHeadId ?? '');
  const newId = String(body.newTransactionHeadId ?? '');
  const original = transactions.get(id);
  if (!original) return { status: 404, body: { error: `no transaction ${id}` } };
  if (!/^[0-9]{1,20}$/.test(newId) || transactions.has(newId))
    return { status: 422, body: { error: 'newTransactionHeadId must be an unused transaction id' } };
  const at = smaregiTime(new Date(nowMs));
  const lines = Array.isArray(original.details) ? (original.details as Record<string, unknown>[]) : [];
  transactions.set(newId, {
    ...negated(original, HEAD_AMOUNTS),
    transactionHeadId: newId,
    transactionDateTime: at,
    terminalTranDateTime: at,
    updDateTime: at,
    disposeDivision: '2',
    disposeServerTransactionHeadId: id,
    details: lines.map((l) => ({ ...negated(l, LINE_AMOUNTS), transactionHeadId: newId })),
  });
  transactions.set(id, { ...original, disposeDivision: '1', disposeServerTransactionHeadId: newId, updDateTime: at });
  return { status: 201, body: { transactionHeadId: id, newTransactionHeadId: newId } };
}

function describe(issue: { path: PropertyKey[]; message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}` : 'not a Smaregi record';
}
