import * as z from 'zod';
import { ExternalKey, commonSettings } from '../settings.js';
import { RedemptionSettings } from '../redemption-settings.js';
import { EarnAfterSetting } from '../earn-after.js';
import type { CustomerLinking, SourceSettingsKind } from '../types.js';
import { DEFAULT_SHOPIFY_API_VERSION, SHOPIFY_API_VERSION } from './webhook-subscriptions.js';
import { lazySchema } from '../../schema/index.js';

/** A Shopify source's settings (SOURCES_CONFIG), apart from its webhook parsing: what non-intake functions read. */
export const ShopifySettings = lazySchema(() =>
  z
    .object({
      /** The membership external key holding the Shopify customer id. */
      externalKey: ExternalKey.default('shopify'),
      ...commonSettings(),
      /** Count refund order adjustments (discrepancies; shipping refunds for the `total` basis). */
      includeOrderAdjustments: z.boolean().default(false),
      /**
       * Shops whose deliveries count (`example.myshopify.com`); empty: any shop. One app secret
       * signs for every shop the app is installed on, so a multi-shop app should list its shop.
       */
      shopDomains: z.array(z.string().regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'expected <shop>.myshopify.com')).default([]),
      /**
       * The Shopify API version of the webhook deliveries and the Admin API calls (`2026-10`); a delivery
       * made with another one is counted and logged. docs/runbook.md, "Upgrading the Shopify API version".
       */
      apiVersion: z
        .string()
        .regex(SHOPIFY_API_VERSION, 'a stable Shopify API version such as 2026-10')
        .default(DEFAULT_SHOPIFY_API_VERSION),
      /**
       * `register`: a customer the shop creates (customers/create) is registered as a member with this
       * source's external key, exactly once. `off` (default): customers/create is answered `ignored`.
       */
      enrolment: z.enum(['off', 'register']).default('off'),
      /**
       * When a customer is enrolled or linked, their purchases of this many days back that found no member
       * (`customer_not_found`) are credited, once. 0: none.
       */
      retroCreditDays: z.number().int().min(0).max(365).default(30),
      /**
       * When the points are earned: `paid` (default), `fulfilled` (orders/fulfilled) or `{"days": N}` after
       * payment; provisional until then (docs/campaigns.md, 仮ポイント).
       */
      earnAfter: EarnAfterSetting.default('paid'),
      /**
       * Under `earnAfter: fulfilled`, whether each shipment of a split order earns its share
       * (orders/partially_fulfilled, docs/campaigns.md). On by default; off, the order earns once at orders/fulfilled.
       */
      partialFulfilments: z.boolean().default(true),
      /** Points spent as single-use discount codes (off by default: a shop opts in). */
      redemption: RedemptionSettings.prefault({}),
    })
    .strict()
    .superRefine((settings, ctx) => {
      if (settings.redemption.enabled && settings.apiVersion < MIN_REDEMPTION_API_VERSION) {
        ctx.addIssue({
          code: 'custom',
          path: ['apiVersion'],
          message: redemptionApiVersionProblem(settings.apiVersion),
        });
      }
    }),
);

/**
 * The oldest Admin API version a redeeming source may speak: its codes are made for one customer with
 * `context`, which Shopify has from 2025-10 only (an older version refuses the input).
 */
export const MIN_REDEMPTION_API_VERSION = '2025-10';

export const redemptionApiVersionProblem = (version: string): string =>
  `apiVersion ${version} is older than ${MIN_REDEMPTION_API_VERSION}: redemption makes its codes with the discount ` +
  `input \`context\`, which Shopify has from API version ${MIN_REDEMPTION_API_VERSION} only; set apiVersion to ${MIN_REDEMPTION_API_VERSION} or later`;
export type ShopifySettings = z.infer<typeof ShopifySettings>;

/** How this kind's customers are linked to members (WebhookSource.customerLinking). */
export const shopifyCustomerLinking = (settings: ShopifySettings): CustomerLinking => ({
  externalKey: settings.externalKey,
  retroCreditDays: settings.retroCreditDays,
  shopDomains: settings.shopDomains,
  redemption: settings.redemption,
  earnsLater: settings.earnAfter !== 'paid',
});

/** The settings side of the shopify source (its webhook.ts adds the parsing). */
export const shopifySettingsKind: SourceSettingsKind<ShopifySettings> = {
  kind: 'shopify',
  settingsSchema: ShopifySettings,
  customerLinking: shopifyCustomerLinking,
};
