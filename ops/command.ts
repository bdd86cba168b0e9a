import { parseArgs } from 'node:util';
import { OpsError, unknownSourceError } from './errors.js';
import { createReversalLedger, createTillReturns, type Ledger } from '../shared/ledger/index.js';
import type { ListedDeadLetter } from '../kit/local-stack/info.js';
import type { LocalStackHandle } from '../kit/local-stack/connect.js';
import { localHandle } from './local-stack.js';
import { type CommandOutput, consoleOutput } from './output.js';
import { runCommand } from './run-command.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createCustomerRecords } from '../shared/customers/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { deadLetterReason } from './dead-letter-reason.js';
import { ledgerReport } from './ledger-report.js';
import { AWS_TARGET_OPTIONS, stageOf } from './target-options.js';
import type { AwsTarget, StageOptions } from './aws.js';
import { formatJst } from '../shared/time/index.js';
import { workerQueue } from './worker-queue.js';

/** Days credited back when the stack does not say its source's retroCreditDays (a stack started before it told). */
const DEFAULT_RETRO_CREDIT_DAYS = 30;

export const CLI_USAGE = `usage:
  npm run ledger -- <source> <order id> | unlinked/<return id> [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run ledger -- <source> --customer <id> [--key <external key, default: the source's>] [--stage <stage> ...]
  npm run redrive -- [--dry-run] [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run quarantine -- list | show <id> | replay <id> | replay --all [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run audit -- [--since <date|3d>] [--until <date|12h>] [--json] [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run dlq -- [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run reprocess -- --outcome upstream_rejected [--source <source>] [--since <ISO date>] [--dry-run] [--stage <stage> ...]
  npm run reprocess -- --source <source> --customer <id> [--days <n, default: the source's retroCreditDays>] [--key <external key, default: the source's>] [--stage <stage> ...]
  npm run pause -- [--until <ISO time>] [--stage <stage> ...]   (stops pulling for a planned maintenance; intake keeps accepting)
  npm run resume -- [--stage <stage> ...]
  npm run privacy -- list | show <request id> [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run privacy -- smaregi report <customer code> | smaregi erase <customer code> [--source <smaregi source, default smaregi>] [--stage <stage> ...]`;

/** No sender's id is this long (DynamoDB refuses keys past 1 KB): a typo, refused by name before any read. */
const MAX_ID_CHARS = 256;

function refuseUnreadableId(what: string, id: string | undefined): void {
  if (id === undefined) return;
  if (id.length === 0 || id.length > MAX_ID_CHARS)
    throw new OpsError('usage', `the ${what} must be 1 to ${MAX_ID_CHARS} characters (got ${id.length})`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(id)) throw new OpsError('usage', `the ${what} holds a control character`);
}

/** One shop customer's enrolment record, member and waiting orders (the customer records share the ledger table). */
async function reportCustomer(
  handle: { ledger: Ledger; openapi: OpenApiClient; documentClient: DynamoDBDocumentClient; tableName: string },
  input: { source: string; customerId: string; externalKey: string },
) {
  const { customerReport } = await import('./customer-report.js');
  const { documentClient: client, tableName } = handle;
  const records = createCustomerRecords({ client, tableName, clock: Date.now, leaseSeconds: 60, ttlDays: 400 });
  return customerReport({ ledger: handle.ledger, records, openapi: handle.openapi }, input);
}

/** `npm run pause` / `npm run resume` (ops/pulling.ts). */
async function pulling(
  command: 'pause' | 'resume',
  values: { until?: string },
  rest: string[],
  stage: StageOptions | undefined,
  aws: AwsTarget | undefined,
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
): Promise<number> {
  if (rest.length > 0) throw new OpsError('usage', `${command} takes no arguments`);
  if (command === 'resume' && values.until !== undefined) throw new OpsError('usage', '--until goes with pause');
  const p = await import('./pulling.js');
  const handle = aws ?? (await localHandle(env));
  try {
    const target = stage && aws ? await p.stagePulling(stage, aws) : p.localPulling(handle as LocalStackHandle);
    const until = p.parseUntil(values.until, Date.now(), target.retentionDays);
    return await p.pullingCommand(command, target, until, print);
  } finally {
    await handle.close();
  }
}

/** `reprocess --outcome upstream_rejected`: the parked events queued again (ops/reprocess-parked.ts). */
async function reprocessOutcome(
  values: { outcome?: string; source?: string; since?: string; customer?: string; 'dry-run': boolean },
  rest: string[],
  aws: AwsTarget | undefined,
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
): Promise<number> {
  if (values.outcome !== 'upstream_rejected')
    throw new OpsError('usage', `--outcome takes upstream_rejected (the only parked outcome to run again), not ${values.outcome}`);
  if (values.customer !== undefined || rest.length > 0) throw new OpsError('usage', '--outcome takes no --customer and no arguments');
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since !== undefined && Number.isNaN(since.getTime()))
    throw new OpsError('usage', `--since is an ISO date or time, not ${values.since}`);
  const handle = aws ?? (await localHandle(env));
  try {
    if (values.source !== undefined && handle.sources !== undefined && !handle.sources.has(values.source))
      throw unknownSourceError(values.source, handle.sources.keys());
    const { reprocessParked } = await import('./reprocess-parked.js');
    const queue = await workerQueue(aws ?? (handle as LocalStackHandle));
    const filter = { outcome: values.outcome, source: values.source, since, dryRun: values['dry-run'] } as const;
    return await reprocessParked({ ...handle, queue }, filter, print);
  } finally {
    await handle.close();
  }
}

/** The ledger keeps why an event kept failing; the queue only knows that it did. */
const ledgerError = (ledger: Ledger, letter: ListedDeadLetter) => deadLetterReason(ledger, letter.event, letter.lastError);

/** The options every command is parsed with (each reads its own). */
const OPTIONS = {
  ...AWS_TARGET_OPTIONS,
  'dry-run': { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  since: { type: 'string' },
  until: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
  source: { type: 'string' },
  customer: { type: 'string' },
  days: { type: 'string' },
  key: { type: 'string' },
  outcome: { type: 'string' },
} as const;
type ParsedValues = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>['values'];

/** What a command is given: the parsed options, the arguments after its name, the stage if any, where to print. */
interface CommandInput {
  values: ParsedValues;
  rest: string[];
  aws: AwsTarget | undefined;
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
}

/** `reprocess --source <source> --customer <id>` (ops/reprocess.ts: queued for the worker), or by outcome. */
async function reprocessCommand({ values, rest, aws, env, print }: CommandInput): Promise<number> {
  if (values.outcome !== undefined) return reprocessOutcome(values, rest, aws, env, print);
  const { source, customer } = values;
  if (source === undefined || customer === undefined || rest.length > 0)
    throw new OpsError('usage', 'reprocess takes --source <source> --customer <id>');
  const days = values.days === undefined ? undefined : Number(values.days);
  if (days !== undefined && (!Number.isInteger(days) || days < 1 || days > 365))
    throw new OpsError('usage', '--days is a whole number of days, 1 to 365');
  const handle = aws ?? (await localHandle(env));
  try {
    const { reprocessCustomer } = await import('./reprocess.js');
    if (handle.sources !== undefined && !handle.sources.has(source)) throw unknownSourceError(source, handle.sources.keys());
    // The source's own settings unless overridden: its external key and the days linking credits back.
    const linking = handle.sources?.get(source)?.customerLinking?.();
    const externalKey = values.key ?? linking?.externalKey ?? source;
    // Queued for the worker: crediting here would judge the worker's leases by this machine's clock.
    return await reprocessCustomer(
      await workerQueue(aws ?? (handle as LocalStackHandle)),
      { source, customer, externalKey, days: days ?? linking?.retroCreditDays ?? DEFAULT_RETRO_CREDIT_DAYS },
      print,
    );
  } finally {
    await handle.close();
  }
}

/** A till's plain return naming no sale is the unlinked refund `unlinked/<return id>`. */
const UNLINKED_PREFIX = 'unlinked/';

/** `ledger <source> unlinked/<id>`: the till return kept for an operator, and the unlinked refund's record. */
async function tillReturnReport(
  handle: { ledger: Ledger; documentClient: DynamoDBDocumentClient; tableName: string },
  source: string,
  returnId: string,
) {
  const { tillReturnLines } = await import('./returns-command.js');
  const { recordLines } = await import('./ledger-report.js');
  const tillReturns = createTillReturns({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now });
  const [kept, refund] = await Promise.all([
    tillReturns.get(source, returnId),
    handle.ledger.getRefund({ source, orderId: 'unlinked', refundId: returnId }),
  ]);
  const lines = kept
    ? tillReturnLines(kept)
    : [`no till return ${source} ${returnId} kept (no member, or recorded before till returns were kept)`];
  if (refund) lines.push('', `refund unlinked/${returnId}`, ...recordLines(refund));
  const found = kept !== undefined || refund !== undefined;
  return { found, lines: found ? lines : [`no ledger record for ${source} return ${returnId}`] };
}

/** `ledger <source> <order id>` or `ledger <source> --customer <id>`. */
async function ledgerCommand({ values, rest, aws, env, print }: CommandInput): Promise<number> {
  const [source, orderId, extra] = rest;
  const byCustomer = values.customer !== undefined;
  if (source === undefined || extra !== undefined || (orderId === undefined) === !byCustomer)
    throw new OpsError('usage', 'ledger takes <source> <order id>, or <source> --customer <id>');
  refuseUnreadableId('order id', orderId);
  refuseUnreadableId('customer id', values.customer);
  const handle = aws ?? (await localHandle(env));
  try {
    const report = byCustomer
      ? await reportCustomer(handle, {
          source,
          customerId: values.customer ?? '',
          externalKey: values.key ?? handle.sources?.get(source)?.customerLinking?.()?.externalKey ?? source,
        })
      : orderId?.startsWith(UNLINKED_PREFIX)
        ? await tillReturnReport(handle, source, orderId.slice(UNLINKED_PREFIX.length))
        : await ledgerReport(
            handle.ledger,
            handle.openapi,
            source,
            orderId ?? '',
            createReversalLedger({ client: handle.documentClient, tableName: handle.tableName, clock: Date.now }),
          );
    for (const line of report.lines) print(line);
    return report.found ? 0 : 1;
  } finally {
    await handle.close();
  }
}

/** `redrive`: the dead letters back to the queue (or, with --dry-run, listed). */
async function redriveCommand({ values, rest, aws, env, print }: CommandInput): Promise<number> {
  if (rest.length > 0) throw new OpsError('usage', 'redrive takes no arguments');
  if (aws) return (await import('./stage-dead-letters.js')).stageDeadLetters(aws, { name: 'redrive', dryRun: values['dry-run'] }, print);
  const handle = await localHandle(env);
  try {
    const letters = await handle.deadLetters();
    for (const l of letters) {
      print(
        `${values['dry-run'] ? 'would move' : 'moving'} ${l.messageId} (group ${l.groupId}, ${l.receiveCount} receives, last error: ${await ledgerError(handle.ledger, l)})`,
      );
    }
    if (values['dry-run']) {
      print(`dry run: ${letters.length} message(s) in the dead-letter list, nothing moved`);
      return 0;
    }
    const moved = await handle.redrive();
    print(`moved ${moved} message(s) from the dead-letter list back to the queue`);
    return 0;
  } finally {
    await handle.close();
  }
}

/** `dlq`: the dead letters, each with why it kept failing. */
async function dlqCommand({ aws, env, print }: CommandInput): Promise<number> {
  if (aws) return (await import('./stage-dead-letters.js')).stageDeadLetters(aws, { name: 'dlq' }, print);
  const handle = await localHandle(env);
  try {
    const letters = await handle.deadLetters();
    const listed = [];
    // Times for the reader in Japan time; the event as it was queued (its times ISO UTC).
    for (const l of letters)
      listed.push({
        ...l,
        sentAt: formatJst(l.sentAt),
        deadLetteredAt: formatJst(l.deadLetteredAt),
        lastError: await ledgerError(handle.ledger, l),
      });
    print(listed.length === 0 ? 'the dead-letter list is empty' : JSON.stringify(listed, null, 2));
    return 0;
  } finally {
    await handle.close();
  }
}

async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
  printError: (line: string) => void,
): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    print(CLI_USAGE);
    return values.help ? 0 : 2;
  }
  const stage = stageOf(values);
  if (command === 'quarantine') {
    // Its own targets: the quarantine table and the webhook URLs, not the ledger and the Open API.
    const { quarantineCommand } = await import('./quarantine.js');
    const { awsQuarantineTarget, localQuarantineTarget } = await import('./quarantine-targets.js');
    const target = stage === undefined ? await localQuarantineTarget(env) : await awsQuarantineTarget(stage);
    try {
      return await quarantineCommand(rest, { all: values.all }, target, print);
    } finally {
      await target.close();
    }
  }
  const aws = stage === undefined ? undefined : await (await import('./aws.js')).connectToStage(stage);
  if (command === 'pause' || command === 'resume') return pulling(command, values, rest, stage, aws, env, print);
  const input: CommandInput = { values, rest, aws, env, print };

  switch (command) {
    case 'reprocess':
      return reprocessCommand(input);
    case 'ledger':
      return ledgerCommand(input);
    case 'redrive':
      return redriveCommand(input);
    case 'audit': {
      if (rest.length > 0) throw new OpsError('usage', 'audit takes no arguments, only --since, --until and --json');
      const audit = await import('./audit.js');
      const range = audit.parseRange(values, Date.now());
      const target = aws ?? (await audit.localAuditTarget(env));
      try {
        return await audit.runAudit(target, { range, json: values.json }, { print, printError });
      } finally {
        await target.close();
      }
    }
    case 'privacy': {
      const { privacyCommand } = await import('./privacy.js');
      const target = aws ?? (await localHandle(env));
      try {
        const smaregi = 'smaregi' in target ? target.smaregi : undefined;
        const tillPoints = 'tillPoints' in target ? target.tillPoints : () => smaregi?.tillPoints;
        const privacyTarget = { ...target, ledgerTtlDays: target.processing.ledgerTtlDays, tillPoints };
        return await privacyCommand(rest, { source: values.source }, privacyTarget, print);
      } finally {
        await target.close();
      }
    }
    case 'dlq':
      return dlqCommand(input);
    default:
      throw new OpsError('usage', `unknown command ${command}`);
  }
}

/**
 * The operator commands (`ledger`, `redrive`, `dlq`, `quarantine`, `audit`, `reprocess`, `privacy`) against the local stack (`npm start` on PORT) or a
 * deployed stage (`--stage`). Exit code: 0 done, 1 the order has no ledger record (ledger) or the audit
 * found drift, 2 could not run.
 */
export async function cliCommand(argv: string[], env: NodeJS.ProcessEnv, given: CommandOutput = consoleOutput): Promise<number> {
  return runCommand({ usage: CLI_USAGE }, given, (out) => run(argv, env, out.print, out.printError));
}
