import {
  AnswerTooLargeError,
  CallDeadlineError,
  createTransport,
  DEFAULT_CALL_DEADLINE_MS,
  type HttpAnswer,
} from '../../http-client/index.js';
import { ShopifyAdminError } from './errors.js';
import { ADMIN_API_VERSION } from './queries.js';
import { type Cost, GraphqlAnswer } from './schemas.js';

/**
 * One GraphQL document sent to the Admin API and its answer read: `POST
 * https://<shop>/admin/api/<version>/graphql.json` with `X-Shopify-Access-Token`, over the one HTTP
 * stack (shared/http-client: the Open API client's answer cap and overall deadline). Rate limits as
 * Shopify meters them: a leaky bucket of query cost per app and shop, reported in every answer's
 * `extensions.cost.throttleStatus`. It waits before a query the bucket cannot pay for, and on
 * `THROTTLED` waits until the bucket has refilled enough for the requested cost, then retries.
 */

export interface GraphqlCallerOptions {
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
  /** Each call's overall deadline, connect to last byte (default: the Open API client's, 10 s). */
  deadlineMs?: number;
}

export interface GraphqlCaller {
  /** The answer's `data`; every failure a ShopifyAdminError. */
  post(query: string, variables: Record<string, unknown>): Promise<unknown>;
  /** The bucket as the last answer reported it. */
  lastThrottleStatus(): Cost['throttleStatus'] | undefined;
  close(): Promise<void>;
}

const sleepMs = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function createGraphqlCaller(opts: GraphqlCallerOptions): GraphqlCaller {
  const origin = opts.origin ?? `https://${opts.shopDomain}`;
  const path = `/admin/api/${opts.apiVersion ?? ADMIN_API_VERSION}/graphql.json`;
  const sleep = opts.sleep ?? sleepMs;
  const maxRetries = opts.maxThrottleRetries ?? 8;
  const deadlineMs = opts.deadlineMs ?? DEFAULT_CALL_DEADLINE_MS;
  // The transport's answer cap (1 MiB) and timeouts are the Open API client's: one stack, one set of rules.
  const transport = createTransport();
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
      let answered: HttpAnswer;
      try {
        answered = await transport.send({
          method: 'POST',
          origin,
          path,
          headers: { 'x-shopify-access-token': token },
          body: { query, variables },
          // A query reads only: asking again changes nothing.
          idempotent: true,
          deadlineMs,
        });
      } catch (e) {
        throw transportFailure(e, origin);
      }
      const { status, text } = answered;
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
        // Shopify's own failure, answered at 200: worth another try, and a mutation may have run (its caller looks).
        const internal = answer.errors.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR');
        throw new ShopifyAdminError(
          internal ? 'internal' : 'graphql',
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

  return { post, lastThrottleStatus: () => bucket?.status, close: () => transport.close() };
}

/** A transport failure as the client's error: the deadline and the cap have their own words; the rest is the network. */
function transportFailure(e: unknown, origin: string): ShopifyAdminError {
  if (e instanceof CallDeadlineError) return new ShopifyAdminError('timeout', `Shopify Admin API at ${origin}: ${e.message}`);
  if (e instanceof AnswerTooLargeError) {
    return new ShopifyAdminError('invalid_response', `Shopify Admin API at ${origin}: ${e.message}, not read further`, e.status);
  }
  return new ShopifyAdminError('network', `Shopify Admin API unreachable at ${origin}: ${e instanceof Error ? e.message : 'failed'}`);
}
