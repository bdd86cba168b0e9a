import type { IncomingMessage } from 'node:http';
import { createJsonServer } from '../http/index.js';
import { listen } from '../listen.js';
import { actualCost, parseSelection, requestedCost } from './cost.js';
import { cursorOf, orderNode, positionOf, refundNode, updatedAtFilter } from './graphql.js';
import { type ClientCredentialsSettings, createTokenIssuer, type TokenIssuer } from './oauth.js';
import { createShopStore, type ShopStore, StoreInputError } from './store.js';
import { answerSubscriptions, createSubscriptionStore, type SubscriptionStore } from './subscriptions.js';
import { parseJsonOrUndefined } from '../../shared/text/index.js';
import { adminRefusal } from '../../shared/http/index.js';

/**
 * A local stand-in of Shopify's GraphQL Admin API, as small as the reconcile client needs: the
 * `orders` query (search on updated_at, cursor pagination) and the `refund` query, behind
 * `X-Shopify-Access-Token` (a fixed token, or one from the client-credentials grant: oauth.ts), the
 * webhook subscription documents (subscriptions.ts), metered by a cost-based leaky bucket answering THROTTLED as Shopify does.
 * Test surface (not Shopify's): POST /__shopify/orders and /__shopify/refunds store a webhook body
 * as Shopify would hold it and send no webhook; POST /__shopify/bucket sets the bucket. It answers
 * only loopback callers without an Origin, with JSON bodies (the admin guard of /__local/*).
 */

export interface BucketSettings {
  maximumAvailable: number;
  restoreRate: number;
}

export interface ShopifyAdminStandInOptions {
  port?: number;
  host?: string;
  /** A fixed token (a legacy custom app's `shpat_…`), accepted for ever. */
  accessToken: string;
  /** The client-credentials grant of a Dev Dashboard app: tokens issued at /admin/oauth/access_token, expiring. */
  clientCredentials?: ClientCredentialsSettings;
  bucket?: Partial<BucketSettings>;
  now?: () => number;
}

export interface ShopifyAdminStandIn {
  url: string;
  port: number;
  store: ShopStore;
  stats(): { queries: number; throttled: number };
  setBucket(settings: Partial<BucketSettings> & { currentlyAvailable?: number }): void;
  /** The client-credentials grant (when configured): how many tokens it issued, and revoking them. */
  tokens?: Pick<TokenIssuer, 'grants' | 'revokeAll'>;
  /** The shop's webhook subscriptions (webhookSubscriptions, webhookSubscriptionCreate). */
  subscriptions: SubscriptionStore;
  close(): Promise<void>;
}

/** Shopify's largest single query. */
const MAX_QUERY_COST = 1000;
const DEFAULT_BUCKET: BucketSettings = { maximumAvailable: 2000, restoreRate: 100 };
const GRAPHQL_PATH = /^\/admin\/api\/(?:\d{4}-\d{2}|unstable)\/graphql\.json$/;
const MAX_BODY = 1024 * 1024;

type Answer = { status: number; body: unknown };

export async function startShopifyAdminStandIn(options: ShopifyAdminStandInOptions): Promise<ShopifyAdminStandIn> {
  const now = options.now ?? Date.now;
  const store = createShopStore(now);
  const issuer = options.clientCredentials ? createTokenIssuer(options.clientCredentials, now) : undefined;
  const subscriptions = createSubscriptionStore();
  const settings: BucketSettings = { ...DEFAULT_BUCKET, ...options.bucket };
  let available = settings.maximumAvailable;
  let refilledAt = now();
  const counters = { queries: 0, throttled: 0 };

  const refill = () => {
    const t = now();
    available = Math.min(settings.maximumAvailable, available + ((t - refilledAt) / 1000) * settings.restoreRate);
    refilledAt = t;
  };
  const throttleStatus = () => ({
    maximumAvailable: settings.maximumAvailable,
    currentlyAvailable: Math.floor(available),
    restoreRate: settings.restoreRate,
  });

  function graphql(body: unknown): Answer {
    const { query, variables = {} } = (body ?? {}) as { query?: unknown; variables?: unknown };
    if (typeof query !== 'string' || typeof variables !== 'object' || variables === null) {
      return { status: 400, body: { errors: [{ message: 'expected {"query": "...", "variables": {...}}' }] } };
    }
    const vars = variables as Record<string, unknown>;
    let fields: ReturnType<typeof parseSelection>;
    try {
      fields = parseSelection(query);
    } catch (e) {
      return { status: 200, body: { errors: [{ message: `Parse error: ${e instanceof Error ? e.message : 'invalid document'}` }] } };
    }
    const requested = requestedCost(fields, vars);
    if (requested > MAX_QUERY_COST) {
      return {
        status: 200,
        body: {
          errors: [
            {
              message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
              extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_QUERY_COST },
            },
          ],
        },
      };
    }
    refill();
    counters.queries += 1;
    if (available < requested) {
      counters.throttled += 1;
      return {
        status: 200,
        body: {
          errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
          extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: throttleStatus() } },
        },
      };
    }
    const top = fields[0];
    let data: unknown;
    let returned = 0;
    const subscriptionAnswer = top && fields.length === 1 ? answerSubscriptions(subscriptions, top, vars) : undefined;
    if (subscriptionAnswer !== undefined) {
      if ('errors' in subscriptionAnswer) return { status: 200, body: subscriptionAnswer };
      data = subscriptionAnswer.data;
      returned = 1;
    } else if (top?.name === 'orders' && fields.length === 1) {
      const filter = updatedAtFilter(typeof vars.query === 'string' ? vars.query : '');
      if (typeof filter !== 'function') return { status: 200, body: { errors: [{ message: filter.error }] } };
      const first = typeof vars.first === 'number' ? vars.first : Number(top.args.first);
      const start = positionOf(vars.after);
      if (!Number.isInteger(first) || first < 1 || first > 250 || start === undefined) {
        return { status: 200, body: { errors: [{ message: 'first must be 1..250 and after a cursor from pageInfo' }] } };
      }
      const matching = store.list().filter((s) => filter(s.updatedAt));
      const page = matching.slice(start, start + first);
      returned = page.length;
      const end = start + page.length;
      data = {
        orders: {
          pageInfo: { hasNextPage: end < matching.length, endCursor: page.length > 0 ? cursorOf(end) : null },
          nodes: page.map((s) =>
            orderNode(s, { shippingLines: limitOf(top, 'shippingLines', 250), refunds: limitOf(top, 'refunds', 250) }),
          ),
        },
      };
    } else if (top?.name === 'refund' && fields.length === 1) {
      const id = typeof vars.id === 'string' ? /^gid:\/\/shopify\/Refund\/(\d+)$/.exec(vars.id)?.[1] : undefined;
      const found = id === undefined ? undefined : store.findRefund(id);
      const after = positionOf(vars.after) ?? 0;
      const first = limitOf(top, 'refundLineItems', 250);
      data = { refund: found ? refundNode(found.stored, found.refund, { first, after }) : null };
      returned = 1;
    } else {
      return { status: 200, body: { errors: [{ message: 'the stand-in answers only reconciliation and subscription documents' }] } };
    }
    const actual = top?.name === 'orders' ? actualCost(fields, vars, returned) : requested;
    available -= actual;
    return {
      status: 200,
      body: { data, extensions: { cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: throttleStatus() } } },
    };
  }

  function admin(path: string, body: Buffer): Answer {
    try {
      if (path === '/__shopify/orders') {
        const stored = store.putOrder(body.toString('utf8'));
        return { status: 201, body: { id: `gid://shopify/Order/${stored.order.id}` } };
      }
      if (path === '/__shopify/refunds') {
        store.putRefund(body.toString('utf8'));
        return { status: 201, body: { stored: true } };
      }
      if (path === '/__shopify/bucket') {
        const b = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
        const pick = (k: string) => (typeof b[k] === 'number' && (b[k] as number) >= 0 ? (b[k] as number) : undefined);
        setBucket({
          maximumAvailable: pick('maximumAvailable'),
          restoreRate: pick('restoreRate'),
          currentlyAvailable: pick('currentlyAvailable'),
        });
        return { status: 200, body: throttleStatus() };
      }
    } catch (e) {
      if (e instanceof StoreInputError) return { status: e.kind === 'malformed_json' ? 400 : 422, body: { errors: e.message } };
      if (e instanceof SyntaxError) return { status: 400, body: { errors: 'the body is not JSON' } };
      throw e;
    }
    return { status: 404, body: { errors: 'Not Found' } };
  }

  function setBucket(s: Partial<BucketSettings> & { currentlyAvailable?: number }) {
    refill();
    if (s.maximumAvailable !== undefined) settings.maximumAvailable = s.maximumAvailable;
    if (s.restoreRate !== undefined) settings.restoreRate = s.restoreRate;
    available = Math.min(settings.maximumAvailable, s.currentlyAvailable ?? available);
  }

  function handle(req: IncomingMessage, body: Buffer): Answer {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (req.method !== 'POST') return { status: 405, body: { errors: 'use POST' } };
    if (path.startsWith('/__shopify/')) {
      // Unauthenticated like /__local/*: only what a browser page cannot send (shared/http/admin-guard.ts).
      const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 });
      return refusal ? { status: refusal.status, body: { errors: refusal.error } } : admin(path, body);
    }
    if (path === '/admin/oauth/access_token' && issuer) return issuer.grant(body.toString('utf8'));
    if (!GRAPHQL_PATH.test(path)) return { status: 404, body: { errors: 'Not Found' } };
    const token = req.headers['x-shopify-access-token'];
    if (token !== options.accessToken && !(typeof token === 'string' && issuer?.valid(token))) {
      // Shopify's answer to a missing or wrong token.
      return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    }
    const parsed = parseJsonOrUndefined(body.toString('utf8'));
    if (parsed === undefined) return { status: 400, body: { errors: [{ message: 'the body is not JSON' }] } };
    return graphql(parsed);
  }

  const server = createJsonServer(handle, MAX_BODY);
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return {
    url: `http://${host}:${port}`,
    port,
    store,
    stats: () => ({ ...counters }),
    setBucket,
    ...(issuer ? { tokens: issuer } : {}),
    subscriptions,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** The `first` of a nested field of the top selection (or a default). */
function limitOf(
  top: { children: { name: string; args: Record<string, string>; children: unknown[] }[] },
  name: string,
  fallback: number,
): number {
  const queue = [...top.children];
  while (queue.length > 0) {
    const f = queue.shift()!;
    if (f.name === name) {
      const n = Number(f.args.first);
      return Number.isInteger(n) && n > 0 ? n : fallback;
    }
    queue.push(...(f.children as typeof queue));
  }
  return fallback;
}
