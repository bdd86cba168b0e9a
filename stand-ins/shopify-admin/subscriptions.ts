import type { Field } from './cost.js';
import { cursorOf, positionOf } from './graphql.js';

/**
 * The shop's webhook subscriptions, as the GraphQL Admin API keeps them (`WebhookSubscription`:
 * `id`, `topic` as the `WebhookSubscriptionTopic` enum, `uri`, `format`) and the two documents that
 * read and add them: the `webhookSubscriptions` connection and `webhookSubscriptionCreate(topic,
 * webhookSubscription: {uri, format})` with its `userErrors`. One difference from Shopify, for the
 * local stack: an http:// address on the loopback is accepted (Shopify delivers to HTTPS only).
 */

export interface StoredSubscription {
  id: string;
  topic: string;
  uri: string;
  format: 'JSON' | 'XML';
  createdAt: string;
}

export interface SubscriptionStore {
  list(): StoredSubscription[];
  create(input: { topic: string; uri: string; format: 'JSON' | 'XML' }): StoredSubscription;
}

export function createSubscriptionStore(now: () => number = Date.now): SubscriptionStore {
  const subscriptions: StoredSubscription[] = [];
  let next = 1;
  return {
    list: () => subscriptions.map((s) => ({ ...s })),
    create(input) {
      const created = { id: `gid://shopify/WebhookSubscription/${next++}`, ...input, createdAt: new Date(now()).toISOString() };
      subscriptions.push(created);
      return { ...created };
    },
  };
}

const TOPIC = /^[A-Z][A-Z0-9_]{2,60}$/;
const ADDRESS = /^(https:\/\/[^\s/]+\/\S*|http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/\S*)$/;

type UserError = { field: string[]; message: string };
type Answer = { data: unknown } | { errors: { message: string }[] };

function create(store: SubscriptionStore, vars: Record<string, unknown>): Answer {
  const topic = vars.topic;
  const input = (vars.webhookSubscription ?? {}) as { uri?: unknown; callbackUrl?: unknown; format?: unknown };
  if (typeof topic !== 'string' || !TOPIC.test(topic)) {
    return { errors: [{ message: `Variable $topic of type WebhookSubscriptionTopic! was provided invalid value` }] };
  }
  const uri = typeof input.uri === 'string' ? input.uri : typeof input.callbackUrl === 'string' ? input.callbackUrl : undefined;
  const format = input.format === undefined ? 'JSON' : input.format;
  const userErrors: UserError[] = [];
  if (uri === undefined || !ADDRESS.test(uri)) userErrors.push({ field: ['webhookSubscription', 'uri'], message: 'Address is invalid' });
  else if (store.list().some((s) => s.topic === topic && s.uri === uri)) {
    userErrors.push({ field: ['webhookSubscription', 'uri'], message: 'Address for this topic has already been taken' });
  }
  if (format !== 'JSON' && format !== 'XML') userErrors.push({ field: ['webhookSubscription', 'format'], message: 'Format is invalid' });
  if (userErrors.length > 0 || uri === undefined || (format !== 'JSON' && format !== 'XML')) {
    return { data: { webhookSubscriptionCreate: { webhookSubscription: null, userErrors } } };
  }
  const created = store.create({ topic, uri, format });
  return { data: { webhookSubscriptionCreate: { webhookSubscription: node(created), userErrors: [] } } };
}

const node = (s: StoredSubscription) => ({ id: s.id, topic: s.topic, uri: s.uri, format: s.format, createdAt: s.createdAt });

function list(store: SubscriptionStore, top: Field, vars: Record<string, unknown>): Answer {
  const raw = top.args.first;
  const first = raw?.startsWith('$') ? vars[raw.slice(1)] : Number(raw);
  const start = positionOf(vars.after);
  if (typeof first !== 'number' || !Number.isInteger(first) || first < 1 || first > 250 || start === undefined) {
    return { errors: [{ message: 'first must be 1..250 and after a cursor from pageInfo' }] };
  }
  const all = store.list();
  const page = all.slice(start, start + first);
  const end = start + page.length;
  return {
    data: {
      webhookSubscriptions: {
        pageInfo: { hasNextPage: end < all.length, endCursor: page.length > 0 ? cursorOf(end) : null },
        nodes: page.map(node),
      },
    },
  };
}

/** The answer to a subscription document, or undefined when the document is about something else. */
export function answerSubscriptions(store: SubscriptionStore, top: Field, vars: Record<string, unknown>): Answer | undefined {
  if (top.name === 'webhookSubscriptions') return list(store, top, vars);
  if (top.name === 'webhookSubscriptionCreate') return create(store, vars);
  return undefined;
}
