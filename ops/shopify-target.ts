import type { ShopifyAdminClient } from '../shared/sources/shopify/index.js';
import { OpsError } from './errors.js';
import type { ConfiguredSource, SourceSubscriptions } from '../shared/sources/index.js';

/** What `npm run shopify -- subscribe` works on: a shop's Admin API, and where the source's webhooks must go. */
export interface SubscribeTarget {
  client: ShopifyAdminClient;
  shopDomain: string;
  /** The source's webhook URL (the stage's WebhookUrl<source> output, or the local intake's route). */
  callbackUrl: string;
  subscriptions: SourceSubscriptions;
  close(): Promise<void>;
}

/** The Shopify source named, and what it needs subscribed (derived from its settings). */
export function subscribingSource(sources: ReadonlyMap<string, ConfiguredSource>, name: string): SourceSubscriptions {
  const source = sources.get(name);
  if (source === undefined) throw new OpsError('not_a_shopify_source', `no source ${name} is configured`);
  const needs = source.kind === 'shopify' ? source.subscriptions?.() : undefined;
  if (needs === undefined)
    throw new OpsError('not_a_shopify_source', `source ${name} is a ${source.kind} source: only Shopify sources are subscribed here`);
  return needs;
}
