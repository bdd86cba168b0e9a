/**
 * HTTP over Node's own http/https modules: a keep-alive Agent per origin. Every upstream we call (the Open
 * API, the shop-side APIs) goes through this one stack, so caps and deadlines are the same everywhere.
 * Timeouts on connect, headers and body; User-Agent on every request; JSON or form bodies with their
 * Content-Type. Node's modules, not undici: undici is ~520 KB of the worker's bundle (a third of its
 * cold start, bench/results.md) for two small JSON calls per event; node:http costs nothing to load.
 */
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { AnswerTooLargeError, CallDeadlineError, StaleSocketError, TIMEOUT_CODE, TransportError } from './errors.js';
import { PRODUCT_VERSION } from './version.js';

export const DEFAULT_USER_AGENT = `loyalty-points-bridge/${PRODUCT_VERSION}`;

export interface Timeouts {
  connectMs?: number;
  headersMs?: number;
  bodyMs?: number;
}

export const DEFAULT_TIMEOUTS = { connectMs: 3_000, headersMs: 10_000, bodyMs: 10_000 } as const;

/** Every call's overall deadline, connect to last byte, unless its caller has less time. */
export const DEFAULT_CALL_DEADLINE_MS = 10_000;

/** The largest answer body read (1 MiB): the spec's answers are a few KB; more is refused, not buffered. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  origin: string;
  /** Already encoded path with query. */
  path: string;
  bearer?: string;
  /** Extra request headers (an API's own auth or version header); they win over the defaults. */
  headers?: Record<string, string>;
  /** A JSON body (serialised here) ... */
  body?: unknown;
  /** ... or an `application/x-www-form-urlencoded` body (token endpoints); not both. */
  form?: Record<string, string>;
  idempotent: boolean;
  /** The call's overall deadline (ms from now): it ends the whole exchange, connect, headers and body. */
  deadlineMs?: number;
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

interface Origin {
  agent: HttpAgent;
  request: typeof httpRequest;
  hostname: string;
  port: string;
}

export function createTransport(opts: { userAgent?: string; timeouts?: Timeouts; maxAnswerBytes?: number } = {}): Transport {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const maxAnswerBytes = opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const origins = new Map<string, Origin>();
  const originFor = (origin: string): Origin => {
    let o = origins.get(origin);
    if (!o) {
      const url = new URL(origin);
      const https = url.protocol === 'https:';
      // Idle sockets are closed before a server's usual 60 s keep-alive, so a request rarely meets a
      // socket the server is closing at that very moment.
      const options = { keepAlive: true, keepAliveMsecs: 1_000, scheduling: 'lifo' as const, timeout: 30_000 };
      o = {
        agent: https ? new HttpsAgent(options) : new HttpAgent(options),
        request: https ? (httpsRequest as typeof httpRequest) : httpRequest,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
      };
      origins.set(origin, o);
    }
    return o;
  };

  return {
    send(req) {
      const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
      if (req.bearer !== undefined) headers.authorization = `Bearer ${req.bearer}`;
      let body: string | undefined;
      if (req.body !== undefined || req.form !== undefined) {
        const form = req.form !== undefined;
        body = form ? new URLSearchParams(req.form).toString() : JSON.stringify(req.body);
        headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
        headers['content-length'] = String(Buffer.byteLength(body));
      }
      if (req.headers) for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
      const o = originFor(req.origin);
      return new Promise<HttpAnswer>((resolve, reject) => {
        // Two timers per exchange, no AbortController: the call's deadline, and the phase deadline
        // (connect, headers, then body idle time) re-armed by refresh() as each chunk comes.
        let phase: NodeJS.Timeout | undefined;
        let deadline: NodeJS.Timeout | undefined;
        let settled = false;
        const settle = () => {
          settled = true;
          clearTimeout(phase);
          clearTimeout(deadline);
        };
        const fail = (error: Error) => {
          if (settled) return;
          settle();
          request.destroy(error);
          reject(error);
        };
        const arm = (ms: number, code: TransportError['code'], what: string) => {
          clearTimeout(phase);
          phase = setTimeout(() => fail(new TransportError(code, `${what} timeout after ${ms} ms`)), ms);
        };
        const request = o.request({
          agent: o.agent,
          hostname: o.hostname,
          port: o.port,
          method: req.method,
          path: req.path,
          headers,
        });
        if (req.deadlineMs !== undefined) {
          const ms = req.deadlineMs;
          // The call's overall deadline fails with its own reason (CALL_DEADLINE), whatever phase it cuts.
          deadline = setTimeout(() => fail(new CallDeadlineError(ms)), ms);
        }
        // A reused socket whose server hung up before any byte of ours was written: provably unsent.
        const closedBeforeWrite = watchStaleSocket(request);
        request.on('error', (error: Error) => fail(closedBeforeWrite() ? new StaleSocketError() : error));
        request.on('socket', (socket) => {
          // A reused keep-alive socket is connected already: only the answer's deadline applies.
          if (socket.connecting) {
            arm(timeouts.connectMs, TIMEOUT_CODE.connect, 'connect');
            socket.once('connect', () => arm(timeouts.headersMs, TIMEOUT_CODE.headers, 'headers'));
          } else arm(timeouts.headersMs, TIMEOUT_CODE.headers, 'headers');
        });
        request.on('response', (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          let size = 0;
          // The body deadline is an idle deadline, renewed by every chunk.
          arm(timeouts.bodyMs, TIMEOUT_CODE.body, 'body');
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            // Past the cap the transfer is cut off: the rest is never read, nor held in memory.
            if (size > maxAnswerBytes) return fail(new AnswerTooLargeError(res.statusCode ?? 0, maxAnswerBytes));
            chunks.push(chunk);
            phase?.refresh();
          });
          res.on('error', fail);
          res.on('aborted', () => fail(Object.assign(new Error('the answer was cut short'), { code: 'ECONNRESET' })));
          res.on('end', () => {
            if (settled) return;
            settle();
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
            });
          });
        });
        request.end(body);
      });
    },
    async close() {
      const all = [...origins.values()];
      origins.clear();
      for (const o of all) o.agent.destroy();
    },
  };
}

/**
 * Whether the request's kept-alive socket was closed by the server (its FIN came) while not a byte of
 * this request had been written on it: then the server never read it. Any other reset proves nothing.
 */
function watchStaleSocket(request: ClientRequest): () => boolean {
  let closedBeforeWrite = false;
  request.on('socket', (socket) => {
    if (socket.connecting) return;
    const written = socket.bytesWritten;
    if (socket.readableEnded) {
      closedBeforeWrite = true;
      return;
    }
    const onEnd = () => {
      closedBeforeWrite ||= socket.bytesWritten === written;
    };
    socket.once('end', onEnd);
    // The socket lives on in the pool: its listener must not outlive this exchange.
    request.once('close', () => socket.off('end', onEnd));
  });
  return () => closedBeforeWrite;
}
