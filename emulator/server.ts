/**
 * The HTTP server: spec endpoints with authentication, contract check, stats and faults around each
 * handler; the admin API; 404/405 and unreadable bodies in the spec's error shapes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { adminRefusal, declaresBody } from '../shared/http/admin-guard.js';
import { registerBodyParsers } from './body.js';
import { ApiError, apiErrors } from './errors.js';
import type { ClientState } from './model.js';
import { ADMIN_PREFIX, registerAdminRoutes } from './routes/admin.js';
import { API_ROUTES, type ApiResult, type ApiRoute } from './routes/api.js';
import type { EmulatorState } from './state.js';

const toFastifyPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');
const toRegExp = (template: string): RegExp => new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

function bearerToken(req: FastifyRequest): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined || h.length < 8 || h.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  return h.slice(7).trim();
}

/** The client a request names, for stats: the token's owner (even an expired one), or the token request's client_id. */
function namedClient(state: EmulatorState, route: ApiRoute, req: FastifyRequest): string | undefined {
  if (route.auth) {
    const token = bearerToken(req);
    return token === undefined ? undefined : state.tokens.get(token)?.clientId;
  }
  const id = (req.body as Record<string, unknown> | undefined)?.client_id;
  return typeof id === 'string' && state.clients.has(id) ? id : undefined;
}

function authenticate(state: EmulatorState, req: FastifyRequest, now: number): ClientState {
  const token = bearerToken(req);
  const record = token === undefined ? undefined : state.tokens.get(token);
  const client = record === undefined || now >= record.expiresAt ? undefined : state.clients.get(record.clientId);
  if (!client) throw apiErrors.invalidToken();
  if (!client.config.contracted) throw apiErrors.notContracted();
  return client;
}

interface Answer extends ApiResult {
  headers?: Record<string, string>;
}

const fromError = (e: ApiError): Answer => ({ status: e.status, body: e.body, headers: e.headers });

function execute(state: EmulatorState, route: ApiRoute, req: FastifyRequest, now: number): Answer {
  try {
    const base = {
      state,
      now,
      params: req.params as Record<string, string>,
      query: req.query as Record<string, unknown>,
      body: req.body,
    };
    return route.auth ? route.handle({ ...base, client: authenticate(state, req, now) }) : route.handle(base);
  } catch (e) {
    if (e instanceof ApiError) return fromError(e);
    // A bug in the emulator: answer as the spec's server error, but leave a trace for whoever runs it.
    console.error('emulator: unexpected error', e);
    return fromError(apiErrors.server());
  }
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status);
  if (answer.headers) {
    for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
    // The invalid-token 401 declares text/html: serialise here so Fastify does not replace the type.
    if (answer.headers['content-type']) return reply.send(JSON.stringify(answer.body));
  }
  return answer.body === undefined ? reply.send() : reply.send(answer.body);
}

/** Ends the connection with no HTTP answer at all. */
function dropConnection(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  req.raw.socket.destroy();
}

async function handleApi(state: EmulatorState, route: ApiRoute, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const now = state.clock.now();
  const clientId = namedClient(state, route, req);
  if (clientId !== undefined) {
    state.stats.record(clientId, `${route.method} ${route.template}`, now, req.headers['user-agent'] !== undefined, !route.auth);
  }
  const fault = state.faults.take(req.method, pathOf(req.url));
  if (fault?.fault === 'reset_before') return dropConnection(req, reply);
  const answer = fault?.fault === 'error_500' ? fromError(apiErrors.server()) : execute(state, route, req, now);
  if (fault?.fault === 'reset_after_commit') return dropConnection(req, reply);
  if (fault?.fault === 'delay') await sleep(fault.delayMs);
  await send(reply, answer);
}

export interface ServerOptions {
  state: EmulatorState;
}

export function buildServer({ state }: ServerOptions): FastifyInstance {
  const app = Fastify({
    logger: false,
    // External IDs (255 characters) and tokens travel in the path.
    routerOptions: { maxParamLength: 2048 },
    bodyLimit: 1024 * 1024,
    forceCloseConnections: true,
    keepAliveTimeout: 65_000,
  });
  registerBodyParsers(app);
  // No authentication on the admin API: loopback callers only (shared/http/admin-guard.ts).
  app.addHook('onRequest', async (req, reply) => {
    if (!pathOf(req.url).startsWith(`${ADMIN_PREFIX}/`)) return;
    const refusal = adminRefusal({ headers: req.headers, hasBody: declaresBody(req.headers) });
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
  });

  for (const route of API_ROUTES) {
    app.route({
      method: route.method,
      url: toFastifyPath(route.template),
      handler: (req, reply) => handleApi(state, route, req, reply),
    });
  }
  registerAdminRoutes(app, state);

  // A known path with a method it does not allow is a 405, anything else a 404.
  const patterns = API_ROUTES.map((r) => toRegExp(r.template));
  app.setNotFoundHandler((req, reply) => {
    const path = pathOf(req.url);
    if (path.startsWith(`${ADMIN_PREFIX}/`)) return reply.code(404).send({ error: `no admin call ${req.method} ${path}` });
    // No route to count it under, but a request without a User-Agent still shows under the client its token names.
    if (req.headers['user-agent'] === undefined) {
      const token = bearerToken(req);
      const clientId = token === undefined ? undefined : state.tokens.get(token)?.clientId;
      if (clientId !== undefined) state.stats.recordMissingUserAgent(clientId);
    }
    const known = patterns.some((re) => re.test(path));
    return send(reply, fromError(known ? apiErrors.methodNotAllowed() : apiErrors.pageNotFound()));
  });

  app.setErrorHandler((error: { statusCode?: number; message: string }, req, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (pathOf(req.url).startsWith(`${ADMIN_PREFIX}/`)) return reply.code(status).send({ error: error.message });
    if (status === 500) return send(reply, fromError(apiErrors.server()));
    return reply.code(status).send({ status: false, errors: [error.message] });
  });

  return app;
}

