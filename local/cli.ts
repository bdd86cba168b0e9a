/**
 * Operator commands, against the local stack (`npm start` on PORT) or a deployed stage (`--stage`):
 *   npm run ledger -- <source> <order id> [--stage S [--stack NAME] [--outputs FILE]]
 *   npm run redrive -- [--dry-run] [--stage S [--stack NAME] [--outputs FILE]]
 *   npx tsx local/cli.ts dlq          (local: list the dead-letter list)
 */
import { parseArgs } from 'node:util';
import { LocalConfigError, resolveLocalConfig } from './config.js';
import { connectToRunningStack, probeHealth } from './connect.js';
import { ledgerReport } from './cli/index.js';
import type { ListedDeadLetter } from './admin.js';
import type { Ledger } from '../shared/ledger/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = `usage:
  npm run ledger -- <source> <order id> [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npm run redrive -- [--dry-run] [--stage <stage> [--stack <name>] [--outputs <cdk outputs file>]]
  npx tsx local/cli.ts dlq`;

class UsageError extends Error {
  readonly kind = 'usage' as const;
}

async function localHandle() {
  const config = await resolveLocalConfig(process.env);
  const url = `http://127.0.0.1:${config.ports.intake}`;
  if ((await probeHealth(url)) !== 'up') {
    throw new UsageError(`no local stack answers at ${url}: start it with npm start (or pass --stage for AWS)`);
  }
  return connectToRunningStack(config);
}

/** The ledger keeps why an event kept failing; the queue only knows that it did. */
async function ledgerError(ledger: Ledger, letter: ListedDeadLetter): Promise<string> {
  const e = letter.event as { source?: unknown; orderId?: unknown; refundId?: unknown };
  if (typeof e?.source !== 'string' || typeof e.orderId !== 'string') return '-';
  const ref = { source: e.source, orderId: e.orderId };
  const record = typeof e.refundId === 'string' ? await ledger.getRefund({ ...ref, refundId: e.refundId }) : await ledger.getOrder(ref);
  return record?.lastError ?? letter.lastError ?? '-';
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: 'string' },
      stack: { type: 'string' },
      outputs: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (values.stage === undefined && (values.stack !== undefined || values.outputs !== undefined)) {
    throw new UsageError('--stack and --outputs go with --stage');
  }
  const aws =
    values.stage === undefined
      ? undefined
      : await (await import('./cli/aws.js')).connectToStage({
          stage: values.stage,
          ...(values.stack ? { stack: values.stack } : {}),
          ...(values.outputs ? { outputsFile: values.outputs } : {}),
        });

  switch (command) {
    case 'ledger': {
      const [source, orderId, extra] = rest;
      if (source === undefined || orderId === undefined || extra !== undefined) throw new UsageError('ledger takes <source> <order id>');
      const handle = aws ?? (await localHandle());
      try {
        const report = await ledgerReport(handle.ledger, handle.openapi, source, orderId);
        for (const line of report.lines) console.log(line);
        return report.found ? 0 : 1;
      } finally {
        await handle.close();
      }
    }
    case 'redrive': {
      if (rest.length > 0) throw new UsageError('redrive takes no arguments');
      if (aws) {
        try {
          const { redriveDeadLetters } = await import('./cli/aws.js');
          const moved = await redriveDeadLetters(aws.sqs, aws.outputs, { dryRun: values['dry-run'], print: console.log });
          console.log(values['dry-run'] ? 'dry run: nothing moved' : `moved ${moved} message(s) from the dead-letter queue back to the queue`);
          return 0;
        } finally {
          await aws.close();
        }
      }
      const handle = await localHandle();
      try {
        const letters = await handle.deadLetters();
        for (const l of letters) {
          console.log(`${values['dry-run'] ? 'would move' : 'moving'} ${l.messageId} (group ${l.groupId}, ${l.receiveCount} receives, last error: ${await ledgerError(handle.ledger, l)})`);
        }
        if (values['dry-run']) {
          console.log(`dry run: ${letters.length} message(s) in the dead-letter list, nothing moved`);
          return 0;
        }
        const moved = await handle.redrive();
        console.log(`moved ${moved} message(s) from the dead-letter list back to the queue`);
        return 0;
      } finally {
        await handle.close();
      }
    }
    case 'dlq': {
      if (aws) throw new UsageError('dlq lists the local dead-letter list; for a stage use the SQS console or redrive --dry-run');
      const handle = await localHandle();
      try {
        const letters = await handle.deadLetters();
        const listed = [];
        for (const l of letters) listed.push({ ...l, lastError: await ledgerError(handle.ledger, l) });
        console.log(listed.length === 0 ? 'the dead-letter list is empty' : JSON.stringify(listed, null, 2));
        return 0;
      } finally {
        await handle.close();
      }
    }
    default:
      throw new UsageError(`unknown command ${command}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError) console.error(`${e.message}\n${USAGE}`);
    else if (e instanceof LocalConfigError || (e instanceof Error && (e as { kind?: unknown }).kind !== undefined)) console.error(e.message);
    else console.error(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    process.exit(2);
  },
);
