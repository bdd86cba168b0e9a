import { Pool } from 'undici';
import { ShopifyAdminError } from './errors.js';
import { ADMIN_API_VERSION, ORDERS_PAGE_SIZE, ORDERS_QUERY, REFUND_QUERY, updatedBetween } from './queries.js';
import { type AdminOrder, type AdminRefund, type Cost, GraphqlAnswer, legacyId, OrdersPage, RefundAnswer } from './schemas.js';

/**
 * A client of Shopify's GraphQL Admin API for reconciliation: `POST
 * https://<shop>/admin/api/<version>/graphql.json` with `X-Shopify-Access-Token`. Rate limits as
 * Shopify meters them: a leaky bucket of query cost per app and shop, reported in every answer's
 * `extensions.cost.throttleStatus`. The client waits before a query the bucket cannot pay for, and
 * on `THROTTLED` waits until the bucket has refilled enough for the requested cost, then retries.
 */

export interface ShopifyAdminClientOptions {
  /** `<shop>.myshopify.com`; the API is reached at https://<shopDomain>. */
  shopDomain: string;
  /** Another origin (the local stand-in): `http://127.0.0.1:<port>`. */
  origin?: string;
  apiVersion?: string;
  /** The Admin API access token; asked for on every request (callers cache it: token.ts). */
  accessToken: () => Promise<string>;
  /** Told when the API refused a token (401): the request is sent once more with the next one. */
  accessTokenRejected?: (token: string) => void;
  /** Retries of a THROTTLED query before giving up (default 8). */
  maxThrottleRetries?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Told whenever the client waits for the bucket (progress, metrics). */
  onWait?: (ms: number, reason: 'throttled' | 'bucket_low') => void;
  timeoutMs?: number;
}

export interface OrdersWindow {
  since: Date;
  until: Date;
}

export interface ShopifyAdminClient {
  /** Pages of orders updated in the window, oldest update first. */
  orders(window: OrdersWindow): AsyncGenerator<AdminOrder[]>;
  /** One refund with every line item; undefined when Shopify no longer has it. */
  refund(refundGid: string): Promise<AdminRefund | undefined>;
  /** Any document (subscriptions.ts): its `data`, after the same throttling, renewal and error handling. */
  graphql(query: string, variables: Record<string, unknown>): Promise<unknown>;
  /** The bucket as the last answer reported it. */
  lastThrottleStatus(): Cost['throttleStatus'] | undefined;
  close(): Promise<void>;
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createShopifyAdminClient(opts: ShopifyAdminClientOptions): ShopifyAdminClient {
  const origin = opts.origin ?? `https://${opts.shopDomain}`;
  const path = `/admin/api/${opts.apiVersion ?? ADMIN_API_VERSION}/graphql.json`;
  const sleep = opts.sleep ?? sleepMs;
  const maxRetries = opts.maxThrottleRetries ?? 8;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const pool = new Pool(origin, { connect: { timeout: 5_000 }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  let bucket: { status: Cost['throttleStatus']; at: number } | undefined;
  // Requested cost of each document as last reported: what the next call of it needs in the bucket.
  const lastRequested = new Map<string, number>();

  /** Waits until the bucket (as last seen, refilled since at restoreRate) holds `cost`. */
  async function waitForBucket(cost: number, reason: 'throttled' | 'bucket_low'): Promise<void> {
    if (bucket === undefined) return;
    const { currentlyAvailable, restoreRate, maximumAvailable } = bucket.status;
    const refilled = Math.min(maximumAvailable, currentlyAvailable + ((Date.now() - bucket.at) / 1000) * restoreRate);
    const need = Math.min(cost, maximumAvailable) - refilled;
    if (need <= 0 || restoreRate <= 0) return;
    const ms = Math.ceil((need / restoreRate) * 1000) + 50;
    opts.onWait?.(ms, reason);
    await sleep(ms);
  }

  async function post(query: string, variables: Record<string, unknown>): Promise<unknown> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const expected = lastRequested.get(query);
      if (expected !== undefined) await waitForBucket(expected, 'bucket_low');
      // Outside the try: a token that cannot be read is its own error, not an unreachable shop.
      const token = await opts.accessToken();
      let status: number;
      let text: string;
      try {
        const res = await pool.request({
          method: 'POST',
          path,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-shopify-access-token': token,
          },
          body: JSON.stringify({ query, variables }),
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (e) {
        throw new ShopifyAdminError('network', `Shopify Admin API unreachable at ${origin}: ${e instanceof Error ? e.message : 'failed'}`);
      }
      if (status === 401 && !renewed && opts.accessTokenRejected !== undefined) {
        // An expired or revoked grant: renew once, then a second 401 is the answer.
        opts.accessTokenRejected(token);
        renewed = true;
        continue;
      }
      if (status === 401 || status === 403) {
        throw new ShopifyAdminError(
          'unauthorized',
          `Shopify Admin API answered ${status}: check the access token and its read_orders scope`,
          status,
        );
      }
      let answer: ReturnType<typeof GraphqlAnswer.parse>;
      try {
        answer = GraphqlAnswer.parse(JSON.parse(text));
      } catch {
        throw new ShopifyAdminError(
          status >= 400 ? 'http' : 'invalid_response',
          `Shopify Admin API answered ${status} without a GraphQL answer`,
          status,
        );
      }
      const cost = answer.extensions?.cost;
      if (cost !== undefined) {
        bucket = { status: cost.throttleStatus, at: Date.now() };
        lastRequested.set(query, cost.requestedQueryCost);
      }
      const throttled = status === 429 || (answer.errors ?? []).some((e) => e.extensions?.code === 'THROTTLED');
      if (throttled) {
        if (attempt >= maxRetries) throw new ShopifyAdminError('throttled', `still throttled after ${maxRetries} retries`, status);
        // Without a cost report (a plain 429), wait a second per attempt.
        if (cost === undefined) {
          opts.onWait?.(1000 * (attempt + 1), 'throttled');
          await sleep(1000 * (attempt + 1));
        } else await waitForBucket(cost.requestedQueryCost, 'throttled');
        continue;
      }
      if (status >= 400) throw new ShopifyAdminError('http', `Shopify Admin API answered ${status}`, status);
      if (answer.errors !== undefined && answer.errors.length > 0) {
        throw new ShopifyAdminError(
          'graphql',
          `Shopify Admin API: ${answer.errors
            .map((e) => e.message)
            .join('; ')
            .slice(0, 500)}`,
          status,
        );
      }
      return answer.data;
    }
  }

  function parsed<T>(
    schema: {
      safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
    },
    data: unknown,
  ): T {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new ShopifyAdminError(
      'invalid_response',
      `unexpected answer at ${(issue?.path ?? []).map(String).join('.')}: ${issue?.message ?? 'invalid'}`,
    );
  }

  return {
    graphql: post,
    async *orders(window) {
      const query = updatedBetween(window.since, window.until);
      let after: string | null = null;
      for (;;) {
        const page: OrdersPage = parsed(OrdersPage, await post(ORDERS_QUERY, { first: ORDERS_PAGE_SIZE, after, query }));
        yield page.orders.nodes;
        if (!page.orders.pageInfo.hasNextPage || page.orders.pageInfo.endCursor === null) return;
        after = page.orders.pageInfo.endCursor;
      }
    },
    async refund(refundGid) {
      let after: string | null = null;
      let refund: AdminRefund | undefined;
      for (;;) {
        const answer: RefundAnswer = parsed(RefundAnswer, await post(REFUND_QUERY, { id: refundGid, after }));
        const r = answer.refund;
        if (r === null) return undefined;
        refund ??= {
          id: r.id,
          createdAt: r.createdAt,
          orderId: r.order.id,
          refundLineItems: [],
          orderAdjustments: r.orderAdjustments.nodes,
          refundShippingLines: r.refundShippingLines.nodes,
        };
        refund.refundLineItems.push(...r.refundLineItems.nodes);
        if (!r.refundLineItems.pageInfo.hasNextPage || r.refundLineItems.pageInfo.endCursor === null) return refund;
        after = r.refundLineItems.pageInfo.endCursor;
      }
    },
    lastThrottleStatus: () => bucket?.status,
    close: () => pool.close(),
  };
}

export { legacyId };
