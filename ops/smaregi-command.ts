import { parseArgs } from 'node:util';
import { checkPointSettings, type PointSettingsCheck } from '../shared/sources/smaregi/index.js';
import { OpsError } from './errors.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { localSmaregiTarget, type SmaregiReconcileTarget } from './reconcile-smaregi.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';
import { printTillMirrors } from './till-mirrors.js';
import { localLedgerTarget, stageLedgerTarget } from './till-shortfalls.js';

export const SMAREGI_USAGE = `usage:
  npm run smaregi -- check [--source <smaregi source, default smaregi>] [--days N (1-31, default 7)] [--stage S [--stack NAME] [--outputs FILE]]
  npm run smaregi -- mirrors [--stage S [--stack NAME] [--outputs FILE]]   (till mirror steps in conflict, refused or unfinished)`;

/** The lines of a check: what was read, what a shop must turn off, and the last line with the figures. */
export function checkLines(source: string, contractId: string, c: PointSettingsCheck): string[] {
  const lines = [`smaregi check: ${source} (contract ${contractId})`];
  lines.push(
    c.ownPoints > 0
      ? `own earning: ON — ${c.ownPoints} of ${c.sales} sales of the last ${c.days} days carry Smaregi's own points (newPoint), e.g. ${c.ownPointSales.join(', ')}: turn ポイント付与 off (shop, stores, ranks, products)`
      : `own earning: not seen — no sale of the last ${c.days} days (${c.sales}) carries Smaregi's own points`,
  );
  lines.push(
    c.expiring > 0
      ? `own expiry: ON — ${c.expiring} of ${c.customers} customers have a Smaregi point expiry date (pointExpireDate), e.g. ${c.expiringCustomers.join(', ')}: turn ポイント有効期限 off and clear the dates`
      : `own expiry: not seen — no customer (${c.customers}) has a Smaregi point expiry date`,
  );
  lines.push(
    'not readable through the API: the point settings themselves (rates, rank and product rules): check them in the back office (docs/smaregi.md)',
  );
  if (c.partial) lines.push('partial: a page limit was reached, the figures are a lower bound');
  lines.push(`smaregi check: sales=${c.sales} own_points=${c.ownPoints} customers=${c.customers} expiring=${c.expiring}`);
  return lines;
}

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput, now: () => Date): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      source: { type: 'string', default: 'smaregi' },
      days: { type: 'string', default: '7' },
      help: { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
    },
  });
  if (values.help) {
    out.print(SMAREGI_USAGE);
    return 0;
  }
  if (positionals.length !== 1 || (positionals[0] !== 'check' && positionals[0] !== 'mirrors'))
    throw new OpsError('usage', positionals.length === 0 ? 'name a command' : `unknown command ${positionals.join(' ')}`);
  if (positionals[0] === 'mirrors') return listMirrors(env, stageOf(values), out);
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1 || days > 31) throw new OpsError('usage', '--days takes 1 to 31');
  const stage = stageOf(values);
  const target: SmaregiReconcileTarget =
    stage === undefined
      ? await localSmaregiTarget(env, values.source)
      : await (await import('./reconcile-smaregi-aws.js')).smaregiStageTarget({ ...stage, source: values.source });
  try {
    const checked = await checkPointSettings(target.client, { now: now(), days });
    for (const line of checkLines(values.source, target.settings.contractId, checked)) out.print(line);
    return checked.ownPoints > 0 || checked.expiring > 0 ? 1 : 0;
  } finally {
    await target.close();
  }
}

/** `mirrors`: the ledger only, locally or on the stage; exit 1 when a step conflicts or was refused. */
async function listMirrors(env: NodeJS.ProcessEnv, stage: ReturnType<typeof stageOf>, out: CommandOutput): Promise<number> {
  const target = stage === undefined ? await localLedgerTarget(env) : await stageLedgerTarget(stage);
  try {
    return (await printTillMirrors(target, (line) => out.print(line))) > 0 ? 1 : 0;
  } finally {
    await target.close();
  }
}

/**
 * `npm run smaregi -- check [--source S] [--days N] [--stage S]`: reads what the Platform API shows of the
 * Smaregi point settings a shop must turn off under `tillPoints: membership` (its own earning, its own
 * expiry), locally (the stand-in of `npm start`) or on a stage. Exit 0 nothing seen, 1 a setting seen on, 2 could not run.
 */
export async function smaregiCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  given: CommandOutput = consoleOutput,
  now: () => Date = () => new Date(),
): Promise<number> {
  return runCommand({ usage: SMAREGI_USAGE, name: 'smaregi' }, given, (out) => run(argv, env, out, now));
}
