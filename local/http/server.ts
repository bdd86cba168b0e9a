import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { adminRefusal, NO_FRAMING_HEADERS } from '../../shared/http/index.js';
import { listen } from '../../stand-ins/http/index.js';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { lambdaContext } from '../lambda/context.js';
import { toApiGatewayEvent } from './api-gateway-event.js';
import { type HttpAnswer, fromLambdaResult, gatewayError, jsonAnswer } from './api-gateway-result.js';

/** A Lambda behind an HTTP API route. */
export type ApiHandler = (event: APIGatewayProxyEventV2, context?: Context) => Promise<APIGatewayProxyResultV2<unknown>>;

/** A local-only route (admin, health): plain request in, JSON out. */
export type LocalRoute = (request: { body: Buffer; query: URLSearchParams }) => Promise<HttpAnswer> | HttpAnswer;

export interface LocalHttpServerOptions {
  port: number;
  host?: string;
  /** API Gateway routes by route key, e.g. `POST /webhooks/shopify`. */
  apiRoutes: Readonly<Record<string, ApiHandler>>;
  /** Routes served by this process itself, by `METHOD /path` (exact). */
  localRoutes?: Readonly<Record<string, LocalRoute>>;
  /** GET /healthz answers 200 only once this says so. */
  isReady: () => boolean;
  /** API Gateway's payload limit (10 MB); larger requests get 413 before any handler runs. */
  maxPayloadBytes?: number;
  /** API Gateway's integration timeout (30 s); a slower handler is answered 503. */
  integrationTimeoutMs?: number;
  now?: () => number;
  /** Told about handler failures (name and message only: never the request). */
  onHandlerError?: (routeKey: string, error: unknown) => void;
}

export interface LocalHttpServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_PAYLOAD = 10 * 1024 * 1024;
/** The local stack's admin routes: loopback callers only (shared/http/admin-guard.ts). */
const LOCAL_ADMIN_PREFIX = '/__local/';
/** The operator console's page posts to its own routes (same origin): admitted with its loopback Origin. */
const CONSOLE_PREFIX = '/__local/console/';

/** The local stand-in for API Gateway: one node:http server turning requests into v2 events. */
export async function startLocalHttpServer(options: LocalHttpServerOptions): Promise<LocalHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const maxPayload = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD;
  const timeoutMs = options.integrationTimeoutMs ?? 30_000;
  const now = options.now ?? Date.now;
  const localRoutes: Readonly<Record<string, LocalRoute>> = {
    'GET /healthz': () => (options.isReady() ? jsonAnswer(200, { status: 'ok' }) : jsonAnswer(503, { status: 'starting' })),
    ...options.localRoutes,
  };

  async function answer(req: IncomingMessage, body: Buffer): Promise<HttpAnswer> {
    const url = req.url ?? '/';
    const [path = ''] = url.split('?', 1);
    const routeKey = `${req.method ?? 'GET'} ${path}`;
    const local = localRoutes[routeKey];
    if (local !== undefined && path.startsWith(LOCAL_ADMIN_PREFIX)) {
      const sameOrigin = path.startsWith(CONSOLE_PREFIX);
      const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 }, { sameOrigin });
      if (refusal) return jsonAnswer(refusal.status, { error: refusal.error });
    }
    if (local !== undefined) return local({ body, query: new URLSearchParams(url.slice(path.length + 1)) });
    const handler = options.apiRoutes[routeKey];
    if (handler === undefined) return gatewayError(404, 'Not Found');
    const event = toApiGatewayEvent(
      {
        method: req.method ?? 'GET',
        url,
        rawHeaders: req.rawHeaders,
        body,
        sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
        localPort: req.socket.localPort ?? 0,
        protocol: `HTTP/${req.httpVersion}`,
      },
      routeKey,
      now(),
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<HttpAnswer>((resolve) => {
      timer = setTimeout(() => resolve(gatewayError(503, 'Service Unavailable')), timeoutMs);
    });
    try {
      const run = handler(event, lambdaContext(routeKey.replace(/\W+/g, '-'), timeoutMs, now)).then(fromLambdaResult);
      return await Promise.race([run, timedOut]);
    } catch (error) {
      options.onHandlerError?.(routeKey, error);
      return gatewayError(500, 'Internal Server Error');
    } finally {
      clearTimeout(timer);
    }
  }

  function write(res: ServerResponse, a: HttpAnswer, path: string): void {
    // The admin surfaces (the console among them): never framed, whatever the answer (a refusal, a 404 too).
    const guard = path.startsWith(LOCAL_ADMIN_PREFIX) ? NO_FRAMING_HEADERS : {};
    res.writeHead(a.status, { ...a.headers, ...guard, 'content-length': String(a.body.length) });
    res.end(a.body);
  }

  const server = createServer((req, res) => {
    const [path = ''] = (req.url ?? '/').split('?', 1);
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > maxPayload) {
      write(res, gatewayError(413, 'Request Entity Too Large'), path);
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxPayload) {
        refused = true;
        write(res, gatewayError(413, 'Request Entity Too Large'), path);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      answer(req, Buffer.concat(chunks)).then(
        (a) => write(res, a, path),
        () => write(res, gatewayError(500, 'Internal Server Error'), path),
      );
    });
    req.on('error', () => res.destroy());
  });
  // Keep-alive sockets would hold close() open; the local server closes them with it.
  server.keepAliveTimeout = 5_000;

  const port = await listen(server, options.port, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
