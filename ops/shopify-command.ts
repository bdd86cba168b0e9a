import { parseArgs } from 'node:util';
import { OpsError } from './errors.js';
import {
  createShopifyAdminClient,
  ShopifyAdminError,
  type SubscriptionChange,
  subscribeSummary,
  subscribeTopics,
} from '../shared/sources/shopify/index.js';
import { loadSources } from '../shared/sources/index.js';
import { LOCAL_DEFAULTS, resolveLocalConfig } from '../kit/local-stack/config.js';
import { requireRunningStack } from '../kit/local-stack/connect.js';
import { LOCAL_SHOP } from '../kit/webhooks/index.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { type SubscribeTarget, subscribingSource } from './shopify-target.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';

export const SHOPIFY_USAGE = `usage:
  npm run shopify -- subscribe [--source <name>] [--shop <shop>.myshopify.com]
                               [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]`;

/** The `npm start` on PORT: its Admin API stand-in, deliveries to its intake. */
async function localTarget(env: NodeJS.ProcessEnv, sourceName: string, shop: string | undefined): Promise<SubscribeTarget> {
  const config = await resolveLocalConfig(env);
  const found = await requireRunningStack(config);
  // The running stack's sources (SHOPIFY_ENROLMENT included), else this environment's, as npm start reads it.
  const subscriptions = subscribingSource(loadSources(found.info?.sourcesConfig ?? env.SOURCES_CONFIG), sourceName);
  const client = createShopifyAdminClient({
    shopDomain: shop ?? LOCAL_SHOP,
    origin: found.info?.shopifyAdmin?.url ?? `http://127.0.0.1:${config.ports.shopifyAdmin}`,
    apiVersion: subscriptions.apiVersion,
    accessToken: async () => LOCAL_DEFAULTS.shopifyAdminToken,
  });
  return {
    client,
    shopDomain: shop ?? LOCAL_SHOP,
    callbackUrl: `${found.intakeUrl}/webhooks/${encodeURIComponent(sourceName)}`,
    subscriptions,
    close: () => client.close(),
  };
}

const describe = (c: SubscriptionChange) =>
  c.kind === 'created'
    ? `subscribed ${c.topic} -> ${c.uri}`
    : c.kind === 'existing'
      ? `already subscribed ${c.topic} -> ${c.uri}`
      : `note: ${c.topic} also goes to ${c.uri} (${c.id}), left as it is`;

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      source: { type: 'string', default: 'shopify' },
      shop: { type: 'string' },
      ...AWS_TARGET_OPTIONS,
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    out.print(SHOPIFY_USAGE);
    return 0;
  }
  const [command, extra] = positionals;
  if (command !== 'subscribe' || extra !== undefined)
    throw new OpsError('usage', command === undefined ? 'name a command' : `unknown command ${positionals.join(' ')}`);
  const stage = stageOf(values);
  const target =
    stage === undefined
      ? await localTarget(env, values.source, values.shop)
      : await (await import('./shopify-aws.js')).stageSubscribeTarget({
          ...stage,
          source: values.source,
          ...(values.shop ? { shopDomain: values.shop } : {}),
        });
  try {
    const { topics, complianceTopics, apiVersion, scopes } = target.subscriptions;
    out.printError(`shopify: ${target.shopDomain} (API ${apiVersion}): ${topics.join(', ')} -> ${target.callbackUrl}`);
    const result = await subscribeTopics(target.client, { topics, uri: target.callbackUrl, ...(scopes ? { scopes } : {}) });
    if (scopes && scopes.length > 0) out.print(`access scopes granted for the source's settings: ${scopes.join(', ')}`);
    for (const change of result.changes) out.print(describe(change));
    for (const topic of complianceTopics) {
      out.print(
        `compliance topic ${topic}: the Admin API cannot subscribe it; set it in shopify.app.toml (compliance_topics) or the Dev Dashboard`,
      );
    }
    out.print(subscribeSummary(result));
    return 0;
  } finally {
    await target.close();
  }
}

/**
 * `npm run shopify -- subscribe`: subscribes the shop to every topic the Shopify source needs, at the
 * source's webhook URL; idempotent. Exit code 0 done, 2 could not run (the reason on stderr). The last
 * line of stdout is `shopify: topics=N created=C existing=E`.
 */
export async function shopifyCommand(argv: string[], env: NodeJS.ProcessEnv, given: CommandOutput = consoleOutput): Promise<number> {
  const failures = { usage: SHOPIFY_USAGE, name: 'shopify', plain: (e: unknown) => e instanceof ShopifyAdminError };
  return runCommand(failures, given, (out) => run(argv, env, out));
}
