import type { WebhookSecrets } from '../config/index.js';
import type { Logger } from '../logging/index.js';
import { verifyAppProxy } from './app-proxy.js';
import { LINK_STATUS, type LinkRefusal, refusal } from './errors.js';
import { type LinkApi, type LinkResult, linkCustomer } from './link.js';

/** `GET /proxy/shopify/link`, as the App Proxy forwards it (`<api>/proxy/shopify` is the proxy URL). */
export interface ProxyLinkRequest {
  /** The raw query string, exactly as received (the signature covers its decoded values). */
  readonly rawQuery: string;
  readonly accept: string | undefined;
}

export interface ProxyLinkDeps {
  /** The Shopify app's shared secret signs app proxy requests: the Shopify webhook secret(s). */
  readonly secrets: WebhookSecrets;
  /** The Shopify source's name (whose secret signs) and external key. */
  readonly source: string;
  readonly externalKey: string;
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

/** Verifies, links, answers: JSON for `Accept: application/json`, else a small page Shopify renders in the shop. */
export async function handleProxyLink(request: ProxyLinkRequest, deps: ProxyLinkDeps): Promise<ProxyAnswer> {
  const json = (request.accept ?? '').includes('application/json');
  const query = new URLSearchParams(request.rawQuery);
  let secrets: readonly string[];
  try {
    secrets = await deps.secrets.get(deps.source, { forceRefresh: false });
  } catch {
    return answer(json, { ok: false, refusal: refusal('unavailable', 'the link service is not configured') });
  }
  const bad = verifyAppProxy(query, secrets, deps.now());
  if (bad) {
    deps.logger?.warn('app proxy request refused', { kind: bad.kind });
    return answer(json, { ok: false, refusal: bad });
  }
  // Only now is anything in the query trusted. A parameter given twice is ambiguous: refused.
  const one = (name: string) => (query.getAll(name).length === 1 ? (query.get(name) ?? '') : undefined);
  const customerId = one('logged_in_customer_id');
  const memberId = one('member');
  const token = one('token');
  if (customerId === undefined || memberId === undefined || token === undefined) {
    return answer(json, { ok: false, refusal: refusal('invalid_request', 'token, member and logged_in_customer_id are each needed once') });
  }
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

function answer(json: boolean, result: LinkResult): ProxyAnswer {
  const statusCode = result.ok ? 200 : LINK_STATUS[result.refusal.kind];
  const headers = { 'cache-control': 'no-store' };
  if (json) {
    const body = result.ok
      ? { status: 'linked', member: result.memberId, changed: result.changed }
      : { error: { kind: result.refusal.kind, message: result.refusal.message } };
    return { statusCode, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
  }
  return { statusCode, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' }, body: page(result) };
}

function page(result: LinkResult): string {
  const [title, text] = result.ok
    ? ['会員連携が完了しました / Linked', 'Your shop account is now linked to your membership: purchases earn points.']
    : ['会員連携できませんでした / Not linked', describe(result.refusal)];
  return `<!doctype html><html lang="ja"><meta charset="utf-8"><title>${escapeHtml(title)}</title><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></html>`;
}

const describe = (r: LinkRefusal) => r.message;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
