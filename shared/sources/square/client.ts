import { type CircuitBreaker, createCircuitBreaker } from '../../retry/index.js';
import { createTransport, DEFAULT_CALL_DEADLINE_MS, type HttpAnswer, type Transport } from '../../http-client/index.js';
import { SquareOrdersError } from './errors.js';
import { RetrieveOrderAnswer, type SquareOrder } from './order.js';

/**
 * A client of Square's Orders API, `RetrieveOrder` only (`GET /v2/orders/{order_id}`, Bearer token,
 * `Square-Version`), under the Open API client's rules: the one HTTP stack (answer cap, an overall
 * deadline per call), 429 and 5xx retried with backoff (Square's `Retry-After` honoured), and a
 * circuit breaker so a Square outage costs one probe per period, not a call per event.
 */
export const SQUARE_PRODUCTION_ORIGIN = 'https://connect.squareup.com';
/** The API version the order shape was read against (square/connect-api-specification 2025-08-20). */
export const SQUARE_API_VERSION = '2025-08-20';

export interface SquareOrdersClientOptions {
  /** Default Square's production host; the sandbox or the local stand-in otherwise. */
  origin?: string;
  /** The access token; asked for on every call (callers cache it). */
  accessToken: () => Promise<string>;
  squareVersion?: string;
  deadlineMs?: number;
  /** Calls of one retrieve, the first included (default 3). */
  maxAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  breaker?: CircuitBreaker;
  transport?: Transport;
}

export interface SquareOrdersClient {
  retrieveOrder(orderId: string): Promise<SquareOrder>;
  close(): Promise<void>;
}

const ORDER_ID = /^[A-Za-z0-9_-]{1,192}$/;
const MAX_WAIT_MS = 5_000;
const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createSquareOrdersClient(opts: SquareOrdersClientOptions): SquareOrdersClient {
  const origin = opts.origin ?? SQUARE_PRODUCTION_ORIGIN;
  const transport = opts.transport ?? createTransport();
  const breaker = opts.breaker ?? createCircuitBreaker({ openMs: 30_000 });
  const sleep = opts.sleep ?? sleepMs;
  const maxAttempts = opts.maxAttempts ?? 3;

  async function once(orderId: string): Promise<HttpAnswer> {
    const token = await opts.accessToken();
    try {
      return await transport.send({
        method: 'GET',
        origin,
        path: `/v2/orders/${encodeURIComponent(orderId)}`,
        bearer: token,
        headers: { 'square-version': opts.squareVersion ?? SQUARE_API_VERSION },
        idempotent: true,
        deadlineMs: opts.deadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
      });
    } catch (e) {
      throw new SquareOrdersError('unavailable', `Square Orders API at ${origin}: ${e instanceof Error ? e.message : 'no answer'}`);
    }
  }

  async function retrieve(orderId: string): Promise<SquareOrder> {
    for (let attempt = 1; ; attempt++) {
      let answer: HttpAnswer;
      try {
        answer = await once(orderId);
      } catch (e) {
        if (attempt >= maxAttempts) throw e;
        await sleep(backoffMs(attempt, undefined));
        continue;
      }
      const { status } = answer;
      if (status === 429 || status >= 500) {
        if (attempt >= maxAttempts) throw new SquareOrdersError('unavailable', `Square Orders API answered ${status}`, status);
        await sleep(backoffMs(attempt, answer.headers['retry-after']));
        continue;
      }
      if (status === 401 || status === 403) {
        throw new SquareOrdersError(
          'unauthorized',
          `Square Orders API answered ${status}: check the token and its ORDERS_READ scope`,
          status,
        );
      }
      if (status === 404) throw new SquareOrdersError('not_found', `Square has no order ${orderId} for this token`, status);
      if (status !== 200) throw new SquareOrdersError('invalid_response', `Square Orders API answered ${status}`, status);
      const parsed = RetrieveOrderAnswer.safeParse(safeJson(answer.text));
      if (!parsed.success) throw new SquareOrdersError('invalid_response', 'Square Orders API answered without an order', status);
      return parsed.data.order;
    }
  }

  return {
    async retrieveOrder(orderId) {
      if (!ORDER_ID.test(orderId)) throw new SquareOrdersError('not_found', 'not a Square order id');
      const admission = breaker.admit();
      if (admission === 'reject') throw new SquareOrdersError('unavailable', 'Square Orders API is failing: waiting for the next probe');
      try {
        const order = await retrieve(orderId);
        breaker.record({ ok: true });
        return order;
      } catch (e) {
        const outage = e instanceof SquareOrdersError && e.kind === 'unavailable';
        breaker.record(outage ? { ok: false, errorKind: 'server' } : { ok: true });
        throw e;
      } finally {
        if (admission === 'probe') breaker.probeDone();
      }
    },
    close: () => transport.close(),
  };
}

/** Square's `Retry-After` (seconds) when it gives one, else 200 ms doubling; never past MAX_WAIT_MS. */
function backoffMs(attempt: number, retryAfter: string | string[] | undefined): number {
  const seconds = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
  const ms = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : 200 * 2 ** (attempt - 1);
  return Math.min(ms, MAX_WAIT_MS);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
