import type { IncomingMessage } from 'node:http';
import { createJsonServer } from '../http/index.js';
import { listen } from '../listen.js';
import { answerOrders, answerRefund, type DataAnswer } from './answers.js';
import { type Bucket, type BucketSettings, createBucket } from './bucket.js';
import { actualCost, type Field, requestedCost } from './cost.js';
import { parseSelection } from './document.js';
import { type ClientCredentialsSettings, createTokenIssuer, type TokenIssuer } from './oauth.js';
import { createShopStore, type ShopStore, StoreInputError } from './store.js';

export type { BucketSettings } from './bucket.js';
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

export interface ShopifyAdminStandInOptions {
  port?: number;
  host?: string;
  /** A fixed token (a legacy custom app's `shpat_…`), accepted for ever. */
  accessToken: string;
  /** The client-credentials grant of a Dev Dashboard app: tokens issued at /admin/oauth/access_token, expiring. */
  clientCredentials?: ClientCredentialsSettings;
  bucket?: Partial<BucketSettings>;
  /** The access scopes the app was granted (`currentAppInstallation.accessScopes`); default: read_orders and read_customers. */
  accessScopes?: readonly string[];
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

/** What the local app is granted unless told otherwise: what reconciliation and enrolment need. */
const DEFAULT_ACCESS_SCOPES = ['read_orders', 'read_customers'];

/** Shopify's largest single query. */
const MAX_QUERY_COST = 1000;
const GRAPHQL_PATH = /^\/admin\/api\/(?:\d{4}-\d{2}|unstable)\/graphql\.json$/;
const MAX_BODY = 1024 * 1024;

type Answer = { status: number; body: unknown };

/** What the stand-in's answers read and change. */
interface StandInState {
  options: ShopifyAdminStandInOptions;
  store: ShopStore;
  issuer: TokenIssuer | undefined;
  subscriptions: SubscriptionStore;
  bucket: Bucket;
  counters: { queries: number; throttled: number };
}

export async function startShopifyAdminStandIn(options: ShopifyAdminStandInOptions): Promise<ShopifyAdminStandIn> {
  const now = options.now ?? Date.now;
  const state: StandInState = {
    options,
    store: createShopStore(now),
    issuer: options.clientCredentials ? createTokenIssuer(options.clientCredentials, now) : undefined,
    subscriptions: createSubscriptionStore(),
    bucket: createBucket(options.bucket, now),
    counters: { queries: 0, throttled: 0 },
  };
  const server = createJsonServer((req, body) => handle(state, req, body), MAX_BODY);
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return {
    url: `http://${host}:${port}`,
    port,
    store: state.store,
    stats: () => ({ ...state.counters }),
    setBucket: (settings) => state.bucket.set(settings),
    ...(state.issuer ? { tokens: state.issuer } : {}),
    subscriptions: state.subscriptions,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function handle(state: StandInState, req: IncomingMessage, body: Buffer): Answer {
  const path = (req.url ?? '/').split('?', 1)[0]!;
  if (req.method !== 'POST') return { status: 405, body: { errors: 'use POST' } };
  if (path.startsWith('/__shopify/')) {
    // Unauthenticated like /__local/*: only what a browser page cannot send (shared/http/admin-guard.ts).
    const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 });
    return refusal ? { status: refusal.status, body: { errors: refusal.error } } : admin(state, path, body);
  }
  const { issuer } = state;
  if (path === '/admin/oauth/access_token' && issuer) return issuer.grant(body.toString('utf8'));
  if (!GRAPHQL_PATH.test(path)) return { status: 404, body: { errors: 'Not Found' } };
  const token = req.headers['x-shopify-access-token'];
  if (token !== state.options.accessToken && !(typeof token === 'string' && issuer?.valid(token))) {
    // Shopify's answer to a missing or wrong token.
    return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
  }
  const parsed = parseJsonOrUndefined(body.toString('utf8'));
  if (parsed === undefined) return { status: 400, body: { errors: [{ message: 'the body is not JSON' }] } };
  return graphql(state, parsed);
}

/** One GraphQL request: read, priced, metered by the bucket, then answered. */
function graphql(state: StandInState, body: unknown): Answer {
  const { query, variables = {} } = (body ?? {}) as { query?: unknown; variables?: unknown };
  if (typeof query !== 'string' || typeof variables !== 'object' || variables === null) {
    return { status: 400, body: { errors: [{ message: 'expected {"query": "...", "variables": {...}}' }] } };
  }
  const vars = variables as Record<string, unknown>;
  let fields: Field[];
  try {
    fields = parseSelection(query);
  } catch (e) {
    return { status: 200, body: { errors: [{ message: `Parse error: ${e instanceof Error ? e.message : 'invalid document'}` }] } };
  }
  const requested = requestedCost(fields, vars);
  if (requested > MAX_QUERY_COST) return { status: 200, body: tooCostly(requested) };
  const { bucket, counters } = state;
  bucket.refill();
  counters.queries += 1;
  if (!bucket.holds(requested)) {
    counters.throttled += 1;
    return {
      status: 200,
      body: {
        errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
        extensions: { cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: bucket.status() } },
      },
    };
  }
  const answer = answerDocument(state, fields, vars);
  if ('body' in answer) return { status: 200, body: answer.body };
  if ('error' in answer) return { status: 200, body: { errors: [{ message: answer.error }] } };
  const top = fields[0];
  const actual = top?.name === 'orders' ? actualCost(fields, vars, answer.returned) : requested;
  bucket.spend(actual);
  return {
    status: 200,
    body: {
      data: answer.data,
      extensions: { cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: bucket.status() } },
    },
  };
}

function tooCostly(requested: number): unknown {
  return {
    errors: [
      {
        message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
        extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_QUERY_COST },
      },
    ],
  };
}

/** The data of a document the stand-in answers (a subscription document, `orders`, `refund`), or why not. */
function answerDocument(state: StandInState, fields: Field[], vars: Record<string, unknown>): DataAnswer | { body: unknown } {
  const top = fields[0];
  const subscriptionAnswer = top && fields.length === 1 ? answerSubscriptions(state.subscriptions, top, vars) : undefined;
  if (subscriptionAnswer !== undefined) {
    if ('errors' in subscriptionAnswer) return { body: subscriptionAnswer };
    return { data: subscriptionAnswer.data, returned: 1 };
  }
  if (top?.name === 'currentAppInstallation' && fields.length === 1) {
    const scopes = state.options.accessScopes ?? DEFAULT_ACCESS_SCOPES;
    return { data: { currentAppInstallation: { accessScopes: scopes.map((handle) => ({ handle })) } }, returned: 1 };
  }
  if (top?.name === 'orders' && fields.length === 1) return answerOrders(state.store, top, vars);
  if (top?.name === 'refund' && fields.length === 1) return answerRefund(state.store, top, vars);
  return { error: 'the stand-in answers only reconciliation, subscription and access scope documents' };
}

/** The test surface: store an order or a refund as Shopify holds it, or set the bucket. */
function admin(state: StandInState, path: string, body: Buffer): Answer {
  try {
    if (path === '/__shopify/orders') {
      const stored = state.store.putOrder(body.toString('utf8'));
      return { status: 201, body: { id: `gid://shopify/Order/${stored.order.id}` } };
    }
    if (path === '/__shopify/refunds') {
      state.store.putRefund(body.toString('utf8'));
      return { status: 201, body: { stored: true } };
    }
    if (path === '/__shopify/bucket') {
      const b = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const pick = (k: string) => (typeof b[k] === 'number' && (b[k] as number) >= 0 ? (b[k] as number) : undefined);
      state.bucket.set({
        maximumAvailable: pick('maximumAvailable'),
        restoreRate: pick('restoreRate'),
        currentlyAvailable: pick('currentlyAvailable'),
      });
      return { status: 200, body: state.bucket.status() };
    }
  } catch (e) {
    if (e instanceof StoreInputError) return { status: e.kind === 'malformed_json' ? 400 : 422, body: { errors: e.message } };
    if (e instanceof SyntaxError) return { status: 400, body: { errors: 'the body is not JSON' } };
    throw e;
  }
  return { status: 404, body: { errors: 'Not Found' } };
}
