import type { WebhookSecrets } from '../config/index.js';
import {
  APP_PROXY_HEADERS,
  asksForJson,
  LINK_STATUS,
  LIQUID,
  type ProxyAnswer,
  type ProxyCustomerQuery,
  readProxyCustomer,
  verifyAppProxy,
} from '../customers/index.js';
import type { RedemptionRecord } from '../ledger/index.js';
import { REDEMPTION_STATUS, type RedemptionRefusal, redemptionRefusal } from './errors.js';
import { codePage, type PointsSummary, pointsPage, refusalPage } from './pages.js';
import type { RedemptionDeps } from './protocol.js';
import { linkedMember, redeem } from './redeem.js';
import { issuedRequestId, issueRedeemRequest, looksLikeRedeemRequest } from './request-value.js';
import { pendingPointsOf } from './pending.js';

/**
 * `GET /proxy/shopify/points` and `POST /proxy/shopify/redeem`, as the App Proxy forwards them: the
 * signature verified first (as the link's), then only what Shopify adds is taken from the query, and a
 * logged-in customer. The redeem POST carries the `request` value the points page issued to this
 * shop's customer (request-value.ts): a POST another site makes the browser send (whose cookies may
 * travel, whatever the browser's defaults) cannot know it, and a value issued to someone else, or
 * expired, is refused 403 before anything is deducted.
 */

export interface ProxyRequest {
  readonly method: string;
  readonly rawQuery: string;
  readonly accept: string | undefined;
  readonly body?: string;
}

export interface RedemptionProxyDeps extends RedemptionDeps {
  readonly secrets: WebhookSecrets;
  readonly shopDomains?: readonly string[];
}

const NO_STORE = APP_PROXY_HEADERS;
const MAX_BODY_CHARS = 1024;
/** Digits without a leading zero: the form's number field never sends one, so `0100` is refused, not read as 100. */
const POINTS = /^(?:0|[1-9]\d{0,8})$/;
/** Expiry summary rows shown: the nearest few. */
const EXPIRING_ROWS = 5;

type Refusal = RedemptionRefusal | { kind: string; message: string; details?: Readonly<Record<string, unknown>> };

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ProxyAnswer {
  return { statusCode, headers: { ...NO_STORE, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}
const html = (statusCode: number, body: string): ProxyAnswer => ({
  statusCode,
  headers: { ...NO_STORE, 'content-type': LIQUID },
  body,
});

function refused(asJson: boolean, statusCode: number, r: Refusal, linkHref?: string): ProxyAnswer {
  const answer = asJson
    ? json(statusCode, { error: { kind: r.kind, message: r.message, ...(r.details ?? {}), ...(linkHref ? { link: linkHref } : {}) } })
    : html(statusCode, refusalPage(r, linkHref));
  // A redemption in doubt: when pressing again can finish it.
  const retryAfter = r.details?.retryAfterSeconds;
  return typeof retryAfter === 'number' ? { ...answer, headers: { ...answer.headers, 'retry-after': String(retryAfter) } } : answer;
}

interface Verified {
  readonly query: ProxyCustomerQuery;
  /** The app's current secrets: the first issues request values, any verifies one. */
  readonly secrets: readonly string[];
}

/** Verified and read, or the answer refusing it. */
async function verified(request: ProxyRequest, deps: RedemptionProxyDeps, asJson: boolean): Promise<Verified | ProxyAnswer> {
  let secrets: readonly string[];
  try {
    secrets = await deps.secrets.get(deps.source, { forceRefresh: false });
  } catch {
    return refused(asJson, 503, { kind: 'unavailable', message: 'the points service is not configured' });
  }
  const query = new URLSearchParams(request.rawQuery);
  const bad = verifyAppProxy(query, secrets, deps.now());
  if (bad) {
    deps.logger?.warn('app proxy request refused', { kind: bad.kind });
    return refused(asJson, LINK_STATUS[bad.kind], bad);
  }
  const read = readProxyCustomer(query, deps.shopDomains ?? []);
  if (!read.ok) return refused(asJson, LINK_STATUS[read.refusal.kind], read.refusal);
  if (!deps.settings.enabled) return refused(asJson, 404, redemptionRefusal('not_enabled', 'this shop does not offer points redemption'));
  return { query: read.value, secrets };
}

/** `GET /proxy/shopify/points`: the balance, the nearest expiries and the rules (JSON), or the page with its form. */
export async function handlePointsPage(request: ProxyRequest, deps: RedemptionProxyDeps): Promise<ProxyAnswer> {
  const asJson = asksForJson(request.accept, new URLSearchParams(request.rawQuery));
  if (request.method !== 'GET') return refused(asJson, 405, { kind: 'method_not_allowed', message: 'the points page takes GET' });
  const checked = await verified(request, deps, asJson);
  if ('statusCode' in checked) return checked;
  const { query, secrets } = checked;
  const linked = await linkedMember(deps, query.customerId);
  if ('refusal' in linked) return refused(asJson, REDEMPTION_STATUS[linked.refusal.kind], linked.refusal, `${query.pathPrefix}/link`);
  let expiring: PointsSummary['expiring'];
  try {
    const page = await deps.openapi.listPointExpiries(linked.member.id, { perPage: EXPIRING_ROWS });
    expiring = page.points
      .slice(0, EXPIRING_ROWS)
      .map((p) => ({ expires_at: p.expired_at, points: Number(String(p.point).replace(/,/g, '')) }));
  } catch {
    return refused(asJson, 503, redemptionRefusal('unavailable', 'the membership service is unavailable: try again in a moment'));
  }
  const { valuePerPoint, currency, minPoints, step, validSeconds } = deps.settings;
  // Provisional points (issue 53): an order not yet earned is listed; the ledger unread, the page still
  // answers (without them, said in the log).
  const pending =
    deps.earnsLater || (deps.pendingElsewhere?.length ?? 0) > 0
      ? await pendingPointsOf(deps, linked.member, query.customerId).catch((error: unknown) => {
          deps.logger?.warn('provisional points not read', { error: error instanceof Error ? error.name : 'unknown' });
          return [];
        })
      : [];
  const summary: PointsSummary = {
    balance: linked.member.point,
    expiring,
    pending,
    redemption: { valuePerPoint, currency, minPoints, step, validSeconds },
  };
  const issued = issueRedeemRequest(secrets[0] ?? '', query, deps.now());
  if (asJson) return json(200, { ...summary, request: issued });
  return html(200, pointsPage(summary, query, issued));
}

const redeemedBody = (r: RedemptionRecord) => ({
  status: 'redeemed',
  code: r.code,
  points: r.points,
  value: r.value,
  currency: r.currency,
  expires_at: r.expiresAt,
});

/** `POST /proxy/shopify/redeem` with `points=N&request=<issued value>`: the code (JSON unless the browser asks for a page). */
export async function handleRedeem(request: ProxyRequest, deps: RedemptionProxyDeps): Promise<ProxyAnswer> {
  const asJson = !(request.accept ?? '').includes('text/html') || asksForJson(undefined, new URLSearchParams(request.rawQuery));
  if (request.method !== 'POST') {
    return {
      ...refused(asJson, 405, { kind: 'method_not_allowed', message: 'redeem takes POST' }),
      headers: { ...NO_STORE, allow: 'POST', 'content-type': asJson ? 'application/json' : LIQUID },
    };
  }
  const checked = await verified(request, deps, asJson);
  if ('statusCode' in checked) return checked;
  const { query, secrets } = checked;
  const text = request.body ?? '';
  const form = new URLSearchParams(text.slice(0, MAX_BODY_CHARS));
  const points = form.getAll('points');
  const requestId = form.getAll('request');
  if (
    text.length > MAX_BODY_CHARS ||
    [...form.keys()].some((k) => k !== 'points' && k !== 'request') ||
    points.length !== 1 ||
    requestId.length !== 1 ||
    !POINTS.test(points[0] ?? '') ||
    !looksLikeRedeemRequest(requestId[0] ?? '')
  ) {
    return refused(
      asJson,
      400,
      redemptionRefusal(
        'invalid_request',
        'the form carries points=<whole number, no leading zero> and request=<the value the points page gave>',
      ),
    );
  }
  const issuedId = issuedRequestId(requestId[0] ?? '', secrets, query, deps.now());
  if (!issuedId) {
    deps.logger?.warn('redeem refused', { kind: 'request_not_issued' });
    const why = 'this form was not issued to you by the points page, or has expired: open the points page again';
    return refused(asJson, REDEMPTION_STATUS.request_not_issued, redemptionRefusal('request_not_issued', why));
  }
  const result = await redeem(deps, {
    customerId: query.customerId,
    shopDomain: query.shop,
    requestId: issuedId,
    points: Number(points[0]),
  });
  if (!result.ok) {
    const link = result.refusal.kind === 'not_linked' ? `${query.pathPrefix}/link` : undefined;
    return refused(asJson, REDEMPTION_STATUS[result.refusal.kind], result.refusal, link);
  }
  return asJson ? json(200, redeemedBody(result.record)) : html(200, codePage(result.record));
}
