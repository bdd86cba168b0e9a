import { APP_PROXY_REDEMPTION_ADMIN_ENV, REDEMPTION_ADMIN_ENV } from '../../shared/redemption/index.js';
import { REDEMPTION_TOKEN_SCOPES } from '../../shared/sources/shopify/index.js';
import type { LocalStandIn } from '../plug-in.js';
import { recordAcceptedDelivery } from './seed.js';
import { type ShopifyAdminStandIn, startShopifyAdminStandIn } from './server.js';

/** The local shop: its domain (the sample webhooks' and the operator commands' default) and the stand-in's Admin API token (a demo value). */
export const SHOPIFY_ADMIN_LOCAL = {
  shop: 'demo-shop.myshopify.com',
  accessToken: 'demo-shopify-admin-token',
  /** The App Proxy's own token, discount scopes only (as deployed: docs/deploy.md §6). */
  discountsToken: 'demo-shopify-discounts-token',
} as const;

/**
 * `npm start`'s Shopify Admin API (SHOPIFY_ADMIN_PORT): redemptions make their codes there
 * (REDEMPTION_ADMIN, unless set), and it keeps every Shopify order and refund the intake accepted, so
 * `npm run reconcile` finds what was delivered plus what was put there without a webhook.
 */
export const localStandIn: LocalStandIn<undefined, ShopifyAdminStandIn, { url: string }> = {
  kind: 'shopify',
  name: 'shopify-admin',
  port: { variable: 'SHOPIFY_ADMIN_PORT', default: 8789 },
  start: (port) =>
    startShopifyAdminStandIn({
      port,
      accessToken: SHOPIFY_ADMIN_LOCAL.accessToken,
      scopedTokens: [{ token: SHOPIFY_ADMIN_LOCAL.discountsToken, scopes: REDEMPTION_TOKEN_SCOPES }],
    }),
  environment: (started, env) => ({
    [REDEMPTION_ADMIN_ENV]:
      env[REDEMPTION_ADMIN_ENV] ??
      JSON.stringify({ shopDomain: SHOPIFY_ADMIN_LOCAL.shop, origin: started.url, accessToken: SHOPIFY_ADMIN_LOCAL.accessToken }),
    // The App Proxy's, as in AWS its REDEMPTION_SHOPIFY_ADMIN names its own discounts-only secret.
    [APP_PROXY_REDEMPTION_ADMIN_ENV]:
      env[APP_PROXY_REDEMPTION_ADMIN_ENV] ??
      JSON.stringify({ shopDomain: SHOPIFY_ADMIN_LOCAL.shop, origin: started.url, accessToken: SHOPIFY_ADMIN_LOCAL.discountsToken }),
  }),
  info: (started) => ({ url: started.url }),
  banner: (started) => ({
    services: [
      `  Shopify Admin API        ${started.url}   stand-in: POST /admin/api/<version>/graphql.json (token ${SHOPIFY_ADMIN_LOCAL.accessToken})`,
      `                           POST /__shopify/orders  POST /__shopify/refunds (store without a webhook; npm run reconcile finds them)`,
    ],
    secrets: [],
  }),
  delivered: (started, event, result) => recordAcceptedDelivery(started.store, event, result),
};
