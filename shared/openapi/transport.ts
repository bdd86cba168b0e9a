/**
 * HTTP over undici: a keep-alive Pool per origin (in practice one: the service's base URL). Timeouts
 * on connect, headers and body; User-Agent on every request; JSON bodies with their Content-Type.
 */
import { Pool } from 'undici';
import packageJson from '../../package.json' with { type: 'json' };

export const DEFAULT_USER_AGENT = `loyalty-points-bridge/${packageJson.version}`;

export interface Timeouts {
  connectMs?: number;
  headersMs?: number;
  bodyMs?: number;
}

export const DEFAULT_TIMEOUTS = { connectMs: 3_000, headersMs: 10_000, bodyMs: 10_000 } as const;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  origin: string;
  /** Already encoded path with query. */
  path: string;
  bearer?: string;
  body?: unknown;
  idempotent: boolean;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface Transport {
  send(req: HttpRequest): Promise<HttpAnswer>;
  close(): Promise<void>;
}

export function createTransport(opts: { userAgent?: string; timeouts?: Timeouts } = {}): Transport {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const pools = new Map<string, Pool>();
  // A Pool straight away, not an Agent: one lookup less per call, same keep-alive behaviour.
  const poolFor = (origin: string): Pool => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connect: { timeout: timeouts.connectMs },
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
        keepAliveTimeout: 30_000,
      });
      pools.set(origin, pool);
    }
    return pool;
  };
  return {
    async send(req) {
      const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
      if (req.bearer !== undefined) headers['authorization'] = `Bearer ${req.bearer}`;
      let body: string | undefined;
      if (req.body !== undefined) {
        body = JSON.stringify(req.body);
        headers['content-type'] = 'application/json';
      }
      const res = await poolFor(req.origin).request({
        path: req.path,
        method: req.method,
        headers,
        body,
        // Only side-effect-free reads may share a pipeline slot with a request still in flight.
        idempotent: req.idempotent,
      });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
