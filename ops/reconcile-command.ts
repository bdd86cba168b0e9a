import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OpsError } from './errors.js';
import { checkWindow, reconcileShopify, summaryLine } from '../shared/reconcile/index.js';
import { createShopifyAdminClient, ShopifyAdminError } from '../shared/sources/shopify/index.js';
import { type ConfiguredSource, loadSources } from '../shared/sources/index.js';
import { LOCAL_DEFAULTS, resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, requireRunningStack } from '../kit/local-stack/connect.js';
import { LOCAL_SHOP } from '../kit/webhooks/index.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { localEnqueue } from './local-enqueue.js';
import type { ReconcileTarget } from './reconcile-target.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';
import { formatJst, jstIfInstant } from '../shared/time/index.js';

export const RECONCILE_USAGE = `usage:
  npm run reconcile -- --source <name> --since <ISO date> [--until <ISO date>] [--dry-run] [--shop <shop>.myshopify.com]
                       [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]`;

function shopifySource(sources: ReadonlyMap<string, ConfiguredSource>, name: string): ConfiguredSource {
  const source = sources.get(name);
  if (source === undefined) throw new OpsError('usage', `no source ${name} is configured`);
  if (source.kind !== 'shopify')
    throw new OpsError('usage', `source ${name} is a ${source.kind} source: only Shopify sources can be reconciled`);
  return source;
}

/** The `npm start` on PORT: its Admin API stand-in, its ledger, its in-process queue (POST /__local/enqueue). */
async function localTarget(env: NodeJS.ProcessEnv, sourceName: string, shop: string | undefined): Promise<ReconcileTarget> {
  const config = await resolveLocalConfig(env);
  const found = await requireRunningStack(config);
  const source = shopifySource(loadSources(env.SOURCES_CONFIG), sourceName);
  const handle = connectToRunningStack(await configFollowingStack(config, found.info, env), found.info);
  const adminUrl = found.info?.shopifyAdmin?.url ?? `http://127.0.0.1:${config.ports.shopifyAdmin}`;
  const client = createShopifyAdminClient({
    shopDomain: shop ?? LOCAL_SHOP,
    origin: adminUrl,
    accessToken: async () => LOCAL_DEFAULTS.shopifyAdminToken,
  });
  const queue = localEnqueue(handle.intakeUrl);
  return {
    client,
    ledger: handle.ledger,
    queue,
    source,
    shopDomain: shop ?? LOCAL_SHOP,
    async close() {
      await client.close();
      await handle.close();
    },
  };
}

/** Whether the stage file names `source` a Smaregi source (its kind, or its name when it has none). */
async function isStageSmaregi(stage: ReturnType<typeof stageOf>, source: string): Promise<boolean> {
  if (stage === undefined) return false;
  const { loadStageConfig } = await import('../infra/config/index.js');
  const entry = loadStageConfig(join(process.cwd(), 'infra'), stage.stage).sources[source] as { kind?: string } | undefined;
  return entry !== undefined && (entry.kind ?? source) === 'smaregi';
}

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput, now: () => Date): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      source: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      shop: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    out.print(RECONCILE_USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new OpsError('usage', `unexpected argument ${positionals[0]}`);
  if (values.source === undefined || values.since === undefined) throw new OpsError('usage', '--source and --since are required');
  const stage = stageOf(values);
  const since = new Date(values.since);
  const until = values.until === undefined ? now() : new Date(values.until);
  try {
    checkWindow(since, until);
  } catch (e) {
    throw new OpsError('usage', e instanceof Error ? e.message : 'bad window');
  }

  if (
    values.source === 'smaregi' ||
    loadSources(env.SOURCES_CONFIG).get(values.source)?.kind === 'smaregi' ||
    (await isStageSmaregi(stage, values.source))
  ) {
    const { reconcileSmaregiCommand } = await import('./reconcile-smaregi.js');
    const target =
      stage === undefined
        ? undefined
        : await (await import('./reconcile-smaregi-aws.js')).smaregiStageTarget({ ...stage, source: values.source });
    return reconcileSmaregiCommand({
      env,
      sourceName: values.source,
      since,
      until,
      dryRun: values['dry-run'],
      out,
      now,
      ...(target ? { target } : {}),
    });
  }
  const target =
    stage === undefined
      ? await localTarget(env, values.source, values.shop)
      : await (await import('./reconcile-aws.js')).stageTarget({ ...stage, source: values.source });
  const dryRun = values['dry-run'];
  try {
    out.printError(
      `reconcile: ${target.source.name} (${target.shopDomain}) orders updated ${formatJst(since)} .. ${formatJst(until)}${dryRun ? ' (dry run)' : ''}`,
    );
    const result = await reconcileShopify(
      {
        ...target,
        now,
        progress: out.printError,
        onMissing: (m) =>
          out.print(
            `${dryRun ? 'missing' : 'enqueued'} ${m.kind} ${m.eventId} (${m.orderName ?? 'no name'}, ${jstIfInstant(m.occurredAt)})`,
          ),
        onProblem: (p) => out.printError(`reconcile: could not reconcile ${p.eventId}: ${p.message}`),
      },
      { since, until, dryRun },
    );
    out.print(summaryLine(result));
    return result.problems > 0 ? 1 : 0;
  } finally {
    await target.close();
  }
}

/**
 * `npm run reconcile`: credits and debits what Shopify has but the ledger never saw (webhooks that
 * were never delivered), through the normal queue. Exit code: 0 done, 1 done but some events could not
 * be reconciled (named on stderr), 2 could not run. The last line of stdout is always the summary
 * when it ran.
 */
export async function reconcileCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  given: CommandOutput = consoleOutput,
  now: () => Date = () => new Date(),
): Promise<number> {
  // The shop's answer says it all, as a setting to fix does.
  const failures = { usage: RECONCILE_USAGE, name: 'reconcile', plain: (e: unknown) => e instanceof ShopifyAdminError };
  return runCommand(failures, given, (out) => run(argv, env, out, now));
}
