import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { LocalStackHandle } from '../kit/local-stack/connect.js';
import { createTillReturns, type Ledger, type TillReturnRecord, type TillReturns } from '../shared/ledger/index.js';
import { type EventQueue, queueMessageFor } from '../shared/queue/index.js';
import { applyRefusal, returnRefundId, saleFacts, tillReturnRefund } from '../shared/sources/smaregi/index.js';
import type { AwsTarget } from './aws.js';
import { OpsError, unknownSourceError } from './errors.js';
import { localHandle } from './local-stack.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import { renderTable } from './table.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';

export const RETURNS_USAGE = `usage:
  npm run returns -- list [--source <name, default smaregi>] [--stage S [--stack NAME] [--outputs FILE]]
  npm run returns -- apply <return id> --sale <transaction id> [--by <who>] [--source <name>] [--stage S ...]
  npm run returns -- dismiss <return id> --why "<reason>" [--by <who>] [--source <name>] [--stage S ...]`;

/** What the command reads and writes: the till returns and orders in the ledger table, and the worker's queue. */
export interface ReturnsTarget {
  tillReturns: TillReturns;
  ledger: Pick<Ledger, 'getOrder' | 'getRefund'>;
  queue: EventQueue;
}

const SMAREGI_ID = /^[0-9]{1,20}$/;
const MAX_WHY_CHARS = 500;

/** The return's lines: `product×quantity ¥amount`, comma-separated. */
const linesText = (r: TillReturnRecord) =>
  r.lines.map((l) => `${l.productId}×${l.quantity}${l.amount ? ` ¥${l.amount}` : ''}`).join(', ') || '-';

/** Whose return it is: `<key>:<code>`, or `(erased)` once a privacy erase took the member out. */
const memberText = (r: TillReturnRecord) => (r.externalId === undefined ? '(erased)' : `${r.externalKey}:${r.externalId}`);

/** One row per open return: when, where, whose, how much, what. */
export function openReturnRows(records: readonly TillReturnRecord[]): string[] {
  const rows = records.map((r) => [
    r.returnId,
    r.occurredAt,
    r.storeId ?? '-',
    r.terminalId ?? '-',
    memberText(r),
    `¥${r.amount}`,
    linesText(r),
  ]);
  return renderTable(['return', 'at', 'store', 'terminal', 'member', 'amount', 'lines'], rows, new Set([5]));
}

/** The return as `npm run ledger -- <source> unlinked/<id>` shows it. */
export function tillReturnLines(r: TillReturnRecord): string[] {
  const settled =
    r.status === 'applied'
      ? [`  applied to:  sale ${r.saleId} (refund ${r.refundId}) by ${r.appliedBy} at ${r.appliedAt}`]
      : r.status === 'dismissed'
        ? [`  dismissed:   by ${r.dismissedBy} at ${r.dismissedAt}: ${r.why}`]
        : [`  settle with: npm run returns -- apply ${r.returnId} --sale <transaction id>  (or dismiss ${r.returnId} --why "...")`];
  return [
    `till return ${r.source} ${r.returnId}: ${r.status}`,
    `  store:       ${r.storeId ?? '-'}`,
    `  terminal:    ${r.terminalId ?? '-'}`,
    `  at:          ${r.occurredAt}`,
    `  member:      ${memberText(r)}`,
    `  amount:      ¥${r.amount} (${r.currency})`,
    `  lines:       ${linesText(r)}`,
    ...settled,
  ];
}

/** Who acts: `--by`, else the login name. */
function actor(by: string | undefined, env: NodeJS.ProcessEnv): string {
  const who = by ?? env.USER ?? userInfo().username;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (!who || who.length > 100 || /[\u0000-\u001f\u007f]/.test(who))
    throw new OpsError('usage', '--by names who acts: 1-100 printable characters');
  return who;
}

function returnId(id: string | undefined): string {
  if (id === undefined || !SMAREGI_ID.test(id)) throw new OpsError('usage', 'name the return by its transaction id (1-20 digits)');
  return id;
}

/** Queues the refund of the sale (the worker's exactly-once protocol applies it); again after a lost send, a duplicate. */
async function queueRefund(target: ReturnsTarget, r: TillReturnRecord, saleId: string): Promise<string> {
  const facts = await saleFacts(target.ledger, target.tillReturns, r.source, saleId);
  const refund = tillReturnRefund(r, facts.live?.orderId ?? saleId);
  await target.queue.send(queueMessageFor(refund));
  return refund.refundId;
}

/** `apply <return id> --sale <id>`: 0 applied (or already to that sale), 1 refused with the reason. */
export async function applyReturn(
  target: ReturnsTarget,
  input: { source: string; returnId: string; saleId: string; by: string },
  print: (line: string) => void,
): Promise<number> {
  const { source, saleId } = input;
  const current = await target.tillReturns.get(source, input.returnId);
  if (!current) {
    print(`refused: no till return ${input.returnId} of ${source} (npm run returns -- list)`);
    return 1;
  }
  if (current.status === 'applied' && current.saleId === saleId) {
    const refundId = await queueRefund(target, current, saleId);
    print(
      `return ${current.returnId} was already applied to sale ${saleId}: refund ${refundId} queued again (the ledger makes it a duplicate)`,
    );
    return 0;
  }
  if (current.status !== 'open') {
    print(`refused: return ${current.returnId} is ${current.status}${current.saleId ? ` (to sale ${current.saleId})` : ''}`);
    return 1;
  }
  const why = applyRefusal(current, await saleFacts(target.ledger, target.tillReturns, source, saleId));
  if (why) {
    print(`refused: ${why}`);
    return 1;
  }
  const applied = await target.tillReturns.apply(source, current.returnId, {
    saleId,
    refundId: returnRefundId(current.returnId),
    by: input.by,
  });
  if (!applied.ok) {
    print(`refused: return ${current.returnId} changed meanwhile (now ${applied.current?.status ?? 'gone'}): run the command again`);
    return 1;
  }
  const refundId = await queueRefund(target, applied.record, saleId);
  print(`applied return ${current.returnId} to sale ${saleId}: refund ${refundId} of ¥${current.amount} queued`);
  return 0;
}

/** `dismiss <return id> --why "..."`: 0 dismissed, 1 refused (none, or not open). */
export async function dismissReturn(
  target: Pick<ReturnsTarget, 'tillReturns'>,
  input: { source: string; returnId: string; why: string; by: string },
  print: (line: string) => void,
): Promise<number> {
  const dismissed = await target.tillReturns.dismiss(input.source, input.returnId, { by: input.by, why: input.why });
  if (!dismissed.ok) {
    const now = dismissed.current;
    print(now ? `refused: return ${input.returnId} is ${now.status}` : `refused: no till return ${input.returnId} of ${input.source}`);
    return 1;
  }
  print(`dismissed return ${input.returnId} (no points taken): ${input.why}`);
  return 0;
}

/** The stage's or the running `npm start`'s ledger table and queue. */
async function connect(values: { stage?: string; stack?: string; outputs?: string }, env: NodeJS.ProcessEnv) {
  const stage = stageOf(values);
  const aws: AwsTarget | undefined = stage === undefined ? undefined : await (await import('./aws.js')).connectToStage(stage);
  const handle = aws ?? (await localHandle(env));
  const queue = aws
    ? (await import('../shared/queue/index.js')).createSqsQueue({ queueUrl: aws.outputs.QueueUrl, client: aws.sqs })
    : (await import('./local-enqueue.js')).localEnqueue((handle as LocalStackHandle).intakeUrl);
  const tillReturns = createTillReturns({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now });
  return { handle, target: { tillReturns, ledger: handle.ledger, queue } satisfies ReturnsTarget };
}

async function run(argv: string[], env: NodeJS.ProcessEnv, out: CommandOutput): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      source: { type: 'string', default: 'smaregi' },
      sale: { type: 'string' },
      why: { type: 'string' },
      by: { type: 'string' },
      help: { type: 'boolean', default: false },
      ...AWS_TARGET_OPTIONS,
    },
  });
  if (values.help) {
    out.print(RETURNS_USAGE);
    return 0;
  }
  const [command, id, extra] = positionals;
  if (extra !== undefined || (command === 'list' && id !== undefined)) throw new OpsError('usage', `unexpected ${extra ?? id}`);
  if (command !== 'list' && command !== 'apply' && command !== 'dismiss')
    throw new OpsError('usage', command === undefined ? 'name a command' : `unknown command ${command}`);
  if (values.sale !== undefined && command !== 'apply') throw new OpsError('usage', '--sale goes with apply');
  if (values.why !== undefined && command !== 'dismiss') throw new OpsError('usage', '--why goes with dismiss');
  if (values.by !== undefined && command === 'list') throw new OpsError('usage', '--by goes with apply and dismiss');
  if (command === 'apply' && (values.sale === undefined || !SMAREGI_ID.test(values.sale)))
    throw new OpsError('usage', 'apply takes --sale <transaction id> (1-20 digits)');
  const why = values.why?.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (command === 'dismiss' && (!why || why.length > MAX_WHY_CHARS || /[\u0000-\u001f\u007f]/.test(why)))
    throw new OpsError('usage', `dismiss takes --why "<reason>" (1-${MAX_WHY_CHARS} printable characters)`);
  const given = command === 'list' ? undefined : { id: returnId(id), by: actor(values.by, env) };
  const { handle, target } = await connect(values, env);
  try {
    if (handle.sources !== undefined && !handle.sources.has(values.source)) throw unknownSourceError(values.source, handle.sources.keys());
    const source = values.source;
    if (command === 'apply' && given)
      return await applyReturn(target, { source, returnId: given.id, saleId: values.sale ?? '', by: given.by }, out.print);
    if (command === 'dismiss' && given)
      return await dismissReturn(target, { source, returnId: given.id, why: why ?? '', by: given.by }, out.print);
    const open = await target.tillReturns.listOpen(source);
    if (open.length === 0) out.print(`no open till returns of ${source}`);
    else for (const line of openReturnRows(open)) out.print(line);
    return 0;
  } finally {
    await handle.close();
  }
}

/**
 * `npm run returns -- list | apply <id> --sale <id> | dismiss <id> --why "..."` against `npm start` or a
 * stage: a till's plain returns naming no sale (docs/smaregi.md, "Till returns"). Exit 0 done, 1 refused
 * (the reason printed; nothing changed), 2 could not run.
 */
export async function returnsCommand(argv: string[], env: NodeJS.ProcessEnv, given: CommandOutput = consoleOutput): Promise<number> {
  return runCommand({ usage: RETURNS_USAGE, name: 'returns' }, given, (out) => run(argv, env, out));
}
