/**
 * The HTTP server: Open API endpoints with authentication, contract check, stats and faults around each
 * handler; the admin API; 404/405 and unreadable bodies in the Open API's error shapes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminRefusal, declaresBody } from '../../shared/http/index.js';
import { createStandInServer } from '../http/index.js';
import { registerBodyParsers, UnreadableBody } from './body.js';
import { ApiError, apiErrors } from './errors.js';
import { answerClientError, BODY_LIMIT, bodyProblem, MAX_PARAM_LENGTH, RawRouteMatcher } from './framework.js';
import { elapsedMs } from './clock.js';
import type { FaultAnswer, LateAnswer } from './faults.js';
import type { ClientState } from './model.js';
import { ADMIN_PREFIX, registerAdminRoutes } from './routes/admin.js';
import { API_ROUTES, type ApiResult, type ApiRoute } from './routes/api.js';
import type { EmulatorState } from './state.js';

const toFastifyPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');
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

/** The client whose access token the request carries, while that token is valid at emulator time `now`. */
function tokenClient(state: EmulatorState, req: FastifyRequest, now: number): string | undefined {
  const token = bearerToken(req);
  const record = token === undefined ? undefined : state.tokens.get(token);
  return record === undefined || now >= record.expiresAt ? undefined : record.clientId;
}

/** The client of an accepted token, if it is (still) under contract. */
function contractedClient(state: EmulatorState, clientId: string | undefined): ClientState {
  const client = clientId === undefined ? undefined : state.clients.get(clientId);
  if (!client) throw apiErrors.invalidToken();
  if (!client.config.contracted) throw apiErrors.notContracted();
  return client;
}

interface Answer extends ApiResult {
  headers?: Record<string, string>;
}

const fromError = (e: ApiError): Answer => ({ status: e.status, body: e.body, headers: e.headers });

/** What the operation needs of a request, read as it arrives: a late commit runs from it after the request is gone. */
interface Arrival {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  /** A path parameter the router could not read: a parameter error, answered after the token and contract checks. */
  pathProblem: string | undefined;
}

const arrivalOf = (req: FastifyRequest, pathProblem: string | undefined): Arrival => ({
  params: req.params as Record<string, string>,
  query: req.query as Record<string, unknown>,
  body: req.body,
  pathProblem,
});

/** Runs the operation against the state of now (emulator time `now`); `client` authenticates an endpoint that needs it. */
function run(state: EmulatorState, route: ApiRoute, arrival: Arrival, now: number, client: () => ClientState): Answer {
  try {
    const base = { state, now, realNow: elapsedMs(), params: arrival.params, query: arrival.query, body: arrival.body };
    if (!route.auth) return route.handle(base);
    const authenticated = client();
    if (arrival.pathProblem !== undefined) throw apiErrors.validation([arrival.pathProblem]);
    return route.handle({ ...base, client: authenticated });
  } catch (e) {
    if (e instanceof ApiError) return fromError(e);
    // A bug in the emulator: answer as the Open API's server error, but leave a trace for whoever runs it.
    console.error('emulator: unexpected error', e);
    return fromError(apiErrors.server());
  }
}

function execute(state: EmulatorState, route: ApiRoute, req: FastifyRequest, now: number, pathProblem?: string): Answer {
  return run(state, route, arrivalOf(req, pathProblem), now, () => contractedClient(state, tokenClient(state, req, now)));
}

/**
 * A late_commit: the request was received and its operation runs `commitAfterMs` of real time later, as if
 * it arrived then (the state and the emulator's clock of that moment; its answer goes nowhere). Only the
 * access token is taken as checked on arrival, as the service's front did: a token valid then is not checked
 * again (it may have expired since); one refused then means the operation never runs.
 */
function commitLater(state: EmulatorState, route: ApiRoute, req: FastifyRequest, now: number, afterMs: number, pathProblem?: string): void {
  const arrival = arrivalOf(req, pathProblem);
  const clientId = route.auth ? tokenClient(state, req, now) : undefined;
  if (route.auth && clientId === undefined) return;
  state.lateCommits.schedule(afterMs, () => {
    run(state, route, arrival, state.clock.now(), () => contractedClient(state, clientId));
  });
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

/** A `status` fault's answer: status, headers and body exactly as given, whatever they are. */
function sendRaw(reply: FastifyReply, answer: FaultAnswer): FastifyReply {
  reply.code(answer.status);
  for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
  // A string payload is sent as is; Fastify adds text/plain only when no content-type was given.
  return reply.send(answer.body);
}

/** Ends the connection with no HTTP answer at all. */
function dropConnection(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  req.raw.socket.destroy();
}

/** A late_commit's answer, before its operation has run: none (`reset`, `hold`: the connection is left open), or its status. */
function answerAtOnce(req: FastifyRequest, reply: FastifyReply, kind: LateAnswer, answer: FaultAnswer | undefined): void {
  // hold: Fastify lets go of the reply; the socket stays open until the client closes it (or the emulator closes).
  if (kind === 'hold') return void reply.hijack();
  // The fault's validation gives a status answer its status.
  if (kind === 'status' && answer) return void sendRaw(reply, answer);
  dropConnection(req, reply);
}

async function handleApi(
  state: EmulatorState,
  route: ApiRoute,
  req: FastifyRequest,
  reply: FastifyReply,
  pathProblem?: string,
): Promise<void> {
  const now = state.clock.now();
  const clientId = namedClient(state, route, req);
  if (clientId !== undefined) {
    state.stats.record(clientId, `${route.method} ${route.template}`, now, req.headers['user-agent'] !== undefined, !route.auth);
  }
  const fault = state.faults.take(req.method, pathOf(req.url));
  if (fault?.fault === 'late_commit' && fault.late) {
    commitLater(state, route, req, now, fault.late.commitAfterMs, pathProblem);
    return answerAtOnce(req, reply, fault.late.answer, fault.answer);
  }
  if (fault?.fault === 'reset_before') return dropConnection(req, reply);
  if (fault?.fault === 'status' && fault.answer) return void sendRaw(reply, fault.answer);
  const answer = fault?.fault === 'error_500' ? fromError(apiErrors.server()) : execute(state, route, req, now, pathProblem);
  if (fault?.fault === 'reset_after_commit') return dropConnection(req, reply);
  if (fault?.fault === 'delay') await sleep(fault.delayMs);
  await send(reply, answer);
}

export interface ServerOptions {
  state: EmulatorState;
}

/** A 404 or 405: no route to count it under, but a request without a User-Agent still shows under the client its token names. */
function answerNoRoute(state: EmulatorState, req: FastifyRequest, reply: FastifyReply, knownPath: boolean): FastifyReply {
  if (req.headers['user-agent'] === undefined) {
    const token = bearerToken(req);
    const clientId = token === undefined ? undefined : state.tokens.get(token)?.clientId;
    if (clientId !== undefined) state.stats.recordMissingUserAgent(clientId);
  }
  return send(reply, fromError(knownPath ? apiErrors.methodNotAllowed() : apiErrors.pageNotFound()));
}

export function buildServer({ state }: ServerOptions): FastifyInstance {
  const matcher = new RawRouteMatcher(API_ROUTES);
  // As every stand-in's (stand-ins/http): no logger, connections cut on close, never Fastify's 503 while closing.
  const app = createStandInServer({
    // External IDs (255 characters) and tokens travel in the path.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: BODY_LIMIT,
    keepAliveTimeout: 65_000,
    // The router refused the path (undecodable or over-long parameter): route it by its raw shape, so it is
    // answered, counted and faulted like any request to that endpoint, with the parameter error after the token check.
    frameworkErrors: (error, req: FastifyRequest, reply: FastifyReply) => {
      const path = pathOf(req.url);
      if (path.startsWith(`${ADMIN_PREFIX}/`)) return reply.code(400).send({ error: error.message });
      const found = matcher.match(req.method, path);
      if (found === 'not_found' || found === 'method_not_allowed') return answerNoRoute(state, req, reply, found === 'method_not_allowed');
      return handleApi(state, found.route, req, reply, matcher.parameterProblem(found.route, path));
    },
    clientErrorHandler: answerClientError,
  });
  registerBodyParsers(app);
  // A closed emulator commits nothing more (and keeps no timer alive).
  app.addHook('onClose', async () => state.lateCommits.cancelAll());
  // No authentication on the admin API: loopback callers only (shared/http/admin-guard.ts).
  app.addHook('onRequest', async (req, reply) => {
    if (!pathOf(req.url).startsWith(`${ADMIN_PREFIX}/`)) return;
    const refusal = adminRefusal({ headers: req.headers, hasBody: declaresBody(req.headers) });
    if (refusal) return reply.code(refusal.status).send({ error: refusal.error });
  });

  const routeOf = new Map<string, ApiRoute>();
  for (const route of API_ROUTES) {
    const url = toFastifyPath(route.template);
    routeOf.set(`${route.method} ${url}`, route);
    app.route({
      method: route.method,
      url,
      handler: (req, reply) => handleApi(state, route, req, reply),
    });
  }
  registerAdminRoutes(app, state);

  // A known path with a method it does not allow is a 405, anything else a 404.
  app.setNotFoundHandler((req, reply) => {
    const path = pathOf(req.url);
    if (path.startsWith(`${ADMIN_PREFIX}/`)) return reply.code(404).send({ error: `no admin call ${req.method} ${path}` });
    return answerNoRoute(state, req, reply, matcher.knownPath(path));
  });

  app.setErrorHandler(async (error: { statusCode?: number; message: string; code?: string }, req, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (pathOf(req.url).startsWith(`${ADMIN_PREFIX}/`)) return reply.code(status).send({ error: error.message });
    // The body could not be taken (too large, ...): the endpoint still answers, like for a body that is not
    // JSON, so the token, contract and customer come first and the request counts.
    const method = req.routeOptions.method === 'HEAD' ? 'GET' : String(req.routeOptions.method);
    const route = routeOf.get(`${method} ${req.routeOptions.url}`);
    if (route && error.code?.startsWith('FST_ERR_CTP_') && !reply.sent) {
      const problem = bodyProblem(error.code);
      req.body = problem === undefined ? undefined : new UnreadableBody(problem);
      return handleApi(state, route, req, reply);
    }
    if (status === 500) return send(reply, fromError(apiErrors.server()));
    return send(reply, fromError(apiErrors.badRequest(error.message)));
  });

  return app;
}
