import type { IncomingMessage } from 'node:http';
import { serveStandIn } from '../http/index.js';
import { answerOrder, answerOrders, answerRefund, type DataAnswer } from './answers.js';
import { type Bucket, type BucketSettings, createBucket } from './bucket.js';
import { actualCost, type Field, requestedCost } from './cost.js';
import { parseSelection } from './document.js';
import { type ClientCredentialsSettings, createTokenIssuer, type TokenIssuer } from './oauth.js';
import { createShopStore, readOrder, type ShopStore, StoreInputError, subtotalBeforeDiscounts } from './store.js';

/** The test surface's path for an order placed before now (no checkout rule applied to its codes). */
export const HISTORICAL_ORDERS = '/__shopify/historical-orders';

export type { BucketSettings } from './bucket.js';
import { answerSubscriptions, createSubscriptionStore, type SubscriptionStore } from './subscriptions.js';
import { answerDiscounts, createDiscountStore, type DiscountFault, type Discounts, type DiscountStore } from './discounts.js';
import { parseJsonOrUndefined } from '../../shared/text/index.js';
import { adminRefusal } from '../../shared/http/index.js';

/**
 * A local stand-in of Shopify's GraphQL Admin API, as small as the reconcile client needs: the
 * `orders` query (search on updated_at, cursor pagination) and the `refund` query, behind
 * `X-Shopify-Access-Token` (a fixed token, or one from the client-credentials grant: oauth.ts), the
 * webhook subscription documents (subscriptions.ts), the code discount documents of redemptions
 * (discounts.ts), metered by a cost-based leaky bucket answering THROTTLED as Shopify does.
 * Test surface (not Shopify's): POST /__shopify/orders and /__shopify/refunds store a webhook body
 * as Shopify would hold it and send no webhook (a new order's `discount_codes` count as uses, each
 * refused 422 as Shopify's checkout refuses it: another customer's code, before its start or after its
 * end, past its usage limit, below its minimum; POST /__shopify/historical-orders stores an order placed
 * before now, its codes counted without those rules);
 * POST /__shopify/bucket sets the bucket; POST /__shopify/faults makes the next documents of a field fail. It answers
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
  /** The access scopes the app was granted (`currentAppInstallation.accessScopes`); default: read_orders, read_customers and write_discounts. */
  accessScopes?: readonly string[];
  /** The shop's currency (discount amounts): default JPY. */
  currency?: string;
  /**
   * Further fixed tokens, each of another app installed on the shop with these scopes only (the App
   * Proxy's discounts-only token): a document its scopes do not cover is refused ACCESS_DENIED, as Shopify does.
   */
  scopedTokens?: readonly { token: string; scopes: readonly string[] }[];
  /** How long a use takes to show in `asyncUsageCount` (Shopify updates it asynchronously); default 0. */
  usageLagMs?: number;
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
  /** The shop's code discounts (discountCodeBasicCreate, discountCodeDeactivate, codeDiscountNodeByCode). */
  discounts: DiscountStore;
  /** The next `times` documents of `field` fail as told (also `POST /__shopify/faults`). */
  addFault(fault: DiscountFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

/** What the local app is granted unless told otherwise: what reconciliation, enrolment and redemptions need. */
const DEFAULT_ACCESS_SCOPES = ['read_orders', 'read_customers', 'write_discounts'];

/** Shopify's largest single query. */
const MAX_QUERY_COST = 1000;
const GRAPHQL_PATH = /^\/admin\/api\/(\d{4}-\d{2}|unstable)\/graphql\.json$/;
const MAX_BODY = 1024 * 1024;

type Answer = { status: number; body: unknown; destroy?: boolean };

/** What the stand-in's answers read and change. */
interface StandInState {
  options: ShopifyAdminStandInOptions;
  store: ShopStore;
  issuer: TokenIssuer | undefined;
  subscriptions: SubscriptionStore;
  bucket: Bucket;
  counters: { queries: number; throttled: number };
  discounts: Discounts;
  faults: DiscountFault[];
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
    discounts: createDiscountStore(now, options.currency ?? 'JPY', { usageLagMs: options.usageLagMs ?? 0 }),
    faults: [],
  };
  const served = await serveStandIn((req, body) => handle(state, req, body), {
    maxBodyBytes: MAX_BODY,
    port: options.port,
    host: options.host,
  });
  return {
    url: served.url,
    port: served.port,
    store: state.store,
    stats: () => ({ ...state.counters }),
    setBucket: (settings) => state.bucket.set(settings),
    ...(state.issuer ? { tokens: state.issuer } : {}),
    subscriptions: state.subscriptions,
    discounts: state.discounts.store,
    addFault: (fault) => state.faults.push({ ...fault }),
    clearFaults: () => {
      state.faults.length = 0;
    },
    close: () => served.close(),
  };
}

function handle(state: StandInState, req: IncomingMessage, body: Buffer): Answer {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  if (req.method !== 'POST') return { status: 405, body: { errors: 'use POST' } };
  if (path.startsWith('/__shopify/')) {
    // Unauthenticated like /__local/*: only what a browser page cannot send (shared/http/admin-guard.ts).
    const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 });
    return refusal ? { status: refusal.status, body: { errors: refusal.error } } : admin(state, path, body);
  }
  const { issuer } = state;
  if (path === '/admin/oauth/access_token' && issuer) return issuer.grant(body.toString('utf8'));
  const version = GRAPHQL_PATH.exec(path)?.[1];
  if (version === undefined) return { status: 404, body: { errors: 'Not Found' } };
  const token = req.headers['x-shopify-access-token'];
  const scoped = state.options.scopedTokens?.find((t) => t.token === token);
  if (token !== state.options.accessToken && !scoped && !(typeof token === 'string' && issuer?.valid(token))) {
    // Shopify's answer to a missing or wrong token.
    return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
  }
  const parsed = parseJsonOrUndefined(body.toString('utf8'));
  if (parsed === undefined) return { status: 400, body: { errors: [{ message: 'the body is not JSON' }] } };
  return graphql(state, parsed, version, scoped?.scopes);
}

/** One GraphQL request: read, priced, metered by the bucket, then answered. */
function graphql(state: StandInState, body: unknown, version: string, scopes?: readonly string[]): Answer {
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
  const denied = scopes ? accessDenied(fields[0]?.name, scopes) : undefined;
  if (denied) return { status: 200, body: denied };
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
  const fault = takeFault(state, fields[0]?.name);
  if (fault === 'http_503') return { status: 503, body: { errors: 'Service Unavailable' } };
  if (fault === 'internal_server_error') return { status: 200, body: internalServerError() };
  if (fault === 'internal_user_error') return { status: 200, body: { data: refusedData(fields[0]?.name ?? '', 'INTERNAL_ERROR') } };
  const answer = fault === 'user_error' ? refusedByFault(fields[0]?.name ?? '') : answerDocument(state, fields, vars, version, scopes);
  if (fault === 'reset_after_commit') return { status: 200, body: null, destroy: true };
  // Executed, then answered as Shopify's transient failure: the caller cannot know the document ran.
  if (fault === 'internal_after_commit') return { status: 200, body: internalServerError() };
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

/** The fault set for this field, used up one at a time. */
function takeFault(state: StandInState, field: string | undefined): DiscountFault['fault'] | undefined {
  const fault = state.faults.find((f) => f.field === field && f.times > 0);
  if (!fault) return undefined;
  fault.times -= 1;
  return fault.fault;
}

/** Shopify's transient failure at HTTP 200: `errors[].extensions.code` INTERNAL_SERVER_ERROR, no data. */
const internalServerError = () => ({
  errors: [
    {
      message: 'Internal error. Looks like something went wrong on our end.',
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: 'stand-in' },
    },
  ],
});

/** A mutation the shop refuses: its payload with a userError (INVALID: for good; INTERNAL_ERROR: transient), nothing made. */
function refusedByFault(field: string): DataAnswer {
  return { data: refusedData(field, 'INVALID'), returned: 1 };
}

function refusedData(field: string, code: string): Record<string, unknown> {
  const userErrors = [{ field: null, code, message: 'The shop refused this discount (stand-in fault)' }];
  return { [field]: { codeDiscountNode: null, userErrors } };
}

/** The scope each top-level field needs (Shopify's "Required access"); the rest need none the stand-in checks. */
const REQUIRED_SCOPE: Readonly<Record<string, readonly string[]>> = {
  orders: ['read_orders'],
  refund: ['read_orders'],
  order: ['read_orders'],
  discountCodeBasicCreate: ['write_discounts'],
  discountCodeDeactivate: ['write_discounts'],
  codeDiscountNodeByCode: ['read_discounts', 'write_discounts'],
  webhookSubscriptions: ['read_orders', 'read_customers'],
  webhookSubscriptionCreate: ['read_orders', 'read_customers'],
};

/** A scoped token asking for a field none of its scopes grants: Shopify's ACCESS_DENIED at HTTP 200. */
function accessDenied(field: string | undefined, scopes: readonly string[]): unknown {
  const needs = field ? REQUIRED_SCOPE[field] : undefined;
  if (!needs || needs.some((scope) => scopes.includes(scope))) return undefined;
  return {
    errors: [
      {
        message: `Access denied for ${field} field. Required access: \`${needs[0]}\` access scope.`,
        extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes', requiredAccess: needs[0] },
      },
    ],
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
function answerDocument(
  state: StandInState,
  fields: Field[],
  vars: Record<string, unknown>,
  version: string,
  tokenScopes?: readonly string[],
): DataAnswer | { body: unknown } {
  const top = fields[0];
  const subscriptionAnswer = top && fields.length === 1 ? answerSubscriptions(state.subscriptions, top, vars) : undefined;
  if (subscriptionAnswer !== undefined) {
    if ('errors' in subscriptionAnswer) return { body: subscriptionAnswer };
    return { data: subscriptionAnswer.data, returned: 1 };
  }
  const discountAnswer = top && fields.length === 1 ? answerDiscounts(state.discounts, top, vars, version) : undefined;
  if (discountAnswer !== undefined) {
    if ('errors' in discountAnswer) return { body: discountAnswer };
    return { data: discountAnswer.data, returned: 1 };
  }
  if (top?.name === 'currentAppInstallation' && fields.length === 1) {
    const scopes = tokenScopes ?? state.options.accessScopes ?? DEFAULT_ACCESS_SCOPES;
    return { data: { currentAppInstallation: { accessScopes: scopes.map((handle) => ({ handle })) } }, returned: 1 };
  }
  if (top?.name === 'shop' && fields.length === 1) return answerShop(state, top);
  if (top?.name === 'orders' && fields.length === 1) return answerOrders(state.store, top, vars);
  if (top?.name === 'refund' && fields.length === 1) return answerRefund(state.store, top, vars);
  if (top?.name === 'order' && fields.length === 1) return answerOrder(state.store, top, vars);
  return { error: 'the stand-in answers only reconciliation, subscription, discount and access scope documents' };
}

/** `shop { currencyCode }` (also `name`): the shop's currency, as discounts are made in it. */
function answerShop(state: StandInState, top: Field): DataAnswer | { error: string } {
  const shop: Record<string, unknown> = {
    currencyCode: state.options.currency ?? 'JPY',
    name: 'Demo shop',
  };
  const unknown = top.children.find((f) => !Object.hasOwn(shop, f.name));
  if (unknown) return { error: `Field '${unknown.name}' doesn't exist on type 'Shop'` };
  return { data: { shop: Object.fromEntries(top.children.map((f) => [f.name, shop[f.name]])) }, returned: 1 };
}

/** The test surface: store an order or a refund as Shopify holds it, or set the bucket. */
function admin(state: StandInState, path: string, body: Buffer): Answer {
  try {
    if (path === '/__shopify/orders' || path === HISTORICAL_ORDERS) {
      const text = body.toString('utf8');
      const order = readOrder(text);
      const placed = state.store.get(order.id) === undefined;
      // A new order is placed now: its codes pass Shopify's checkout rules or the order is refused whole
      // (a known order's update, a cancellation, is no new use). Only a historical order, placed before now
      // as Shopify already holds it, skips them: its path says so.
      if (placed && path !== HISTORICAL_ORDERS) {
        const checkout = {
          customerGid: order.customer ? `gid://shopify/Customer/${order.customer.id}` : null,
          subtotal: subtotalBeforeDiscounts(order),
        };
        for (const { code } of order.discount_codes) {
          const answer = state.discounts.store.check(code, checkout);
          if (!answer.ok) {
            return { status: 422, body: { errors: `discount code ${code} refused at checkout: ${answer.reason}`, reason: answer.reason } };
          }
        }
      }
      const stored = state.store.putOrder(text);
      // An order that used a code counts as one use of it (Shopify's asyncUsageCount), once per order.
      if (placed) for (const { code } of order.discount_codes) state.discounts.store.use(code);
      return { status: 201, body: { id: `gid://shopify/Order/${stored.order.id}` } };
    }
    if (path === '/__shopify/refunds') {
      state.store.putRefund(body.toString('utf8'));
      return { status: 201, body: { stored: true } };
    }
    if (path === '/__shopify/faults') {
      const f = JSON.parse(body.toString('utf8') || '{}') as Partial<DiscountFault>;
      const kinds = [
        'http_503',
        'reset_after_commit',
        'user_error',
        'internal_server_error',
        'internal_after_commit',
        'internal_user_error',
      ];
      if (typeof f.field !== 'string' || !kinds.includes(String(f.fault)) || !Number.isInteger(f.times) || (f.times ?? 0) < 1) {
        return { status: 400, body: { errors: `expected {"field": "<top-level field>", "fault": ${kinds.join('|')}, "times": N}` } };
      }
      state.faults.push({ field: f.field, fault: f.fault as DiscountFault['fault'], times: f.times as number });
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

/** The codes an order body names (`discount_codes[].code`). */
