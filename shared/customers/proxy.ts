import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { WebhookSecrets } from '../config/index.js';
import { NO_FRAMING_HEADERS } from '../http/index.js';
import type { Logger } from '../logging/index.js';
import { verifyAppProxy } from './app-proxy.js';
import { confirms, makeConfirmation } from './confirmation.js';
import { LINK_STATUS, type LinkRefusal, refusal } from './errors.js';
import { type LinkApi, type LinkResult, linkCustomer } from './link.js';
import { confirmPage, resultPage } from './proxy-page.js';
import { type ProxyLinkQuery, readProxyQuery } from './proxy-query.js';

/**
 * `GET|POST /proxy/shopify/link`, as the App Proxy forwards it (`<api>/proxy/shopify` is the proxy URL).
 * Two steps: the GET links nothing and answers a confirmation value for this customer, member and
 * token; the POST of the signed query with `confirm=<value>` links. A link opened by someone else's
 * page (cross-site) stops at the confirmation, which that page cannot read.
 */
export interface ProxyLinkRequest {
  /** `GET` (confirmation) or `POST` (link); anything else is refused. */
  readonly method: string;
  /** The raw query string, exactly as received (the signature covers its decoded values). */
  readonly rawQuery: string;
  readonly accept: string | undefined;
  /** The POST's form body (`confirm=<value>`), as text. */
  readonly body?: string;
}

export interface ProxyLinkDeps {
  /** The Shopify app's shared secret signs app proxy requests: the Shopify webhook secret(s). */
  readonly secrets: WebhookSecrets;
  /** The Shopify source's name (whose secret signs) and external key. */
  readonly source: string;
  readonly externalKey: string;
  /** The source's shops (its `shopDomains`); empty: any shop, as for its webhooks. */
  readonly shopDomains?: readonly string[];
  readonly openapi: LinkApi;
  readonly now: () => number;
  /**
   * Called for every successful link, a repeated one too (queues the crediting of earlier purchases). A
   * failure never undoes the link: the answer says to press again, which asks once more.
   */
  readonly onLinked?: (linked: { source: string; customerId: string; memberId: string }) => Promise<void>;
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
}

export interface ProxyAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A form body is one short field. */
const MAX_BODY_CHARS = 1024;

/** The proxy request an API Gateway (HTTP API) event carries: its method, raw query, Accept and body (base64 decoded). */
export function proxyRequestOf(event: APIGatewayProxyEventV2): ProxyLinkRequest {
  return {
    method: event.requestContext?.http?.method ?? 'GET',
    rawQuery: event.rawQueryString ?? '',
    accept: event.headers?.accept,
    ...(event.body === undefined ? {} : { body: event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body }),
  };
}

/** Verifies, then confirms (GET) or links (POST): JSON for `Accept: application/json`, else a small page Shopify renders in the shop. */
export async function handleProxyLink(request: ProxyLinkRequest, deps: ProxyLinkDeps): Promise<ProxyAnswer> {
  const json = (request.accept ?? '').includes('application/json');
  const refused = (r: LinkRefusal) => answer(json, { ok: false, refusal: r });
  if (request.method !== 'GET' && request.method !== 'POST') return refused(refusal('invalid_request', 'the link takes GET or POST'));
  const query = new URLSearchParams(request.rawQuery);
  let secrets: readonly string[];
  try {
    secrets = await deps.secrets.get(deps.source, { forceRefresh: false });
  } catch {
    return refused(refusal('unavailable', 'the link service is not configured'));
  }
  const bad = verifyAppProxy(query, secrets, deps.now());
  if (bad) {
    deps.logger?.warn('app proxy request refused', { kind: bad.kind });
    return refused(bad);
  }
  // Only now is anything in the query trusted, and only the parameters the link takes.
  const read = readProxyQuery(query, deps.shopDomains ?? []);
  if (!read.ok) {
    deps.logger?.warn('app proxy request refused', { kind: read.refusal.kind });
    return refused(read.refusal);
  }
  const link = read.value;
  if (request.method === 'GET') {
    const confirm = makeConfirmation(secrets[0] ?? '', link, deps.now());
    return confirmAnswer(json, link, confirm);
  }
  const unconfirmed = checkConfirmation(request.body, secrets, link, deps.now());
  if (unconfirmed) {
    deps.logger?.warn('link refused', { kind: unconfirmed.kind });
    return refused(unconfirmed);
  }
  return linkConfirmed(json, link, deps);
}

/** The POST's body is exactly `confirm=<value>`, the value ours for this link: else why not. */
function checkConfirmation(body: string | undefined, secrets: readonly string[], link: ProxyLinkQuery, nowMs: number): LinkRefusal | null {
  const form = new URLSearchParams((body ?? '').slice(0, MAX_BODY_CHARS));
  const values = form.getAll('confirm');
  if ((body ?? '').length > MAX_BODY_CHARS || values.length !== 1 || values[0] === '' || [...form.keys()].length !== 1) {
    return refusal('invalid_request', 'the confirming POST carries confirm=<value> and nothing else');
  }
  if (!confirms(values[0] ?? '', secrets, link, nowMs)) {
    return refusal('invalid_confirmation', 'this confirmation is not valid for this link, or has expired; open the link again');
  }
  return null;
}

async function linkConfirmed(json: boolean, link: ProxyLinkQuery, deps: ProxyLinkDeps): Promise<ProxyAnswer> {
  const { customerId, memberId, token } = link;
  const result = await linkCustomer(deps.openapi, { externalKey: deps.externalKey, customerId, memberId, token });
  if (!result.ok) {
    deps.logger?.warn('link refused', { kind: result.refusal.kind });
    return answer(json, result);
  }
  deps.logger?.info('customer linked', { source: deps.source, changed: result.changed });
  // Asked for a repeated link too: if the first one's crediting could not be queued, pressing again
  // queues it (crediting is exactly once however often it is asked; copies of one link's event collapse).
  if (deps.onLinked) {
    try {
      await deps.onLinked({ source: deps.source, customerId: result.customerId, memberId: result.memberId });
    } catch (e) {
      deps.logger?.error('crediting earlier purchases could not be queued', { error: e instanceof Error ? e.name : 'unknown' });
      const message = 'your shop account is linked, but crediting your earlier purchases could not be started: press the link button again';
      return answer(json, { ok: false, refusal: refusal('unavailable', message) });
    }
  }
  return answer(json, result);
}

/**
 * Every App Proxy answer: never cached (it is one customer's), never framed by another site (a framed
 * button is a clickjacked link or redemption), never sniffed into another type than it says.
 */
export const APP_PROXY_HEADERS: Readonly<Record<string, string>> = { 'cache-control': 'no-store', ...NO_FRAMING_HEADERS };
/** A page: Shopify renders an `application/liquid` answer inside the shop's theme (any other type is shown bare). */
export const LIQUID = 'application/liquid';
const NO_STORE = APP_PROXY_HEADERS;

function confirmAnswer(json: boolean, link: ProxyLinkQuery, confirm: string): ProxyAnswer {
  if (json) {
    return {
      statusCode: 200,
      headers: { ...NO_STORE, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'confirm', confirm }),
    };
  }
  return { statusCode: 200, headers: { ...NO_STORE, 'content-type': LIQUID }, body: confirmPage(link, confirm) };
}

function answer(json: boolean, result: LinkResult): ProxyAnswer {
  const statusCode = result.ok ? 200 : LINK_STATUS[result.refusal.kind];
  if (json) {
    const body = result.ok
      ? { status: 'linked', member: result.memberId, changed: result.changed }
      : { error: { kind: result.refusal.kind, message: result.refusal.message } };
    return { statusCode, headers: { ...NO_STORE, 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }
  return { statusCode, headers: { ...NO_STORE, 'content-type': LIQUID }, body: resultPage(result) };
}
