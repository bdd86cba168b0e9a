/** The Open API's endpoints, and the one shape of call the client's pipeline sends. */
import type { HttpAnswer } from '../http-client/index.js';
import type { SendWindow } from './send-window.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Call<T> {
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
  /** A state-changing call sent under a lease: never sent (nor waited for) past the window's end. */
  window?: SendWindow | undefined;
  /** Parses a 2xx answer. */
  parse: (answer: HttpAnswer, route: string) => T;
}

export interface Endpoint {
  method: Method;
  template: string;
  route: string;
}

export const endpoint = (method: Method, template: string): Endpoint => ({ method, template, route: `${method} ${template}` });

/** Routes built once: they key the limiter (a per-call string would be hashed again each time). */
export const ENDPOINTS = {
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

export const TOKEN_TEMPLATE = '/api/ext/token';
export const TOKEN_ROUTE = `POST ${TOKEN_TEMPLATE}`;

/** The name of each route's endpoint (the client's method; `token` for the token endpoint): what the call counts are named by. */
export const OPERATION_OF_ROUTE: ReadonlyMap<string, string> = new Map([
  ...Object.entries(ENDPOINTS).map(([name, e]) => [e.route, name] as [string, string]),
  [TOKEN_ROUTE, 'token'],
]);

/** Every endpoint's name, as the calls are counted (`UpstreamCalls_<name>`). */
export const ENDPOINT_NAMES: readonly string[] = [...OPERATION_OF_ROUTE.values()];
