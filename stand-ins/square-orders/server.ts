import type { IncomingMessage } from 'node:http';
import { faultFrom, type JsonAnswer, serveStandIn, type StandInFault, standInAdmin } from '../http/index.js';
import { SquareOrder } from '../../shared/sources/square/index.js';

/**
 * A local stand-in of Square's Orders API, as much as the worker reads: `GET /v2/orders/{order_id}`
 * behind `Authorization: Bearer <token>`, answering `{ "order": … }` as Square does (404 with Square's
 * error shape for an unknown order, 401 for a wrong token). Test surface (not Square's): `POST
 * /__square/orders` stores an order exactly as GET returns it (201; the same id replaces it), under
 * the admin guard of /__local/*; `POST /__square/faults` makes the next N reads answer a status.
 */
export interface SquareOrdersStandIn {
  url: string;
  port: number;
  put(order: SquareOrder): void;
  reads(): number;
  close(): Promise<void>;
}

type Answer = JsonAnswer;

const ORDER_PATH = /^\/v2\/orders\/([A-Za-z0-9_-]{1,192})$/;
const MAX_BODY = 256 * 1024;
const squareError = (category: string, code: string, detail: string) => ({ errors: [{ category, code, detail }] });

export async function startSquareOrdersStandIn(options: {
  port?: number;
  host?: string;
  accessToken: string;
}): Promise<SquareOrdersStandIn> {
  const orders = new Map<string, SquareOrder>();
  let faults: StandInFault | undefined;
  let reads = 0;

  function admin(path: string, json: unknown): Answer {
    if (path === '/__square/orders') {
      const parsed = SquareOrder.safeParse((json as { order?: unknown })?.order ?? json);
      if (!parsed.success) return { status: 422, body: { error: parsed.error.issues[0]?.message ?? 'not a Square order' } };
      orders.set(parsed.data.id, ((json as { order?: unknown })?.order ?? json) as SquareOrder);
      return { status: 201, body: { id: parsed.data.id } };
    }
    if (path === '/__square/faults') {
      const fault = faultFrom(json);
      if (!('times' in fault)) return fault;
      faults = fault;
      return { status: 201, body: faults };
    }
    return { status: 404, body: { error: 'Not Found' } };
  }

  function read(req: IncomingMessage, id: string): Answer {
    if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
      return { status: 401, body: squareError('AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'This request could not be authorized.') };
    }
    reads += 1;
    if (faults && faults.times > 0) {
      faults.times -= 1;
      const headers: Record<string, string> = faults.retryAfter ? { 'retry-after': faults.retryAfter } : {};
      return { status: faults.status, body: squareError('API_ERROR', 'INTERNAL_SERVER_ERROR', 'fault'), headers };
    }
    const order = orders.get(id);
    return order
      ? { status: 200, body: { order } }
      : { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order ${id} not found.`) };
  }

  function handle(req: IncomingMessage, body: Buffer): Answer {
    const test = standInAdmin(req, body, '/__square/', admin);
    if (test) return test;
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const match = ORDER_PATH.exec(path);
    if (req.method !== 'GET' || !match) return { status: 404, body: squareError('INVALID_REQUEST_ERROR', 'NOT_FOUND', 'Not Found') };
    return read(req, match[1] as string);
  }

  const served = await serveStandIn(handle, { maxBodyBytes: MAX_BODY, port: options.port, host: options.host });
  return { ...served, put: (order) => orders.set(order.id, order), reads: () => reads };
}
