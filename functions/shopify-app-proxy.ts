import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ENV, minWebhookSecretChars, webhookSecretsFromEnv } from '../shared/config/index.js';
import { APP_PROXY_HEADERS, handleProxyLink, linkedEvent, type ProxyLinkDeps, proxyRequestOf } from '../shared/customers/index.js';
import { queueUrlFromEnv } from '../shared/intake/index.js';
import { jsonLoggerFromEnv } from '../shared/logging/index.js';
import { type CredentialsProvider, credentialsFromEnv } from '../shared/openapi/index.js';
import { createSqsQueue, type EventQueue, queueMessageFor } from '../shared/queue/index.js';
import { handlePointsPage, handleRedeem, type RedemptionProxyDeps, redemptionDepsFromEnv } from '../shared/redemption/index.js';
import { loadSourceSettings } from '../shared/sources/index.js';
import { openApiClientFromEnv } from '../shared/upstream/index.js';

/**
 * shopify-app-proxy: the Shopify App Proxy's routes: `GET|POST /proxy/shopify/link`, the link request
 * (docs/customers.md), and, when the source redeems, `GET /proxy/shopify/points` and
 * `POST /proxy/shopify/redeem` (docs/redemption.md).
 * Verifies Shopify's signature before anything else; the GET answers a confirmation, the confirmed POST
 * links the logged-in customer to the member whose handover token it carries (Open API: handover check,
 * then the member's external id), and queues the
 * crediting of the customer's earlier purchases. Separate from receive-webhook, which never calls the Open API.
 */

export type AppProxyDeps = Omit<ProxyLinkDeps, 'onLinked'> & {
  queue: EventQueue;
  retroCreditDays: number;
  /** The points page and redeem routes; undefined: the source does not redeem (they answer 404). */
  redemption?: RedemptionProxyDeps;
};

const NOT_FOUND = {
  statusCode: 404,
  headers: { ...APP_PROXY_HEADERS, 'content-type': 'application/json' },
  body: '{"error":{"kind":"not_enabled","message":"this shop does not offer points redemption"}}',
};
export type AppProxyHandler = (event: APIGatewayProxyEventV2, context?: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export function makeHandler(deps: AppProxyDeps): AppProxyHandler {
  const proxy: ProxyLinkDeps = {
    ...deps,
    onLinked: async ({ source, customerId, memberId }) => {
      const event = linkedEvent({
        source,
        externalKey: deps.externalKey,
        customerId,
        memberId,
        retroCreditDays: deps.retroCreditDays,
        nowMs: deps.now(),
      });
      await deps.queue.send(queueMessageFor(event));
    },
  };
  return async (event) => {
    try {
      const request = proxyRequestOf(event);
      const path = event.rawPath ?? '';
      const redemption = deps.redemption;
      const routed = path.endsWith('/points') ? handlePointsPage : path.endsWith('/redeem') ? handleRedeem : undefined;
      if (routed && !redemption) return NOT_FOUND;
      const answer = routed && redemption ? await routed(request, redemption) : await handleProxyLink(request, proxy);
      return { statusCode: answer.statusCode, headers: answer.headers, body: answer.body };
    } catch (e) {
      deps.logger?.warn('app proxy request failed', { error: e instanceof Error ? e.name : 'unknown' });
      return {
        statusCode: 500,
        headers: { ...APP_PROXY_HEADERS, 'content-type': 'application/json' },
        body: '{"error":{"kind":"internal","message":"try again later"}}',
      };
    }
  };
}

/** The Shopify source the proxy serves: `shopify` (the App Proxy's URL is `<api>/proxy/shopify`). */
const SOURCE = 'shopify';

export function depsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<AppProxyDeps> & { credentials?: CredentialsProvider } = {},
): AppProxyDeps {
  const sources = loadSourceSettings(env[ENV.SOURCES_CONFIG]);
  const linking = sources.get(SOURCE)?.customerLinking?.();
  if (!linking) throw new Error(`the ${SOURCE} source is not configured (SOURCES_CONFIG): the app proxy links its customers`);
  // The storefront may take the budget's reserved share: a shopper is never starved by the worker's backlog.
  const openapi = overrides.openapi ?? openApiClientFromEnv(env, overrides.credentials ?? credentialsFromEnv(env), { class: 'storefront' });
  const secrets = overrides.secrets ?? webhookSecretsFromEnv(env, { minLength: (name) => minWebhookSecretChars(sources.get(name)?.kind) });
  const logger = overrides.logger ?? jsonLoggerFromEnv(env);
  // A link-only client (some tests) cannot redeem: the redeem routes then answer 404.
  const redeemApi = 'grantPoints' in openapi ? (openapi as unknown as RedemptionProxyDeps['openapi']) : undefined;
  const queue = overrides.queue ?? createSqsQueue({ queueUrl: queueUrlFromEnv(env) });
  // Its web legs' till mirrors go through the worker (the queue): this function holds no Smaregi access.
  const redemption =
    overrides.redemption ??
    (redeemApi &&
      redemptionDepsFromEnv(env, sources, SOURCE, {
        openapi: redeemApi,
        logger,
        tillMirrorQueue: queue,
        ...(overrides.now ? { now: overrides.now } : {}),
      }));
  return {
    source: SOURCE,
    externalKey: linking.externalKey,
    shopDomains: linking.shopDomains,
    retroCreditDays: linking.retroCreditDays,
    secrets,
    openapi,
    queue,
    now: overrides.now ?? Date.now,
    logger,
    ...(redemption ? { redemption: { ...redemption, secrets, shopDomains: linking.shopDomains } } : {}),
  };
}

let lambdaHandler: AppProxyHandler | undefined;

export const handler: AppProxyHandler = async (event, context) => {
  lambdaHandler ??= makeHandler(depsFromEnv(process.env));
  return lambdaHandler(event, context);
};
