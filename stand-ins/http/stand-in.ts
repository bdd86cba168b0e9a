import type { IncomingMessage } from 'node:http';
import { adminRefusal } from '../../shared/http/index.js';
import { answerJson, type JsonAnswer, type JsonHandler, routeAllTo } from './json-answer.js';
import { createStandInServer, type RunningServer, serve } from './server.js';

/**
 * The parts every shop-side stand-in shares: its test surface under a prefix (POST only, behind the
 * admin guard of /__local/*, a JSON body), the faults it can be told to answer with, and its server.
 */

/** The next `times` reads answer `status` (with a Retry-After when given). */
export interface StandInFault {
  status: number;
  times: number;
  retryAfter?: string;
}

/**
 * Routes a request under the test prefix: refused unless POST from a loopback caller with JSON, else
 * `admin(path, json)`; undefined for a request outside the prefix.
 */
export function standInAdmin(
  req: IncomingMessage,
  body: Buffer,
  prefix: string,
  admin: (path: string, json: unknown) => JsonAnswer,
): JsonAnswer | undefined {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (!path.startsWith(prefix)) return undefined;
  if (req.method !== 'POST') return { status: 405, body: { error: 'use POST' } };
  const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 });
  if (refusal) return { status: refusal.status, body: { error: refusal.error } };
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return { status: 400, body: { error: 'the body is not JSON' } };
  }
  return admin(path, json);
}

/** `{status, times, retry_after?}` as a fault, or the answer refusing it. */
export function faultFrom(json: unknown): StandInFault | JsonAnswer {
  const f = json as { status?: unknown; times?: unknown; retry_after?: unknown };
  if (typeof f.status !== 'number' || typeof f.times !== 'number') return { status: 422, body: { error: 'expected {status, times}' } };
  return { status: f.status, times: f.times, ...(typeof f.retry_after === 'string' ? { retryAfter: f.retry_after } : {}) };
}

/**
 * Serves `handle` on host:port (0: a free port; no or an empty host: 127.0.0.1) until `close`: bodies up to `maxBodyBytes` (413 past it),
 * 500 when it throws, a connection cut for a `destroy` answer. A path the router cannot decode is still
 * `handle`'s to answer (with no body), as every other path is.
 */
export async function serveStandIn(
  handle: JsonHandler,
  options: { maxBodyBytes: number; port?: number | undefined; host?: string | undefined },
): Promise<RunningServer> {
  const app = createStandInServer({
    bodyLimit: options.maxBodyBytes,
    keepAliveTimeout: 5_000,
    frameworkErrors: (_error, req, reply) => answerJson(handle, req, reply, Buffer.alloc(0)),
  });
  routeAllTo(app, handle, options.maxBodyBytes);
  return serve(app, { port: options.port, host: options.host || undefined });
}
