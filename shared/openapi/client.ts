/**
 * The Open API client: one method per endpoint. Each checks its path parameters and input, then
 * runs the one pipeline (pipeline.ts): credentials -> cached token -> per-endpoint limiter -> HTTP -> classify.
 */
import type { z } from 'zod';
import { parseBody } from './answers.js';
import type { OpenApiClient, OpenApiClientOptions, PageQuery } from './api.js';
import { type Call, ENDPOINTS, type Endpoint } from './endpoints.js';
import { OpenApiError } from './errors.js';
import { encodePathParam } from './paths.js';
import { type CallPipeline, createCallPipeline } from './pipeline.js';
import { Answers, MemberInput, PointCalculationInput, PointGrantInput, type MemberDetail } from './schemas.js';
import type { SendWindow } from './send-window.js';
import type { HttpAnswer } from '../http-client/index.js';

export { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MIN_CALL_MS, type OpenApiClient, type OpenApiClientOptions, type PageQuery } from './api.js';

function invalidRequest(route: string, messages: string[]): OpenApiError {
  return new OpenApiError({ kind: 'invalid_request', executed: 'no', messages, route });
}

const member = (answer: HttpAnswer, route: string): MemberDetail => parseBody(Answers.member(), answer, route).member;
const statusTrue = (answer: HttpAnswer, route: string): void => void parseBody(Answers.status(), answer, route);
const noContent = (): void => undefined;

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
  if (!r.success)
    throw invalidRequest(
      route,
      r.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`),
    );
}

/** Runs `f`, turning a synchronous throw into a rejected promise. */
function guarded<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (e) {
    return Promise.reject(e);
  }
}

/** The call shapes every method sends through the pipeline. */
function callsOf(run: CallPipeline['run']) {
  // Every Call has the same fields (one object shape for the pipeline).
  const get = <T>(e: Endpoint, path: string, parse: Call<T>['parse'], notFoundMeansMember = false) =>
    run<T>({ method: e.method, template: e.template, route: e.route, path, body: undefined, retryable: true, notFoundMeansMember, parse });
  const write = <T>(e: Endpoint, path: string, parse: Call<T>['parse'], body?: unknown, notFoundMeansMember = false, window?: SendWindow) =>
    run<T>({ method: e.method, template: e.template, route: e.route, path, body, retryable: false, notFoundMeansMember, window, parse });

  /** Builds the path synchronously so a refused parameter fails before anything else happens. */
  const id = (e: Endpoint, value: string, name = 'id') => encodePathParam(name, 'customerId', value, e.route);

  /** A points write (grant, calculation): the input checked, the member's new state as the answer. */
  const pointsWrite = (e: Endpoint, memberId: string, suffix: string, schema: z.ZodType, input: unknown, window: SendWindow | undefined) =>
    guarded(() => {
      const path = `/api/ext/users/${id(e, memberId)}/points${suffix}`;
      checkedInput(schema, input, e.route);
      return write(e, path, member, input, false, window);
    });
  return { get, write, id, pointsWrite };
}

type Calls = ReturnType<typeof callsOf>;
type MemberMethods =
  | 'listMembers'
  | 'getMember'
  | 'getMemberByUniqueId'
  | 'getMemberByExternalId'
  | 'registerMember'
  | 'updateMember'
  | 'deleteExternalId'
  | 'login'
  | 'logout'
  | 'resign';

// A refused parameter rejects the returned promise (never a synchronous throw); no async frame,
// which would add microtask turns to every call.

/** The member endpoints. */
function memberMethods({ get, write, id }: Calls): Pick<OpenApiClient, MemberMethods> {
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
    registerMember(input, window) {
      return guarded(() => {
        const e = ENDPOINTS.registerMember;
        checkedInput(MemberInput, input, e.route);
        return write(e, e.template, member, input, false, window);
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
  };
}

/** The points endpoints and the handover token check. */
function pointMethods({ get, write, id, pointsWrite }: Calls): Omit<OpenApiClient, MemberMethods | 'close'> {
  return {
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
    grantPoints: (memberId, input, window) => pointsWrite(ENDPOINTS.grantPoints, memberId, '', PointGrantInput, input, window),
    calculatePoints: (memberId, input, window) =>
      pointsWrite(ENDPOINTS.calculatePoints, memberId, '/calculation', PointCalculationInput, input, window),
    checkHandoverToken(token, memberId) {
      return guarded(() => {
        const e = ENDPOINTS.checkHandoverToken;
        const encodedToken = encodePathParam('token', 'token', token, e.route);
        const encodedId = encodePathParam('id', 'customerId', memberId, e.route);
        // The token is single use: a repeated check could consume it, so this GET is never retried.
        return write(e, `/api/ext/check/${encodedToken}?id=${encodedId}`, statusTrue);
      });
    },
  };
}

export function createOpenApiClient(options: OpenApiClientOptions): OpenApiClient {
  const { run, close } = createCallPipeline(options);
  const calls = callsOf(run);
  return { ...memberMethods(calls), ...pointMethods(calls), close };
}
