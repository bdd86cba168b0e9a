/**
 * Requests the HTTP framework refuses before any route handler runs (an undecodable or over-long path
 * parameter, a body it cannot take, bytes that are not HTTP). The Open API answers every failure as
 * `{ status: false, errors }`, so these are mapped to its shapes here instead of Fastify's own.
 */
import type { Socket } from 'node:net';
import { MESSAGES } from '../../shared/openapi/index.js';
import type { ApiRoute } from './routes/api.js';

/** Longest path parameter the router takes (external IDs are up to 255 characters; tokens are not fixed). */
export const MAX_PARAM_LENGTH = 2048;
export const BODY_LIMIT = 1024 * 1024;

const label = (name: string): string => name.replace(/_/g, ' ');

interface CompiledRoute {
  route: ApiRoute;
  pattern: RegExp;
  /** Each parameter's name and its index in the path's `/`-separated segments. */
  params: { name: string; segment: number }[];
}

export type RawMatch = { route: ApiRoute } | 'method_not_allowed' | 'not_found';

/**
 * Matches a raw (undecoded) path against the Open API's templates, the way the router would: a static
 * segment wins over a parameter, so the template with the fewest parameters is taken.
 */
export class RawRouteMatcher {
  private compiled: CompiledRoute[];

  constructor(routes: ApiRoute[]) {
    this.compiled = routes
      .map((route) => {
        const params: CompiledRoute['params'] = [];
        route.template.split('/').forEach((part, segment) => {
          const name = /^\{(\w+)\}$/.exec(part)?.[1];
          if (name !== undefined) params.push({ name, segment });
        });
        return { route, pattern: new RegExp(`^${route.template.replace(/\{\w+\}/g, '[^/]+')}$`), params };
      })
      .sort((a, b) => a.params.length - b.params.length);
  }

  /** True when some endpoint has this path (with any method). */
  knownPath(path: string): boolean {
    return this.compiled.some((c) => c.pattern.test(path));
  }

  match(method: string, path: string): RawMatch {
    const wanted = method === 'HEAD' ? 'GET' : method;
    let known = false;
    for (const c of this.compiled) {
      if (!c.pattern.test(path)) continue;
      if (c.route.method === wanted) return { route: c.route };
      known = true;
    }
    return known ? 'method_not_allowed' : 'not_found';
  }

  /** The message for the first path parameter of `route` that cannot be read from `path`. */
  parameterProblem(route: ApiRoute, path: string): string {
    const params = this.compiled.find((x) => x.route === route)?.params ?? [];
    const parts = path.split('/');
    for (const { name, segment } of params) {
      const raw = parts[segment] ?? '';
      if (raw.length > MAX_PARAM_LENGTH) return MESSAGES.maxLength(label(name), MAX_PARAM_LENGTH);
      try {
        decodeURIComponent(raw);
      } catch {
        return MESSAGES.pathEncoding(label(name));
      }
    }
    // Not reached while this check matches the router's; should they ever differ, name the first parameter.
    return MESSAGES.pathEncoding(label(params[0]?.name ?? 'url'));
  }
}

/** The body problem an endpoint answers for a body-reading error of the framework; undefined: the body is not read. */
export function bodyProblem(code: string | undefined): string | undefined {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return MESSAGES.bodyTooLarge(BODY_LIMIT);
    // An empty or unparseable Content-Type: like any type the API does not take, the body is not read.
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return undefined;
    default:
      return MESSAGES.bodyUnreadable;
  }
}

const json = (message: string): string => JSON.stringify({ status: false, errors: [message] });

/**
 * Bytes Node's HTTP parser refused: nothing tells the route or the client, so the answer is a plain 400 in
 * the Open API's simple shape, and the connection is closed (Node would close it anyway).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? MESSAGES.requestHeadTooLarge
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? MESSAGES.requestTimeout
        : MESSAGES.requestMalformed;
  const body = json(message);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
