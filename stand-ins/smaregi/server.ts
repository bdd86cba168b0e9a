import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SmaregiCustomer, SmaregiTransaction, smaregiTime } from '../../shared/sources/smaregi/index.js';
import { adminRefusal } from '../../shared/http/index.js';
import { faultFrom, type JsonAnswer, serveStandIn, standInAdmin, type StandInFault } from '../http/index.js';
import { listTransactions } from './list.js';
import { type Customers, moveSpend, pointOf, smaregiError, validPoint, writePoint } from './points.js';
import { holdForUpload, noUploadDelay, setUploadDelay, type Uploads, uploadDue } from './uploads.js';

/**
 * A local stand-in of Smaregi's Platform API, as much as the worker and the reconcile use:
 * - `POST /app/{contract_id}/token` (the id host's client-credentials grant: Basic auth, a form body),
 *   answering `{access_token, token_type, expires_in, scope}`; tokens expire after `tokenTtlSeconds`;
 * - `GET /{contract_id}/pos/transactions/{id}` behind `Authorization: Bearer`, with `with_details`
 *   (`all`; `summary`: the lines' main fields only) and `with_customer` (`all` adds the customer object);
 * - `GET /{contract_id}/pos/transactions` by one of the date filters (31 days at most), honouring `sort`, paged (list.ts);
 * - `GET /{contract_id}/pos/customers/{id}` and `GET /{contract_id}/pos/customers?customer_code=` (the customer, `point` included);
 * - the customer's points as Smaregi keeps them (points.ts): a sale's `spendPoint` comes off them and is
 *   refused beyond them, `PATCH .../customers/{id}/point` (absolute) and `POST .../point/add` (relative);
 * - with `throttlePerSecond`, 429 with `Retry-After: 1` past that many API reads in a second, for the
 *   whole contract (Smaregi's limit is per contract and second, shared by all its stores).
 * One server plays both hosts (the id host and the API host). Test surface (not Smaregi's), under the
 * admin guard of /__local/*: `POST /__smaregi/customers` (with its `point`; none: 0), `GET /__smaregi/customers/{id}`
 * (the customer as stored), `POST /__smaregi/transactions` (as GET returns
 * it, details included; the same id replaces it; any division), both 201; `POST /__smaregi/return-cancellations`
 * (`{"transactionHeadId", "newTransactionHeadId"}`) makes a return-cancellation's two records in one call, as
 * the till does: the cancelling record (negated amounts, disposeDivision 2) and the original marked
 * disposeDivision 1, each naming the other; `POST /__smaregi/faults` makes the next N API
 * reads answer a status (429 with a Retry-After); `POST /__smaregi/write-faults`
 * (`{"status", "times", "commit"}`) makes the next N point writes (PATCH `.../point`, POST `.../point/add`)
 * answer that status, the write applied first when `commit` is true (a 5xx after the change was made:
 * the answer lost at Smaregi's edge) and not at all when false; `POST /__smaregi/expire-tokens` ends every token;
 * `POST /__smaregi/upload-delay` (`{"ms": N}`, default 0) makes sales posted afterwards an offline till's,
 * reaching the server N ms later (uploads.ts).
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
  const state: AdminState = { transactions, customers, tokens, now, uploads: noUploadDelay() };
  /** The till's sales due by now reach the server (before anything reads it). */
  const uploaded = () => uploadDue(state.uploads, now(), (tx) => storeTransaction(state, tx) === undefined);
  let reads = 0;
  let grants = 0;
  const second = { at: -1, reads: 0 };
  const contract = encodeURIComponent(options.contractId);

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
    const throttled = overThrottle(second, options.throttlePerSecond, now());
    if (throttled) return throttled;
    const faults = state.faults;
    if (faults && faults.times > 0) {
      faults.times -= 1;
      return { ...smaregiError(faults.status, 'fault'), ...(faults.retryAfter ? { headers: { 'retry-after': faults.retryAfter } } : {}) };
    }
    const one = new RegExp(`^/${contract}/pos/transactions/([0-9]{1,20})$`).exec(path);
    if (one) return transactionAnswer(transactions.get(one[1] as string), customers, query);
    const customersAnswer = customersRead(customers, contract, path, query);
    if (customersAnswer) return customersAnswer;
    if (path === `/${contract}/pos/transactions`)
      return listTransactions(
        [...transactions.values()],
        query,
        (tx) => tx.customerCode ?? customers.get(String(tx.customerId))?.customerCode,
      );
    return smaregiError(404, 'Not Found');
  }

  function handle(req: IncomingMessage, body: Buffer): JsonAnswer {
    uploaded();
    const stored = storedCustomer(customers, req, (req.url ?? '/').split('?', 1)[0] ?? '/');
    if (stored) return stored;
    const test = standInAdmin(req, body, '/__smaregi/', (path, json) => admin(state, path, json));
    if (test) return test;
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const path = url.pathname;
    if (req.method === 'POST' && path === `/app/${contract}/token`) return grant(req, body);
    if (req.method === 'GET') return read(req, path, url.searchParams);
    if (req.method === 'PATCH' || (req.method === 'POST' && path.endsWith('/point/add'))) return write(req, path, body);
    return smaregiError(404, 'Not Found');
  }

  /** A point write (the customer's PATCH or the relative add): needs the write scope; a write fault first. */
  function write(req: IncomingMessage, path: string, body: Buffer): JsonAnswer {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!authorised(req) || token === undefined) return smaregiError(401, 'Unauthorized', 'invalid or expired access token');
    if (!writers.has(token)) return smaregiError(403, 'Forbidden', 'the token lacks the scope pos.customers:write');
    const writeFaults = state.writeFaults;
    if (writeFaults && writeFaults.times > 0) {
      writeFaults.times -= 1;
      if (writeFaults.commit) writePoint(customers, contract, path, body, now());
      return smaregiError(writeFaults.status, 'fault');
    }
    return writePoint(customers, contract, path, body, now());
  }

  const served = await serveStandIn(handle, { maxBodyBytes: MAX_BODY, port: options.port, host: options.host });
  return {
    url: served.url,
    port: served.port,
    contractId: options.contractId,
    putTransaction: (tx) => {
      if (holdForUpload(state.uploads, tx as Record<string, unknown>, now())) return;
      const refused = storeTransaction(state, tx as Record<string, unknown>);
      if (refused) throw new Error(JSON.stringify(refused.body));
    },
    putCustomer: (c) => customers.set(c.customerId, { point: '0', ...(c as Record<string, unknown>) }),
    deleteTransaction: (id) => {
      transactions.delete(id);
    },
    customerPoint: (id) => {
      uploaded();
      return customers.has(id) ? String(pointOf(customers.get(id))) : undefined;
    },
    reads: () => reads,
    grants: () => grants,
    close: () => served.close(),
  };
}

/** What the test-only routes change: the stand-in's stores, its faults and its clock. */
interface AdminState {
  transactions: Map<string, Record<string, unknown>>;
  customers: Map<string, Record<string, unknown>>;
  tokens: Map<string, number>;
  now: () => number;
  faults?: StandInFault | undefined;
  writeFaults?: (StandInFault & { commit: boolean }) | undefined;
  /** Sales of an offline till, waiting for their upload. */
  uploads: Uploads;
}

/** A transaction reaches the server: its spend off the customer's point, kept (same id: replaced). Refused: the answer. */
function storeTransaction(state: AdminState, tx: Record<string, unknown>): JsonAnswer | undefined {
  const id = String(tx.transactionHeadId);
  const refused = moveSpend(state.customers, state.transactions.get(id), tx, state.now());
  if (refused) return refused;
  state.transactions.set(id, tx);
  return undefined;
}

/** The test-only routes (`/__smaregi/...`): seed transactions and customers, set faults, expire tokens. */
function admin(state: AdminState, path: string, json: unknown): JsonAnswer {
  const { transactions, customers, tokens, now } = state;
  if (path === '/__smaregi/transactions') {
    const parsed = SmaregiTransaction.safeParse(json);
    if (!parsed.success) return { status: 422, body: { error: describe(parsed.error.issues[0]) } };
    const tx = json as Record<string, unknown>;
    if (holdForUpload(state.uploads, tx, now()))
      return { status: 201, body: { transactionHeadId: parsed.data.transactionHeadId, uploaded: false } };
    const refused = storeTransaction(state, tx);
    if (refused) return refused;
    return { status: 201, body: { transactionHeadId: parsed.data.transactionHeadId } };
  }
  if (path === '/__smaregi/customers') return adminCustomer(customers, json);
  if (path === '/__smaregi/faults') {
    const fault = faultFrom(json);
    if (!('times' in fault)) return fault;
    state.faults = fault;
    return { status: 201, body: { status: fault.status, times: fault.times } };
  }
  if (path === '/__smaregi/write-faults') {
    const fault = faultFrom(json);
    if (!('times' in fault)) return fault;
    const commit = (json as { commit?: unknown }).commit;
    if (typeof commit !== 'boolean') return { status: 422, body: { error: 'expected {status, times, commit: true|false}' } };
    state.writeFaults = { ...fault, commit };
    return { status: 201, body: { status: fault.status, times: fault.times, commit } };
  }
  if (path === '/__smaregi/upload-delay') return setUploadDelay(state.uploads, json);
  if (path === '/__smaregi/return-cancellations') return returnCancellation(transactions, customers, json, now());
  if (path === '/__smaregi/expire-tokens') {
    tokens.clear();
    return { status: 201, body: { expired: true } };
  }
  return { status: 404, body: { error: 'Not Found' } };
}

/**
 * Counts one API read against the contract's per-second limit (`second` carries the count across calls);
 * past it, Smaregi's 429 with `Retry-After: 1`. No limit: never.
 */
function overThrottle(second: { at: number; reads: number }, limit: number | undefined, nowMs: number): JsonAnswer | undefined {
  if (limit === undefined) return undefined;
  const at = Math.floor(nowMs / 1000);
  if (second.at !== at) Object.assign(second, { at, reads: 0 });
  second.reads += 1;
  if (second.reads > limit) return { ...smaregiError(429, 'Too Many Requests', 'rate limit exceeded'), headers: { 'retry-after': '1' } };
  return undefined;
}

/** `POST /__smaregi/customers`: stores the customer as sent, its `point` checked (none: 0). */
function adminCustomer(customers: Customers, json: unknown): JsonAnswer {
  const parsed = SmaregiCustomer.safeParse(json);
  if (!parsed.success) return { status: 422, body: { error: describe(parsed.error.issues[0]) } };
  const point = (json as { point?: unknown }).point;
  if (!validPoint(point)) return { status: 422, body: { error: 'point: 0-999999999 as a string' } };
  customers.set(parsed.data.customerId, { ...(json as Record<string, unknown>), point: point ?? '0' });
  return { status: 201, body: { customerId: parsed.data.customerId } };
}

/** `GET /{contract_id}/pos/customers/{id}` and the list (`customer_code`, paged), or undefined for another path. */
function customersRead(customers: Customers, contract: string, path: string, query: URLSearchParams): JsonAnswer | undefined {
  const one = new RegExp(`^/${contract}/pos/customers/([0-9]{1,20})$`).exec(path);
  if (one) {
    const found = customers.get(one[1] as string);
    return found ? { status: 200, body: found } : smaregiError(404, 'Not Found', 'customer not found');
  }
  if (path !== `/${contract}/pos/customers`) return undefined;
  const code = query.get('customer_code');
  const all = [...customers.values()].filter((c) => code === null || c.customerCode === code);
  const limit = Math.min(1000, Math.max(1, Number(query.get('limit') ?? '100') || 100));
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  return { status: 200, body: all.slice((page - 1) * limit, page * limit) };
}

/** The test surface's read: the customer as stored (`point` included), under the same admin guard. */
function storedCustomer(customers: Customers, req: IncomingMessage, path: string): JsonAnswer | undefined {
  const id = /^\/__smaregi\/customers\/([0-9]{1,20})$/.exec(path)?.[1];
  if (req.method !== 'GET' || id === undefined) return undefined;
  const refusal = adminRefusal({ headers: req.headers, hasBody: false });
  if (refusal) return { status: refusal.status, body: { error: refusal.error } };
  const found = customers.get(id);
  return found ? { status: 200, body: found } : { status: 404, body: { error: `no customer ${id}` } };
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
function returnCancellation(
  transactions: Map<string, Record<string, unknown>>,
  customers: Customers,
  json: unknown,
  nowMs: number,
): JsonAnswer {
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
  const disposed = { ...original, disposeDivision: '1', disposeServerTransactionHeadId: newId, updDateTime: at };
  // The cancelled sale's spent points go back to its customer, as the till does.
  moveSpend(customers, original, disposed, nowMs);
  transactions.set(id, disposed);
  return { status: 201, body: { transactionHeadId: id, newTransactionHeadId: newId } };
}

function describe(issue: { path: PropertyKey[]; message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}` : 'not a Smaregi record';
}
