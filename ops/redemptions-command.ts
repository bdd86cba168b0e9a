import { parseArgs } from 'node:util';
import { LOCAL_DEFAULTS, resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, findRunningStack } from '../kit/local-stack/connect.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { renderTable } from './table.js';
import { LOCAL_SHOP } from '../kit/webhooks/index.js';
import { ConfigurationError, ENV } from '../shared/config/index.js';
import { createRedemptionLedger, type RedemptionRecord } from '../shared/ledger/index.js';
import {
  REDEMPTION_ADMIN_ENV,
  type RedemptionDeps,
  redemptionDepsFromEnv,
  sweepRedemptions,
  sweepSummary,
} from '../shared/redemption/index.js';
import { dynamoServerClock, refuseSkewedClock, type ServerClock } from './clock-skew.js';
import { OpsError } from './errors.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';
import { formatJst } from '../shared/time/index.js';
import { localLedgerTarget, printShortfalls, stageLedgerTarget } from './till-shortfalls.js';

export const REDEMPTIONS_USAGE = `usage:
  npm run redemptions -- list [--customer <shop customer id>] [--source <name, default shopify>] [--stage S [--stack NAME] [--outputs FILE]]
  npm run redemptions -- sweep [--source <name, default shopify>] [--stage S [--stack NAME] [--outputs FILE]]
  npm run redemptions -- shortfalls [--stage S [--stack NAME] [--outputs FILE]]   (till spends the balance cut short)`;

/**
 * What a caller may set besides the arguments: the stage's Admin API origin (a proxy; the tests' stand-in),
 * and the server clock the sweep checks this machine's clock against (default: the ledger's DynamoDB endpoint).
 */
export interface RedemptionsCommandOptions {
  adminOrigin?: string;
  serverClock?: ServerClock;
  clock?: () => number;
}

/** One line per redemption: ids and amounts only. */
export function redemptionRows(records: readonly RedemptionRecord[]): string[] {
  const rows = records.map((r) => [
    formatJst(r.createdAt),
    r.customerId,
    r.requestId,
    String(r.points),
    `${r.value} ${r.currency}`,
    r.code,
    r.state,
    r.orderId ?? '-',
    r.returnReason ?? r.reason ?? '-',
    // Points given back and taken again (a code used around its end), and what could not be taken.
    r.clawedBackPoints === undefined ? '-' : `${r.clawedBackPoints}${r.clawbackShortfall ? ` (${r.clawbackShortfall} short)` : ''}`,
    // Orders naming the code that count for nothing: `other_customer:<order>`, `second_order:<order>`.
    r.misuses && r.misuses.length > 0 ? r.misuses.join(' ') : '-',
    formatJst(r.expiresAt),
  ]);
  return renderTable(
    ['created_at', 'customer', 'request', 'points', 'value', 'code', 'state', 'order', 'why', 'taken_again', 'misuses', 'expires'],
    rows,
    new Set([3]),
  );
}

/** The `npm start` on PORT: its ledger table, its emulator and its Admin API stand-in. */
async function localDeps(env: NodeJS.ProcessEnv, source: string): Promise<RedemptionsTarget> {
  const config = await resolveLocalConfig(env);
  const found = await findRunningStack(config);
  if (found.status !== 'up') throw new OpsError('usage', `no local stack answers at ${found.intakeUrl}: start it with npm start`);
  const handle = await connectToRunningStack(await configFollowingStack(config, found.info, env), found.info);
  const adminUrl = found.info?.shopifyAdmin?.url ?? `http://127.0.0.1:${config.ports.shopifyAdmin}`;
  const sources = handle.sources;
  const deps =
    sources &&
    redemptionDepsFromEnv(
      {
        [ENV.LEDGER_TABLE]: handle.tableName,
        [REDEMPTION_ADMIN_ENV]: JSON.stringify({ shopDomain: LOCAL_SHOP, origin: adminUrl, accessToken: LOCAL_DEFAULTS.shopifyAdminToken }),
      },
      sources,
      source,
      {
        openapi: handle.openapi,
        ledger: createRedemptionLedger({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now }),
      },
    );
  if (!deps) {
    await handle.close();
    throw new ConfigurationError('redemption_not_enabled', `the running stack's ${source} source does not redeem points`);
  }
  return { deps, serverClock: dynamoServerClock(handle.documentClient, handle.tableName), close: () => handle.close() };
}

/** The sweep's dependencies, the clock of the ledger's DynamoDB endpoint (the sweep's leases live there), and the end. */
export interface RedemptionsTarget {
  deps: RedemptionDeps;
  serverClock: ServerClock;
  close(): Promise<void>;
}

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput, options: RedemptionsCommandOptions): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      customer: { type: 'string' },
      source: { type: 'string', default: 'shopify' },
      help: { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
    },
  });
  if (values.help) {
    out.print(REDEMPTIONS_USAGE);
    return 0;
  }
  const [command, extra] = positionals;
  if ((command !== 'list' && command !== 'sweep' && command !== 'shortfalls') || extra !== undefined) {
    throw new OpsError('usage', command === undefined ? 'name a command' : `unknown command ${positionals.join(' ')}`);
  }
  if (values.customer !== undefined && !/^\d{1,20}$/.test(values.customer))
    throw new OpsError('usage', '--customer takes a Shopify customer id (digits)');
  const stage = stageOf(values);
  if (command === 'shortfalls') return listShortfalls(env, stage, out);
  const { deps, serverClock, close } =
    stage === undefined
      ? await localDeps(env, values.source)
      : await (await import('./redemptions-aws.js')).stageRedemptions({ ...stage, source: values.source, ...options });
  try {
    if (command === 'sweep') {
      // The sweep claims redemptions under leases judged by this machine's clock: refused when it is off.
      await refuseSkewedClock(options.serverClock ?? serverClock, options.clock);
      out.print(sweepSummary(await sweepRedemptions(deps)));
      return 0;
    }
    const records = await deps.ledger.list(values.customer);
    if (records.length === 0) out.print(values.customer ? `no redemptions of customer ${values.customer}` : 'no redemptions');
    else for (const line of redemptionRows(records)) out.print(line);
    return 0;
  } finally {
    await close();
  }
}

/** `shortfalls`: the ledger only (no shop, no redemption settings), locally or on the stage. */
async function listShortfalls(env: NodeJS.ProcessEnv, stage: ReturnType<typeof stageOf>, out: CommandOutput): Promise<number> {
  const target = stage === undefined ? await localLedgerTarget(env) : await stageLedgerTarget(stage);
  try {
    await printShortfalls(target, (line) => out.print(line));
    return 0;
  } finally {
    await target.close();
  }
}

/**
 * `npm run redemptions -- list [--customer ID] [--stage S]`: each redemption and its state (redeemed, used, returned,
 * failed; refused and pending too); `sweep`: ends unused codes past their end now, last line
 * `redemptions sweep: due=N returned=R used=U failed=F later=L`. Exit 0 done, 2 could not run.
 */
export async function redemptionsCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  given: CommandOutput = consoleOutput,
  options: RedemptionsCommandOptions = {},
): Promise<number> {
  // Stored text (the customer's own request id among it) is printed without control characters, as by every operator command.
  return runCommand({ usage: REDEMPTIONS_USAGE, name: 'redemptions' }, given, (out) => run(argv, env, out, options));
}
