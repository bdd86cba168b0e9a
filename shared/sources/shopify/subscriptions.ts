import * as z from 'zod';
import type { ShopifyAdminClient } from './client.js';
import { ShopifyAdminError } from './errors.js';

/**
 * The shop's webhook subscriptions through the GraphQL Admin API: `webhookSubscriptions` lists them,
 * `webhookSubscriptionCreate(topic, webhookSubscription: {uri, format})` adds one (`uri` replaced the
 * deprecated `callbackUrl` in 2025-04). Topics travel as the `WebhookSubscriptionTopic` enum:
 * `orders/paid` is `ORDERS_PAID`.
 */

const PAGE_SIZE = 100;

export const WEBHOOK_SUBSCRIPTIONS_QUERY = `query WebhookSubscriptions($first: Int!, $after: String) {
  webhookSubscriptions(first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id topic uri }
  }
}`;

export const WEBHOOK_SUBSCRIPTION_CREATE = `mutation WebhookSubscriptionCreate($topic: WebhookSubscriptionTopic!, $webhookSubscription: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $webhookSubscription) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

/** The app's granted access scopes (`currentAppInstallation`: no scope needed to read them). */
export const ACCESS_SCOPES_QUERY = `query AccessScopes {
  currentAppInstallation { accessScopes { handle } }
}`;

/**
 * The access scope Shopify requires before it delivers each topic the bridge subscribes (its webhook
 * reference); `write_<x>` includes `read_<x>`.
 */
const TOPIC_SCOPES: Readonly<Record<string, string>> = {
  'orders/create': 'read_orders',
  'orders/paid': 'read_orders',
  'orders/cancelled': 'read_orders',
  'orders/fulfilled': 'read_orders',
  'refunds/create': 'read_orders',
  'customers/create': 'read_customers',
};

const AccessScopes = z.object({
  currentAppInstallation: z.object({ accessScopes: z.array(z.object({ handle: z.string() })) }),
});

const Subscription = z.object({ id: z.string(), topic: z.string(), uri: z.string() });
const SubscriptionsPage = z.object({
  webhookSubscriptions: z.object({
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
    nodes: z.array(Subscription),
  }),
});
const CreateAnswer = z.object({
  webhookSubscriptionCreate: z.object({
    webhookSubscription: Subscription.nullable(),
    userErrors: z.array(z.object({ field: z.array(z.string()).nullable().optional(), message: z.string() })),
  }),
});

/** `orders/paid` as the GraphQL enum value `ORDERS_PAID`. */
export function topicEnum(topic: string): string {
  return topic.replace(/[/.]/g, '_').toUpperCase();
}

export type SubscriptionChange =
  | { kind: 'created' | 'existing'; topic: string; uri: string; id: string }
  /** A subscription of the topic to another address (another stage, an old URL): left as it is. */
  | { kind: 'elsewhere'; topic: string; uri: string; id: string };

export interface SubscribeResult {
  topics: number;
  created: number;
  existing: number;
  changes: SubscriptionChange[];
}

function parsed<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success) throw new ShopifyAdminError('invalid_response', `unexpected ${what} answer`);
  return result.data;
}

async function listSubscriptions(client: Pick<ShopifyAdminClient, 'graphql'>) {
  const all: z.infer<typeof Subscription>[] = [];
  let after: string | null = null;
  for (;;) {
    const page: z.infer<typeof SubscriptionsPage> = parsed(
      SubscriptionsPage,
      await client.graphql(WEBHOOK_SUBSCRIPTIONS_QUERY, { first: PAGE_SIZE, after }),
      'webhookSubscriptions',
    );
    all.push(...page.webhookSubscriptions.nodes);
    const { hasNextPage, endCursor } = page.webhookSubscriptions.pageInfo;
    if (!hasNextPage || endCursor === null || endCursor === after) return all;
    after = endCursor;
  }
}

/**
 * Refuses, before anything is created, topics whose access scope the app was not granted: Shopify
 * would not deliver them, and an operator should learn which scope to add rather than wait for
 * deliveries that never come.
 */
async function checkScopes(
  client: Pick<ShopifyAdminClient, 'graphql'>,
  topics: readonly string[],
  extraScopes: readonly string[] = [],
): Promise<void> {
  const needed = [
    ...topics.flatMap((t) => (TOPIC_SCOPES[t] ? [{ topic: t, scope: TOPIC_SCOPES[t] }] : [])),
    // Not a topic's: what the source's settings do with the Admin API (redemptions make discount codes).
    ...extraScopes.map((scope) => ({ topic: 'redemption', scope })),
  ];
  if (needed.length === 0) return;
  const answer = parsed(AccessScopes, await client.graphql(ACCESS_SCOPES_QUERY, {}), 'currentAppInstallation');
  const granted = new Set(answer.currentAppInstallation.accessScopes.map((s) => s.handle));
  const lacking = needed.filter(({ scope }) => !granted.has(scope) && !granted.has(scope.replace(/^read_/, 'write_')));
  if (lacking.length === 0) return;
  const scopes = [...new Set(lacking.map((l) => l.scope))].join(', ');
  throw new ShopifyAdminError(
    'missing_scope',
    `the app has not been granted ${scopes}, which ${lacking.map((l) => l.topic).join(', ')} needs: add it to the app's access ` +
      'scopes (Dev Dashboard, or scopes in shopify.app.toml), have the shop approve it, and run subscribe again; nothing was subscribed',
  );
}

/**
 * Makes the shop deliver each topic to `uri`: lists what exists first and creates only the
 * subscriptions that are missing, so a second run changes nothing. Nothing is deleted or moved, and
 * nothing is created while a missing topic's access scope is not granted.
 */
export async function subscribeTopics(
  client: Pick<ShopifyAdminClient, 'graphql'>,
  wanted: { topics: readonly string[]; uri: string; scopes?: readonly string[] },
): Promise<SubscribeResult> {
  const existing = await listSubscriptions(client);
  const alreadyOurs = (topic: string) => existing.find((s) => s.topic === topicEnum(topic) && s.uri === wanted.uri);
  await checkScopes(
    client,
    wanted.topics.filter((t) => !alreadyOurs(t)),
    wanted.scopes,
  );
  const changes: SubscriptionChange[] = [];
  for (const topic of wanted.topics) {
    const elsewhere = existing.filter((s) => s.topic === topicEnum(topic) && s.uri !== wanted.uri);
    for (const other of elsewhere) changes.push({ kind: 'elsewhere', topic, uri: other.uri, id: other.id });
    const ours = alreadyOurs(topic);
    if (ours) {
      changes.push({ kind: 'existing', topic, uri: ours.uri, id: ours.id });
      continue;
    }
    const answer = parsed(
      CreateAnswer,
      await client.graphql(WEBHOOK_SUBSCRIPTION_CREATE, {
        topic: topicEnum(topic),
        webhookSubscription: { uri: wanted.uri, format: 'JSON' },
      }),
      'webhookSubscriptionCreate',
    ).webhookSubscriptionCreate;
    const created = answer.webhookSubscription;
    if (answer.userErrors.length > 0 || created === null) {
      const why = answer.userErrors.map((e) => `${(e.field ?? []).join('.')}: ${e.message}`).join('; ');
      throw new ShopifyAdminError('rejected', `Shopify refused the ${topic} subscription: ${why.slice(0, 300) || 'no reason given'}`);
    }
    changes.push({ kind: 'created', topic, uri: created.uri, id: created.id });
  }
  const count = (kind: SubscriptionChange['kind']) => changes.filter((c) => c.kind === kind).length;
  return { topics: wanted.topics.length, created: count('created'), existing: count('existing'), changes };
}

/** The command's last line. */
export const subscribeSummary = (r: SubscribeResult) => `shopify: topics=${r.topics} created=${r.created} existing=${r.existing}`;
