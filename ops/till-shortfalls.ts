import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, findRunningStack } from '../kit/local-stack/connect.js';
import { type OrderRecord, scanTillSpendShortfalls } from '../shared/ledger/index.js';
import { formatJst } from '../shared/time/index.js';
import type { StageOptions } from './aws.js';
import { OpsError } from './errors.js';
import { renderTable } from './table.js';

/**
 * `npm run redemptions -- shortfalls [--stage S]`: every till spend (`<sale>/spend-<g>`, tillPoints
 * membership) the membership balance cut short, oldest first: what the member spent at the till, what was
 * taken, what is short and the policy. Ids and points only. Read from the ledger (a scan), locally or on a stage.
 */

/** One line per spend cut short. */
export function shortfallRows(records: readonly OrderRecord[]): string[] {
  const rows = records.map((r) => {
    const spent = Number(r.eligibleExact ?? r.eligibleAmount ?? 0);
    const short = r.shortfall ?? 0;
    const policy = /^(clamp|park)\b/.exec(r.reason ?? '')?.[1] ?? '-';
    return [
      formatJst(r.createdAt ?? r.finishedAt ?? ''),
      r.source,
      r.orderId,
      r.externalId ?? '-',
      String(spent),
      String(spent - short),
      String(short),
      policy,
    ];
  });
  return renderTable(['created_at', 'source', 'spend', 'member_code', 'spent', 'taken', 'short', 'policy'], rows, new Set([4, 5, 6]));
}

/** The ledger table of the running `npm start` or of a stage. */
export interface LedgerTarget {
  documentClient: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  close(): Promise<void>;
}

export async function localLedgerTarget(env: NodeJS.ProcessEnv): Promise<LedgerTarget> {
  const config = await resolveLocalConfig(env);
  const found = await findRunningStack(config);
  if (found.status !== 'up') throw new OpsError('usage', `no local stack answers at ${found.intakeUrl}: start it with npm start`);
  const handle = await connectToRunningStack(await configFollowingStack(config, found.info, env), found.info);
  return { documentClient: handle.documentClient, tableName: handle.tableName, close: () => handle.close() };
}

export async function stageLedgerTarget(options: StageOptions): Promise<LedgerTarget> {
  const aws = await (await import('./aws.js')).connectToStage(options);
  return { documentClient: aws.documentClient, tableName: aws.tableName, close: () => aws.close() };
}

/** Prints the list (or that there is none) and its count as the last line. */
export async function printShortfalls(target: LedgerTarget, print: (line: string) => void): Promise<void> {
  const records = await scanTillSpendShortfalls(target.documentClient, target.tableName);
  for (const line of records.length > 0 ? shortfallRows(records) : []) print(line);
  const short = records.reduce((n, r) => n + (r.shortfall ?? 0), 0);
  print(`till spend shortfalls: spends=${records.length} short=${short}`);
}
