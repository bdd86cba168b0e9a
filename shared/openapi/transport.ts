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

/** The largest answer body read (1 MiB): the spec's answers are a few KB; more is refused, not buffered. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/** The reason a call's overall deadline aborts it. */
export class CallDeadlineError extends Error {
  override readonly name = 'CallDeadlineError';
  readonly code = 'CALL_DEADLINE';
  constructor(readonly ms: number) {
    super(`no complete answer within ${ms} ms`);
  }
}

/** An answer body over the cap: the transfer is cut off; the status came and is kept. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  readonly code = 'ANSWER_TOO_LARGE';
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`answer larger than ${maxBytes} bytes`);
  }
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  origin: string;
  /** Already encoded path with query. */
  path: string;
  bearer?: string;
  body?: unknown;
  idempotent: boolean;
  /** Ends the whole exchange (connect, headers and body) when aborted: the call's overall deadline. */
  signal?: AbortSignal;
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

export function createTransport(opts: { userAgent?: string; timeouts?: Timeouts; maxAnswerBytes?: number } = {}): Transport {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const maxAnswerBytes = opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
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
        ...(req.signal ? { signal: req.signal } : {}),
      });
      return { status: res.statusCode, headers: res.headers, text: await readCapped(res.body, res.statusCode, maxAnswerBytes) };
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close()));
    },
  };
}

/** Reads a body as UTF-8 up to `max` bytes; past it the stream is destroyed (the rest never read). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, status: number, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      const e = new AnswerTooLargeError(status, max);
      body.destroy(e);
      throw e;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
