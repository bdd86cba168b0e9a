/**
 * The one pipeline every Open API call runs: credentials -> cached token -> per-endpoint limiter (the
 * deployment's shared budget, or a per-container one) ->
 * HTTP -> classify, with the retries each step allows. shared/openapi/client.ts puts one method per
 * endpoint on top of it.
 */
import { parseBody } from './answers.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MIN_CALL_MS, type OpenApiClientOptions } from './api.js';
import { classifyAnswer, classifySuccess, classifyTransportError, type FailedRequest } from './classify.js';
import type { OpenApiCredentials } from './credentials.js';
import { type Call, OPERATION_OF_ROUTE, TOKEN_ROUTE, TOKEN_TEMPLATE } from './endpoints.js';
import { isOpenApiError, isOutageKind, OpenApiError } from './errors.js';
import { slotExpectedInMs } from './budget-slices.js';
import { createRateHold } from './rate-hold.js';
import { type CallLimiter, createRateLimiter } from './rate-limiter.js';
import { tighterOf } from './send-window.js';
import { Answers, type TokenResponse } from './schemas.js';
import { dropToken, getToken, peekToken, renewAheadMs, tokenCacheKey, type CachedToken } from './token-cache.js';
import { createTransport, type HttpAnswer, type Transport } from '../http-client/index.js';

export interface CallPipeline {
  /** Sends one call through every step; every failure is an OpenApiError. */
  run<T>(c: Call<T>): Promise<T>;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

/** Refused before sending: the caller's time runs out first (the event goes back to the queue). */
function outOfTime(route: string): OpenApiError {
  return new OpenApiError({ kind: 'timeout', executed: 'no', messages: ['too little time left to start the call'], route });
}

/** Refused before sending: the lease it would be sent under leaves too little time (send-window.ts). */
function outOfWindow(route: string): OpenApiError {
  return new OpenApiError({
    kind: 'lease_window_closed',
    executed: 'no',
    messages: ['too little of the lease left to send the call (the next attempt takes a new lease)'],
    route,
  });
}

/**
 * Refused before sending: the shared budget has no slot within the time the caller has. Not a failure
 * of anyone's: `retryAfterMs` says when a slot is expected, and the event waits until then.
 */
function outOfBudget(route: string, retryAfterMs: number): OpenApiError {
  return new OpenApiError({
    kind: 'budget_spent',
    executed: 'no',
    messages: [`no slot of the upstream budget in time (one expected in ${Math.ceil(retryAfterMs / 1000)} s)`],
    route,
    retryAfterMs,
  });
}

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

function failedRequest(c: Call<unknown>, route: string): FailedRequest {
  return { route, notFoundMeansMember: c.notFoundMeansMember, tokenEndpoint: c.template === TOKEN_TEMPLATE };
}

interface Base {
  origin: string;
  prefix: string;
}

/** The origin and path prefix of each base URL, parsed once. */
function baseCache(): (baseUrl: string) => Base {
  const bases = new Map<string, Base>();
  return (baseUrl) => {
    let b = bases.get(baseUrl);
    if (!b) {
      const u = new URL(baseUrl);
      b = { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
      bases.set(baseUrl, b);
    }
    return b;
  };
}

/**
 * The token cache key of the credentials. They rarely change: the last key is reused rather than a new
 * string built (and hashed) per call.
 */
function tokenKeys(scope: string | undefined): (creds: OpenApiCredentials) => string {
  let keyed = { baseUrl: '', clientId: '', key: '' };
  return (creds) => {
    if (creds.baseUrl !== keyed.baseUrl || creds.clientId !== keyed.clientId) {
      const key = tokenCacheKey(creds.baseUrl, creds.clientId);
      keyed = { baseUrl: creds.baseUrl, clientId: creds.clientId, key: scope === undefined ? key : `${key}\u0000${scope}` };
    }
    return keyed.key;
  };
}

function credentialsFailure(e: unknown): OpenApiError {
  if (isOpenApiError(e)) return e;
  const message = e instanceof Error ? e.message : 'credentials provider failed';
  return new OpenApiError({ kind: 'credentials_unavailable', executed: 'no', messages: [message], cause: e });
}

/** What every step of a client's calls shares, made once per client. */
interface Steps {
  options: OpenApiClientOptions;
  now: () => number;
  readRetries: number;
  transport: Transport;
  callTimeoutMs: number;
  minCallMs: number;
  sleep: (ms: number) => Promise<void>;
  limiter: CallLimiter;
  rateHold: ReturnType<typeof createRateHold>;
  baseOf: (baseUrl: string) => Base;
  backoff: (attempt: number) => Promise<void>;
}

function stepsOf(options: OpenApiClientOptions): Steps {
  const now = options.now ?? Date.now;
  const retryBaseMs = options.retryBaseMs ?? 100;
  const minCallMs = options.minCallMs ?? DEFAULT_MIN_CALL_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return {
    options,
    now,
    readRetries: options.readRetries ?? 2,
    transport: createTransport({
      userAgent: options.userAgent,
      timeouts: options.timeouts,
      ...(options.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.maxAnswerBytes }),
    }),
    callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    minCallMs,
    sleep,
    limiter: options.upstreamBudget ?? createRateLimiter({ perMinute: options.ratePerMinute ?? 2000, now, sleep }),
    rateHold: createRateHold({
      now,
      sleep,
      remainingMs: options.remainingMs,
      minCallMs,
      waits: options.rateLimitWaits ?? 3,
      maxWaitMs: options.rateLimitMaxWaitMs ?? 10_000,
    }),
    baseOf: baseCache(),
    backoff: (attempt: number) => sleep(Math.random() * retryBaseMs * 2 ** (attempt - 1)),
  };
}

const isTransient = (e: OpenApiError) => isOutageKind(e.kind);

/** One HTTP exchange after the limiter; every failure becomes an OpenApiError. */
async function exchange<T>(s: Steps, c: Call<T>, creds: OpenApiCredentials, bearer: string | undefined): Promise<T> {
  const route = c.route;
  const base = s.baseOf(creds.baseUrl);
  await s.rateHold.wait(route);
  let invocationLeft = s.options.remainingMs?.();
  let windowLeft = c.window?.leftMs();
  let left = tighterOf(invocationLeft, windowLeft);
  const refusal = () => (windowLeft !== undefined && windowLeft === left ? outOfWindow(route) : outOfTime(route));
  if (left !== undefined && left < s.minCallMs) throw refusal();
  const maxWaitMs = left === undefined ? undefined : left - s.minCallMs;
  const reservedAt = s.now();
  const reserved = s.limiter.reserve(route, maxWaitMs, s.sleep);
  let wait: number;
  if (typeof reserved === 'number') wait = reserved;
  else {
    // A lease of the shared budget went to the store: the time it took is gone from the time left.
    wait = await reserved;
    invocationLeft = s.options.remainingMs?.();
    windowLeft = c.window?.leftMs();
    left = tighterOf(invocationLeft, windowLeft);
  }
  if (wait > 0 || (left !== undefined && left < s.minCallMs)) {
    if (left !== undefined && left - wait < s.minCallMs) {
      // The budget's slot comes too late for this invocation: a wait for that slot, not a failure.
      if (wait > 0) throw outOfBudget(route, Number.isFinite(wait) ? wait : slotExpectedInMs(reservedAt, maxWaitMs ?? 0));
      throw refusal();
    }
    await s.sleep(wait);
  }
  const budget = left === undefined ? s.callTimeoutMs : Math.min(s.callTimeoutMs, left - wait);
  s.options.onSend?.(OPERATION_OF_ROUTE.get(route) ?? route);
  let answer: HttpAnswer;
  try {
    answer = await s.transport.send({
      method: c.method,
      origin: base.origin,
      path: base.prefix + c.path,
      bearer,
      body: c.body,
      idempotent: c.retryable,
      deadlineMs: budget,
    });
  } catch (e) {
    throw classifyTransportError(failedRequest(c, route), e);
  }
  if (answer.status >= 200 && answer.status < 300) {
    const page = classifySuccess(failedRequest(c, route), answer.status, answer.text);
    if (page) throw page;
    return c.parse(answer, route);
  }
  throw classifyAnswer(failedRequest(c, route), answer.status, answer.headers, answer.text, s.now());
}

const tokenCall = (creds: OpenApiCredentials): Call<TokenResponse> => ({
  method: 'POST',
  template: TOKEN_TEMPLATE,
  route: TOKEN_ROUTE,
  path: TOKEN_TEMPLATE,
  body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret },
  retryable: true,
  parse: (answer, r) => parseBody(Answers.token(), answer, r),
});

/** The credentials re-read after the token endpoint refused them; mid-rotation, the next secret. */
async function rereadCredentials(provider: OpenApiClientOptions['credentials']): Promise<OpenApiCredentials> {
  try {
    const fresh = await provider.get({ forceRefresh: true });
    // Mid-rotation the service may have switched to the next secret already: refused, try that one.
    return fresh.nextClientSecret === undefined ? fresh : { ...fresh, clientSecret: fresh.nextClientSecret };
  } catch (err) {
    throw credentialsFailure(err);
  }
}

/**
 * Client-credentials grant, retried like a read (asking again changes nothing upstream). A 401
 * forces one re-read of the credentials: they may have rotated.
 */
async function fetchToken(s: Steps, first: OpenApiCredentials): Promise<CachedToken> {
  const startedAt = s.now();
  let creds = first;
  let forced = false;
  let waited = 0;
  for (let n = 0; ; ) {
    try {
      const t = await exchange(s, tokenCall(creds), creds, undefined);
      return { value: t.access_token, renewAt: startedAt + t.expires_in * 1000 - renewAheadMs(t.expires_in) };
    } catch (e) {
      if (!isOpenApiError(e)) throw e;
      if (e.kind === 'authentication_failed' && e.status === 401 && !forced) {
        forced = true;
        creds = await rereadCredentials(s.options.credentials);
        continue;
      }
      // The wait itself is the hold at the start of the next exchange.
      if (s.rateHold.after(e, waited)) {
        waited += 1;
        continue;
      }
      if (!isTransient(e) || n >= s.readRetries) throw e;
      await s.backoff(++n);
    }
  }
}

export function createCallPipeline(options: OpenApiClientOptions): CallPipeline {
  const s = stepsOf(options);
  const { now, readRetries, rateHold, backoff } = s;
  const provider = options.credentials;
  const tokenKeyOf = tokenKeys(options.tokenScope);

  /**
   * The operation: credentials, token (cached: no wait), the request. A 401 invalid-token answer
   * drops the token and repeats once (the service refused before executing); a retryable read is
   * tried again after a transient failure of its own request.
   */
  async function run<T>(c: Call<T>): Promise<T> {
    let repeated = false;
    let waited = 0;
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
        token = peekToken(key, now()) ?? (await getToken(key, now, () => fetchToken(s, creds)));
      } catch (e) {
        // Nothing of the operation was sent.
        throw isOpenApiError(e) ? beforeSending(e) : e;
      }
      try {
        return await exchange(s, c, creds, token.value);
      } catch (e) {
        if (!isOpenApiError(e)) throw e;
        if (e.kind === 'invalid_token' && !repeated) {
          repeated = true;
          dropToken(key, token.value);
          continue;
        }
        // The wait itself is the hold at the start of the next exchange.
        if (rateHold.after(e, waited)) {
          waited += 1;
          continue;
        }
        if (!c.retryable || !isTransient(e) || n >= readRetries) throw e;
        await backoff(++n);
      }
    }
  }

  return { run, close: () => s.transport.close() };
}
