/**
 * The Open API client: one method per endpoint of the spec. Every call runs the same pipeline:
 * check path parameters -> credentials -> cached token -> per-endpoint limiter -> HTTP -> classify.
 */
import type { z } from 'zod';
import { parseBody } from './answers.js';
import { classifyAnswer, classifyTransportError, type FailedRequest } from './classify.js';
import type { CredentialsProvider, OpenApiCredentials } from './credentials.js';
import { OpenApiError, isOpenApiError } from './errors.js';
import { encodePathParam } from './paths.js';
import { createRateLimiter } from './rate-limiter.js';
import {
  Answers,
  MemberInput,
  PointCalculationInput,
  PointGrantInput,
  type ExpiryPage,
  type MemberDetail,
  type MemberList,
  type PointHistoryPage,
  type TokenResponse,
} from './schemas.js';
import { dropToken, getToken, peekToken, renewAheadMs, tokenCacheKey, type CachedToken } from './token-cache.js';
import { CallDeadlineError, createTransport, type HttpAnswer, type Timeouts, type Transport } from './transport.js';

export interface OpenApiClientOptions {
  credentials: CredentialsProvider;
  /** Default `loyalty-points-bridge/<package version>`. */
  userAgent?: string;
  /** Defaults: connect 3000 ms, headers 10000 ms, body 10000 ms. */
  timeouts?: Timeouts;
  /** Requests per minute per endpoint that this container may send (default 2000, the spec's ceiling). */
  ratePerMinute?: number;
  /** Extra attempts of a GET after a network error, timeout or 5xx (default 2). Writes are never retried. */
  readRetries?: number;
  /** First backoff step of read retries in ms (default 100); each step doubles, full jitter. */
  retryBaseMs?: number;
  /**
   * Overall deadline of one HTTP exchange, connect to last body byte (default 10000 ms): the
   * per-phase timeouts alone let a trickled answer run on for ever.
   */
  callTimeoutMs?: number;
  /** Largest answer body read (default 1 MiB); a longer one is cut off as `invalid_response`. */
  maxAnswerBytes?: number;
  /**
   * Time left to the caller (the Lambda invocation's remaining time less a margin), read before each
   * exchange: no call starts with less than `minCallMs` left, and none runs past it.
   */
  remainingMs?: () => number | undefined;
  /** Least time a call may start with (default 1000 ms). */
  minCallMs?: number;
  /** Clock for token expiry and the limiter (ms). */
  now?: () => number;
  /** How the limiter and retry backoff wait (tests and benchmarks pair it with `now`). */
  sleep?: (ms: number) => Promise<void>;
}

export interface PageQuery {
  page?: number;
  perPage?: number;
}

export interface OpenApiClient {
  listMembers(q?: PageQuery): Promise<MemberList>;
  getMember(id: string, q?: { withColumnKey?: boolean }): Promise<MemberDetail>;
  getMemberByUniqueId(uniqueId: string, q?: { withColumnKey?: boolean }): Promise<MemberDetail>;
  getMemberByExternalId(externalKey: string, externalId: string): Promise<MemberDetail>;
  registerMember(input: MemberInput): Promise<MemberDetail>;
  updateMember(id: string, input: MemberInput): Promise<MemberDetail>;
  deleteExternalId(id: string, externalKey: string): Promise<void>;
  login(input: { loginId: string; password: string }): Promise<MemberDetail>;
  logout(id: string): Promise<void>;
  resign(id: string, columns?: Record<string, string>): Promise<void>;
  /** Newest first. */
  listPoints(id: string, q?: PageQuery): Promise<PointHistoryPage>;
  /** Nearest expiry first. */
  listPointExpiries(id: string, q?: PageQuery): Promise<ExpiryPage>;
  /** Not idempotent: on an error with `executed: 'unknown'` the points may have been granted. */
  grantPoints(id: string, input: PointGrantInput): Promise<MemberDetail>;
  /** Not idempotent: on an error with `executed: 'unknown'` the points may have been granted. */
  calculatePoints(id: string, input: PointCalculationInput): Promise<MemberDetail>;
  checkHandoverToken(token: string, id: string): Promise<void>;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface Call<T> {
  method: Method;
  /** Path template as the spec writes it. */
  template: string;
  /** `${method} ${template}`, built once per endpoint: the limiter key and the name in errors. */
  route: string;
  /** Encoded path (with query), relative to the base URL. */
  path: string;
  body?: unknown;
  /** Side-effect-free GET: retried on network errors, timeouts and 5xx. */
  retryable: boolean;
  notFoundMeansMember?: boolean;
  /** Parses a 2xx answer. */
  parse: (answer: HttpAnswer, route: string) => T;
}

interface Endpoint {
  method: Method;
  template: string;
  route: string;
}

const endpoint = (method: Method, template: string): Endpoint => ({ method, template, route: `${method} ${template}` });

/** Routes built once: they key the limiter (a per-call string would be hashed again each time). */
const ENDPOINTS = {
  listMembers: endpoint('GET', '/api/ext/users'),
  getMember: endpoint('GET', '/api/ext/users/{id}'),
  getMemberByUniqueId: endpoint('GET', '/api/ext/users/unique_id/{unique_id}'),
  getMemberByExternalId: endpoint('GET', '/api/ext/users/external_id/{external_key}/{external_id}'),
  registerMember: endpoint('POST', '/api/ext/users'),
  updateMember: endpoint('PUT', '/api/ext/users/{id}'),
  deleteExternalId: endpoint('DELETE', '/api/ext/users/{id}/external_ids/{key}'),
  login: endpoint('POST', '/api/ext/users/login'),
  logout: endpoint('POST', '/api/ext/users/{id}/logout'),
  resign: endpoint('DELETE', '/api/ext/users/{id}/resign'),
  listPoints: endpoint('GET', '/api/ext/users/{id}/points'),
  listPointExpiries: endpoint('GET', '/api/ext/users/{id}/points/expired_list'),
  grantPoints: endpoint('POST', '/api/ext/users/{id}/points'),
  calculatePoints: endpoint('POST', '/api/ext/users/{id}/points/calculation'),
  checkHandoverToken: endpoint('GET', '/api/ext/check/{token}'),
} as const;

const TOKEN_TEMPLATE = '/api/ext/token';
const TOKEN_ROUTE = `POST ${TOKEN_TEMPLATE}`;

/** Default overall deadline of one exchange. */
export const DEFAULT_CALL_TIMEOUT_MS = 10_000;
/** Default least time left for a call to start. */
export const DEFAULT_MIN_CALL_MS = 1_000;

/** Refused before sending: the caller's time runs out first (the event goes back to the queue). */
function outOfTime(route: string): OpenApiError {
  return new OpenApiError({ kind: 'timeout', executed: 'no', messages: ['too little time left to start the call'], route });
}

function invalidRequest(route: string, messages: string[]): OpenApiError {
  return new OpenApiError({ kind: 'invalid_request', executed: 'no', messages, route });
}

const member = (answer: HttpAnswer, route: string): MemberDetail => parseBody(Answers.member(), answer, route).member;
const statusTrue = (answer: HttpAnswer, route: string): void => void parseBody(Answers.status(), answer, route);
const noContent = (): void => undefined;

/** A copy of `e` saying the operation was not executed (a failure before the operation was sent). */
function beforeSending(e: OpenApiError): OpenApiError {
  if (e.executed === 'no') return e;
  return new OpenApiError({
    kind: e.kind,
    executed: 'no',
    status: e.status,
    errorCode: e.errorCode,
    messages: e.messages,
    route: e.route,
    cause: e.cause,
  });
}

function pageQuery(route: string, q: PageQuery | undefined): string {
  const params = new URLSearchParams();
  if (q?.page !== undefined) {
    if (!Number.isInteger(q.page) || q.page < 1) throw invalidRequest(route, ['page must be a positive integer']);
    params.set('page', String(q.page));
  }
  if (q?.perPage !== undefined) {
    if (!Number.isInteger(q.perPage) || q.perPage < 1 || q.perPage > 1000) {
      throw invalidRequest(route, ['perPage must be an integer from 1 to 1000']);
    }
    params.set('per_page', String(q.perPage));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

function columnKeyQuery(q: { withColumnKey?: boolean } | undefined): string {
  return q?.withColumnKey ? '?with_column_key=true' : '';
}

function checkedInput<S extends z.ZodType>(schema: S, input: unknown, route: string): void {
  const r = schema.safeParse(input);
  if (!r.success) throw invalidRequest(route, r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`));
}

/** Runs `f`, turning a synchronous throw into a rejected promise. */
function guarded<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (e) {
    return Promise.reject(e);
  }
}

function failedRequest(c: Call<unknown>, route: string): FailedRequest {
  return { route, notFoundMeansMember: c.notFoundMeansMember, tokenEndpoint: c.template === TOKEN_TEMPLATE };
}

interface Base {
  origin: string;
  prefix: string;
}

export function createOpenApiClient(options: OpenApiClientOptions): OpenApiClient {
  const now = options.now ?? Date.now;
  const readRetries = options.readRetries ?? 2;
  const retryBaseMs = options.retryBaseMs ?? 100;
  const provider = options.credentials;
  const transport: Transport = createTransport({
    userAgent: options.userAgent,
    timeouts: options.timeouts,
    ...(options.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.maxAnswerBytes }),
  });
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const minCallMs = options.minCallMs ?? DEFAULT_MIN_CALL_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const limiter = createRateLimiter({ perMinute: options.ratePerMinute ?? 2000, now, sleep });
  const bases = new Map<string, Base>();

  function baseOf(baseUrl: string): Base {
    let b = bases.get(baseUrl);
    if (!b) {
      const u = new URL(baseUrl);
      b = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
      bases.set(baseUrl, b);
    }
    return b;
  }

  function credentialsFailure(e: unknown): OpenApiError {
    if (isOpenApiError(e)) return e;
    const message = e instanceof Error ? e.message : 'credentials provider failed';
    return new OpenApiError({ kind: 'credentials_unavailable', executed: 'no', messages: [message], cause: e });
  }

  // The credentials rarely change: reuse the last cache key rather than build (and hash) a new
  // string per call.
  let keyed = { baseUrl: '', clientId: '', key: '' };
  function tokenKeyOf(creds: OpenApiCredentials): string {
    if (creds.baseUrl !== keyed.baseUrl || creds.clientId !== keyed.clientId) {
      keyed = { baseUrl: creds.baseUrl, clientId: creds.clientId, key: tokenCacheKey(creds.baseUrl, creds.clientId) };
    }
    return keyed.key;
  }

  const backoff = (attempt: number) => sleep(Math.random() * retryBaseMs * 2 ** (attempt - 1));
  const isTransient = (e: OpenApiError) => e.kind === 'network' || e.kind === 'timeout' || e.kind === 'server';

  /** One HTTP exchange after the limiter; every failure becomes an OpenApiError. */
  async function exchange<T>(c: Call<T>, creds: OpenApiCredentials, bearer: string | undefined): Promise<T> {
    const route = c.route;
    const base = baseOf(creds.baseUrl);
    const left = options.remainingMs?.();
    if (left !== undefined && left < minCallMs) throw outOfTime(route);
    const wait = limiter.reserve(route);
    if (wait > 0) {
      if (left !== undefined && left - wait < minCallMs) throw outOfTime(route);
      await sleep(wait);
    }
    const budget = left === undefined ? callTimeoutMs : Math.min(callTimeoutMs, left - wait);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new CallDeadlineError(budget)), budget);
    let answer: HttpAnswer;
    try {
      answer = await transport.send({
        method: c.method,
        origin: base.origin,
        path: base.prefix + c.path,
        bearer,
        body: c.body,
        idempotent: c.retryable,
        signal: deadline.signal,
      });
    } catch (e) {
      throw classifyTransportError(failedRequest(c, route), e);
    } finally {
      clearTimeout(timer);
    }
    if (answer.status >= 200 && answer.status < 300) return c.parse(answer, route);
    throw classifyAnswer(failedRequest(c, route), answer.status, answer.headers, answer.text);
  }

  /**
   * Client-credentials grant, retried like a read (asking again changes nothing upstream). A 401
   * forces one re-read of the credentials: they may have rotated.
   */
  async function fetchToken(first: OpenApiCredentials): Promise<CachedToken> {
    const startedAt = now();
    let creds = first;
    let forced = false;
    for (let n = 0; ; ) {
      const call: Call<TokenResponse> = {
        method: 'POST',
        template: TOKEN_TEMPLATE,
        route: TOKEN_ROUTE,
        path: TOKEN_TEMPLATE,
        body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
        retryable: true,
        parse: (answer, r) => parseBody(Answers.token(), answer, r),
      };
      try {
        const t = await exchange(call, creds, undefined);
        return { value: t.access_token, renewAt: startedAt + t.expires_in * 1000 - renewAheadMs(t.expires_in) };
      } catch (e) {
        if (!isOpenApiError(e)) throw e;
        if (e.kind === 'authentication_failed' && e.status === 401 && !forced) {
          forced = true;
          try {
            creds = await provider.get({ forceRefresh: true });
          } catch (err) {
            throw credentialsFailure(err);
          }
          continue;
        }
        if (!isTransient(e) || n >= readRetries) throw e;
        await backoff(++n);
      }
    }
  }

  /**
   * The operation: credentials, token (cached: no wait), the request. A 401 invalid-token answer
   * drops the token and repeats once (the service refused before executing); a retryable read is
   * tried again after a transient failure of its own request.
   */
  async function run<T>(c: Call<T>): Promise<T> {
    let repeated = false;
    for (let n = 0; ; ) {
      let creds: OpenApiCredentials;
      let token: CachedToken;
      try {
        creds = await provider.get();
      } catch (e) {
        throw credentialsFailure(e);
      }
      const key = tokenKeyOf(creds);
      try {
        token = peekToken(key, now()) ?? (await getToken(key, now, () => fetchToken(creds)));
      } catch (e) {
        // Nothing of the operation was sent.
        throw isOpenApiError(e) ? beforeSending(e) : e;
      }
      try {
        return await exchange(c, creds, token.value);
      } catch (e) {
        if (!isOpenApiError(e)) throw e;
        if (e.kind === 'invalid_token' && !repeated) {
          repeated = true;
          dropToken(key, token.value);
          continue;
        }
        if (!c.retryable || !isTransient(e) || n >= readRetries) throw e;
        await backoff(++n);
      }
    }
  }

  // Every Call has the same fields (one object shape for the pipeline).
  const get = <T>(e: Endpoint, path: string, parse: Call<T>['parse'], notFoundMeansMember = false) =>
    run<T>({ method: e.method, template: e.template, route: e.route, path, body: undefined, retryable: true, notFoundMeansMember, parse });
  const write = <T>(e: Endpoint, path: string, parse: Call<T>['parse'], body?: unknown, notFoundMeansMember = false) =>
    run<T>({ method: e.method, template: e.template, route: e.route, path, body, retryable: false, notFoundMeansMember, parse });

  /** Builds the path synchronously so a refused parameter fails before anything else happens. */
  const id = (e: Endpoint, value: string, name = 'id') => encodePathParam(name, 'customerId', value, e.route);

  // A refused parameter rejects the returned promise (never a synchronous throw); no async frame,
  // which would add microtask turns to every call.
  return {
    listMembers(q) {
      return guarded(() => {
        const e = ENDPOINTS.listMembers;
        return get(e, e.template + pageQuery(e.route, q), (a, r) => parseBody(Answers.memberList(), a, r));
      });
    },
    getMember(memberId, q) {
      return guarded(() => {
        const e = ENDPOINTS.getMember;
        return get(e, `/api/ext/users/${id(e, memberId)}${columnKeyQuery(q)}`, member);
      });
    },
    getMemberByUniqueId(uniqueId, q) {
      return guarded(() => {
        const e = ENDPOINTS.getMemberByUniqueId;
        return get(e, `/api/ext/users/unique_id/${id(e, uniqueId, 'unique_id')}${columnKeyQuery(q)}`, member);
      });
    },
    getMemberByExternalId(externalKey, externalId) {
      return guarded(() => {
        const e = ENDPOINTS.getMemberByExternalId;
        const key = encodePathParam('external_key', 'externalKey', externalKey, e.route);
        const value = encodePathParam('external_id', 'externalId', externalId, e.route);
        return get(e, `/api/ext/users/external_id/${key}/${value}`, member);
      });
    },
    registerMember(input) {
      return guarded(() => {
        const e = ENDPOINTS.registerMember;
        checkedInput(MemberInput, input, e.route);
        return write(e, e.template, member, input);
      });
    },
    updateMember(memberId, input) {
      return guarded(() => {
        const e = ENDPOINTS.updateMember;
        const path = `/api/ext/users/${id(e, memberId)}`;
        checkedInput(MemberInput, input, e.route);
        return write(e, path, member, input);
      });
    },
    deleteExternalId(memberId, externalKey) {
      return guarded(() => {
        const e = ENDPOINTS.deleteExternalId;
        const key = encodePathParam('key', 'externalKey', externalKey, e.route);
        const path = `/api/ext/users/${id(e, memberId)}/external_ids/${key}`;
        return write(e, path, noContent, undefined, true);
      });
    },
    login(input) {
      return guarded(() => {
        const e = ENDPOINTS.login;
        if (typeof input?.loginId !== 'string' || typeof input.password !== 'string') {
          throw invalidRequest(e.route, ['loginId and password must be strings']);
        }
        return write(e, e.template, member, { login_id: input.loginId, password: input.password });
      });
    },
    logout(memberId) {
      return guarded(() => {
        const e = ENDPOINTS.logout;
        return write(e, `/api/ext/users/${id(e, memberId)}/logout`, statusTrue);
      });
    },
    resign(memberId, columns) {
      return guarded(() => {
        const e = ENDPOINTS.resign;
        const path = `/api/ext/users/${id(e, memberId)}/resign`;
        return write(e, path, noContent, columns && Object.keys(columns).length > 0 ? columns : undefined);
      });
    },
    listPoints(memberId, q) {
      return guarded(() => {
        const e = ENDPOINTS.listPoints;
        const path = `/api/ext/users/${id(e, memberId)}/points${pageQuery(e.route, q)}`;
        return get(e, path, (a, r) => parseBody(Answers.pointHistory(), a, r));
      });
    },
    listPointExpiries(memberId, q) {
      return guarded(() => {
        const e = ENDPOINTS.listPointExpiries;
        const path = `/api/ext/users/${id(e, memberId)}/points/expired_list${pageQuery(e.route, q)}`;
        return get(e, path, (a, r) => parseBody(Answers.expiries(), a, r));
      });
    },
    grantPoints(memberId, input) {
      return guarded(() => {
        const e = ENDPOINTS.grantPoints;
        const path = `/api/ext/users/${id(e, memberId)}/points`;
        checkedInput(PointGrantInput, input, e.route);
        return write(e, path, member, input);
      });
    },
    calculatePoints(memberId, input) {
      return guarded(() => {
        const e = ENDPOINTS.calculatePoints;
        const path = `/api/ext/users/${id(e, memberId)}/points/calculation`;
        checkedInput(PointCalculationInput, input, e.route);
        return write(e, path, member, input);
      });
    },
    checkHandoverToken(token, memberId) {
      return guarded(() => {
        const e = ENDPOINTS.checkHandoverToken;
        const encodedToken = encodePathParam('token', 'token', token, e.route);
        const encodedId = encodePathParam('id', 'customerId', memberId, e.route);
        // The token is single use: a repeated check could consume it, so this GET is never retried.
        return write(e, `/api/ext/check/${encodedToken}?id=${encodedId}`, statusTrue);
      });
    },
    close: () => transport.close(),
  };
}
