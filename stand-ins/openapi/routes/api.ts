/**
 * The Open API's endpoints, one handler each. Handlers run synchronously against the state,
 * so two requests on one customer can never interleave and lose an update.
 */
import { MESSAGES } from '../../../shared/openapi/index.js';
import { formatDateTime } from '../clock.js';
import { apiErrors } from '../errors.js';
import { deleteExternalId, registerMember, resignMember, updateMember } from '../members.js';
import type { ClientState, Member } from '../model.js';
import { applyPoints, calculatePoints, expiryPage, heldPoints, historyPage, paginate, type Page } from '../points.js';
import { detailForm, listItem } from '../render.js';
import type { EmulatorState } from '../state.js';
import { ownValue } from '../text.js';
import { AMOUNT, type Body, bodyObject, type IntegerParameter, isTrue, POINT, paging, pointExtras, readParameter } from './parameters.js';

/** What a handler of an endpoint without authentication (the token endpoint) sees. */
export interface PublicContext {
  state: EmulatorState;
  /** The emulator's clock when the operation runs (for a late commit: then, not at arrival). */
  now: number;
  /** Real time (elapsedMs) when the operation runs: when its history item is committed, and what the history lag counts from. */
  realNow: number;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface ApiContext extends PublicContext {
  /** The client the access token belongs to. */
  client: ClientState;
}

export interface ApiResult {
  status: number;
  body?: unknown;
}

interface RouteBase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The Open API's path template, e.g. `/api/ext/users/{id}/points`. */
  template: string;
}
export type ApiRoute =
  | (RouteBase & { auth: true; handle(ctx: ApiContext): ApiResult })
  | (RouteBase & { auth: false; handle(ctx: PublicContext): ApiResult });

/** A path parameter of the route's template: the router only calls a handler with all of them. */
function param(ctx: PublicContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`the route has no {${name}} parameter`);
  return value;
}

/** The customer a lookup found; none is "Member is not found". */
function found(m: Member | undefined): Member {
  if (!m) throw apiErrors.memberNotFound();
  return m;
}

/** The customer of the `{id}` path parameter. */
const member = (ctx: ApiContext): Member => found(ctx.client.members.get(param(ctx, 'id')));

function pageBody<T>(key: string, page: Page<T>): Record<string, unknown> {
  return { [key]: page.items, total: page.total, per_page: page.per_page, current_page: page.current_page, last_page: page.last_page };
}

/** The two points lists of a customer (history, expiry summary): the customer first, then the paging parameters. */
function pointsList<T>(ctx: ApiContext, read: (m: Member, perPage: number, page: number) => Page<T>): ApiResult {
  const m = member(ctx);
  const { perPage, page } = paging(ctx.query);
  return { status: 200, body: pageBody('points', read(m, perPage, page)) };
}

const detail = (ctx: ApiContext, m: Member, withColumnKey: boolean, externalIds = true): ApiResult => ({
  status: 200,
  body: { member: detailForm(ctx.client.config, m, ctx.now, { withColumnKey, externalIds }) },
});

/**
 * The two points endpoints: every parameter problem in one validation answer, then `toPoint` turns the
 * value into the points booked (or refuses with a business-rule error).
 */
function bookPoints(ctx: ApiContext, p: IntegerParameter, toPoint: (m: Member, n: number) => number): ApiResult {
  const m = member(ctx);
  if (!ctx.client.config.uses_points) throw apiErrors.pointsNotAvailable();
  const body = bodyObject(ctx.body);
  const errors: string[] = [];
  const n = readParameter(body, p, errors);
  const extras = pointExtras(body, ctx.client.config.point_expiry_days, ctx.now, p.adds(n), errors);
  if (errors.length > 0 || n === undefined) throw apiErrors.validation(errors);
  applyPoints(m, { point: toPoint(m, n), ...extras }, ctx.now, ctx.realNow);
  return detail(ctx, m, false, false);
}

export const API_ROUTES: ApiRoute[] = [
  {
    method: 'POST',
    template: '/api/ext/token',
    auth: false,
    handle(ctx) {
      const body = ctx.body !== null && typeof ctx.body === 'object' ? (ctx.body as Body) : {};
      const { grant_type, client_id, client_secret } = body;
      if (grant_type !== 'client_credentials' || typeof client_id !== 'string' || client_id === '') {
        throw apiErrors.tokenBadRequest();
      }
      const client = ctx.state.clients.get(client_id);
      if (!client || typeof client_secret !== 'string' || !client.config.client_secrets.includes(client_secret)) {
        throw apiErrors.tokenUnauthorized();
      }
      if (!client.config.contracted) throw apiErrors.notContracted();
      const { token, expiresIn } = ctx.state.issueToken(client_id);
      return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: null } };
    },
  },
  {
    method: 'GET',
    template: '/api/ext/users',
    auth: true,
    handle(ctx) {
      const { perPage, page } = paging(ctx.query);
      const all = [...ctx.client.members.values()];
      const result = paginate(all.length, perPage, page, (from, to) =>
        all.slice(from, to).map((m) => listItem(ctx.client.config.client_id, m, ctx.now)),
      );
      return { status: 200, body: pageBody('members', result) };
    },
  },
  {
    method: 'GET',
    template: '/api/ext/users/{id}',
    auth: true,
    handle: (ctx) => detail(ctx, member(ctx), isTrue(ctx.query.with_column_key)),
  },
  {
    method: 'GET',
    template: '/api/ext/users/unique_id/{unique_id}',
    auth: true,
    handle: (ctx) => detail(ctx, found(ctx.client.byUniqueId.get(param(ctx, 'unique_id'))), isTrue(ctx.query.with_column_key)),
  },
  {
    method: 'GET',
    template: '/api/ext/users/external_id/{external_key}/{external_id}',
    auth: true,
    handle(ctx) {
      const key = param(ctx, 'external_key');
      // An unconfigured key and an unmatched ID give the same error.
      const m = ctx.client.config.external_keys.includes(key) ? ctx.client.byExternal.get(key)?.get(param(ctx, 'external_id')) : undefined;
      return detail(ctx, found(m), false);
    },
  },
  {
    method: 'POST',
    template: '/api/ext/users',
    auth: true,
    handle(ctx) {
      const body = bodyObject(ctx.body);
      const m = registerMember(ctx.client, body, ctx.now);
      return detail(ctx, m, isTrue(body.with_column_key));
    },
  },
  {
    method: 'PUT',
    template: '/api/ext/users/{id}',
    auth: true,
    handle(ctx) {
      const m = member(ctx);
      const body = bodyObject(ctx.body);
      updateMember(ctx.client, m, body, ctx.now);
      return detail(ctx, m, isTrue(body.with_column_key));
    },
  },
  {
    method: 'DELETE',
    template: '/api/ext/users/{id}/external_ids/{key}',
    auth: true,
    handle(ctx) {
      const m = ctx.client.members.get(param(ctx, 'id'));
      if (!m) throw apiErrors.pageNotFound();
      if (!deleteExternalId(ctx.client, m, param(ctx, 'key'), ctx.now)) throw apiErrors.externalIdNotFound();
      return { status: 204 };
    },
  },
  {
    method: 'POST',
    template: '/api/ext/users/login',
    auth: true,
    handle(ctx) {
      const body = bodyObject(ctx.body);
      const { login_id, password } = body;
      if (typeof login_id !== 'string' || login_id === '' || typeof password !== 'string' || password === '') {
        throw apiErrors.validation([MESSAGES.loginIdRequired]);
      }
      const m = ctx.client.byLoginId.get(login_id);
      if (!m) throw apiErrors.loginFailed();
      // A suspended customer is refused whatever the password (the Open API: "any credentials").
      if (m.enabled === 0) throw apiErrors.accountLocked();
      if (m.password === null || m.password !== password) throw apiErrors.loginFailed();
      if (m.device_change) throw apiErrors.deviceChange();
      m.logined = 1;
      const nowText = formatDateTime(ctx.now);
      if (!ctx.client.config.email_verification) m.logined_at = nowText;
      m.updated_at = nowText;
      return detail(ctx, m, false, false);
    },
  },
  {
    method: 'POST',
    template: '/api/ext/users/{id}/logout',
    auth: true,
    handle(ctx) {
      const m = member(ctx);
      m.logined = 0;
      m.updated_at = formatDateTime(ctx.now);
      return { status: 200, body: { status: true } };
    },
  },
  {
    method: 'DELETE',
    template: '/api/ext/users/{id}/resign',
    auth: true,
    handle(ctx) {
      resignMember(ctx.client, member(ctx), bodyObject(ctx.body), ctx.now);
      return { status: 204 };
    },
  },
  {
    method: 'GET',
    template: '/api/ext/users/{id}/points',
    auth: true,
    // A read replica `history_lag_ms` behind: entries committed since then are not shown yet.
    handle: (ctx) => pointsList(ctx, (m, perPage, page) => historyPage(m, perPage, page, ctx.realNow - ctx.client.config.history_lag_ms)),
  },
  {
    method: 'GET',
    template: '/api/ext/users/{id}/points/expired_list',
    auth: true,
    handle: (ctx) => pointsList(ctx, (m, perPage, page) => expiryPage(m, ctx.now, perPage, page)),
  },
  {
    method: 'POST',
    template: '/api/ext/users/{id}/points',
    auth: true,
    handle: (ctx) =>
      bookPoints(ctx, POINT, (m, point) => {
        if (point < 0 && -point > heldPoints(m, ctx.now)) throw apiErrors.insufficientPoints();
        return point;
      }),
  },
  {
    method: 'POST',
    template: '/api/ext/users/{id}/points/calculation',
    auth: true,
    handle: (ctx) => bookPoints(ctx, AMOUNT, (m, amount) => calculatePoints(amount, ownValue(ctx.client.config.ranks, m.rank) ?? 0)),
  },
  {
    method: 'GET',
    template: '/api/ext/check/{token}',
    auth: true,
    handle(ctx) {
      const id = ctx.query.id;
      if (typeof id !== 'string' || id === '') throw apiErrors.validation([MESSAGES.idRequired]);
      const h = ctx.client.handoverTokens.get(param(ctx, 'token'));
      if (!h || h.used || h.memberId !== id) throw apiErrors.handoverTokenInvalid();
      if (ctx.now > h.expiresAt) throw apiErrors.handoverTokenExpired();
      h.used = true;
      return { status: 200, body: { status: true } };
    },
  },
];
