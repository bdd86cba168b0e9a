import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SmaregiCustomer, SmaregiTransaction } from '../../shared/smaregi/index.js';
import { faultFrom, type JsonAnswer, serveStandIn, standInAdmin, type StandInFault } from '../http/index.js';
import { listTransactions } from './list.js';

/**
 * A local stand-in of Smaregi's Platform API, as much as the worker and the reconcile use:
 * - `POST /app/{contract_id}/token` (the id host's client-credentials grant: Basic auth, a form body),
 *   answering `{access_token, token_type, expires_in, scope}`; tokens expire after `tokenTtlSeconds`;
 * - `GET /{contract_id}/pos/transactions/{id}` behind `Authorization: Bearer`, with `with_details` and
 *   `with_customer` (`all` adds the details / the customer object, as Smaregi does);
 * - `GET /{contract_id}/pos/transactions` listed by `upd_date_time-from/to` (31 days at most), paged.
 * One server plays both hosts (the id host and the API host). Test surface (not Smaregi's), under the
 * admin guard of /__local/*: `POST /__smaregi/customers`, `POST /__smaregi/transactions` (as GET returns
 * it, details included; the same id replaces it), both 201; `POST /__smaregi/faults` makes the next N API
 * reads answer a status (429 with a Retry-After); `POST /__smaregi/expire-tokens` ends every token.
 */
export interface SmaregiStandIn {
  url: string;
  port: number;
  contractId: string;
  putTransaction(tx: SmaregiTransaction): void;
  putCustomer(customer: SmaregiCustomer): void;
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
  now?: () => number;
}

const MAX_BODY = 512 * 1024;
const smaregiError = (status: number, title: string, detail?: string) => ({
  status,
  body: { type: 'about:blank', title, ...(detail ? { detail } : {}), status },
});

export async function startSmaregiStandIn(options: SmaregiStandInOptions): Promise<SmaregiStandIn> {
  const now = options.now ?? Date.now;
  const transactions = new Map<string, Record<string, unknown>>();
  const customers = new Map<string, Record<string, unknown>>();
  const tokens = new Map<string, number>();
  let faults: StandInFault | undefined;
  let reads = 0;
  let grants = 0;
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
    if (faults && faults.times > 0) {
      faults.times -= 1;
      return { ...smaregiError(faults.status, 'fault'), ...(faults.retryAfter ? { headers: { 'retry-after': faults.retryAfter } } : {}) };
    }
    const one = new RegExp(`^/${contract}/pos/transactions/([0-9]{1,20})$`).exec(path);
    if (one) {
      const tx = transactions.get(one[1] as string);
      if (!tx) return smaregiError(404, 'Not Found', 'transaction not found');
      const { details, customer: _, ...head } = tx;
      const customer =
        query.get('with_customer') === 'all' && typeof tx.customerId === 'string' ? (customers.get(tx.customerId) ?? null) : undefined;
      return {
        status: 200,
        body: {
          ...head,
          ...(query.get('with_details') === 'all' ? { details: details ?? [] } : {}),
          ...(customer !== undefined ? { customer } : {}),
        },
      };
    }
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
    return smaregiError(404, 'Not Found');
  }

  const served = await serveStandIn(handle, {
    maxBodyBytes: MAX_BODY,
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
  });
  return {
    url: served.url,
    port: served.port,
    contractId: options.contractId,
    putTransaction: (tx) => transactions.set(tx.transactionHeadId, tx as Record<string, unknown>),
    putCustomer: (c) => customers.set(c.customerId, c as Record<string, unknown>),
    reads: () => reads,
    grants: () => grants,
    close: () => served.close(),
  };
}

function describe(issue: { path: PropertyKey[]; message: string } | undefined): string {
  return issue ? `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}` : 'not a Smaregi record';
}
