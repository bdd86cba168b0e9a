import { queueMessageFor } from '../shared/queue/index.js';
import { summaryLine } from '../shared/reconcile/index.js';
import { createSmaregiClient, reconcileSmaregi, type SmaregiClient, type SmaregiReconcileDeps } from '../shared/sources/smaregi/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../shared/sources/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { resolveLocalConfig } from '../kit/local-stack/config.js';
import { configFollowingStack, connectToRunningStack, requireRunningStack } from '../kit/local-stack/connect.js';
import type { CommandOutput } from './output.js';
import { SMAREGI_LOCAL } from '../stand-ins/smaregi/index.js';
import { localEnqueue } from './local-enqueue.js';
import { formatJst, jstIfInstant } from '../shared/time/index.js';

/** What a Smaregi reconcile reads and writes: the contract's API, the ledger, the queue, the source's settings. */
export interface SmaregiReconcileTarget {
  client: SmaregiReconcileDeps['client'] & Pick<SmaregiClient, 'listCustomers'> & { close(): Promise<void> };
  ledger: SmaregiReconcileDeps['ledger'];
  queue: SmaregiReconcileDeps['queue'];
  settings: SmaregiSettings;
  close(): Promise<void>;
}

/** The running `npm start`: its Smaregi stand-in, its ledger, its queue (POST /__local/enqueue). */
export async function localSmaregiTarget(env: NodeJS.ProcessEnv, sourceName: string): Promise<SmaregiReconcileTarget> {
  const config = await resolveLocalConfig(env);
  const found = await requireRunningStack(config);
  const handle = connectToRunningStack(await configFollowingStack(config, found.info, env), found.info);
  const url = found.info?.smaregi?.url ?? `http://127.0.0.1:${config.ports.smaregi}`;
  const contractId = found.info?.smaregi?.contractId ?? config.smaregi.contractId;
  const configured = (parseJsonOrUndefined(env.SOURCES_CONFIG ?? '') as Record<string, unknown> | undefined)?.[sourceName];
  const { kind: _, ...entry } = typeof configured === 'object' && configured !== null ? (configured as Record<string, unknown>) : {};
  // As the stack reads it: SMAREGI_STORE_IDS / SMAREGI_MEMBER_LOOKUP, then SOURCES_CONFIG's own settings.
  const { storeIds, memberLookup, returns, returnWindowDays } = config.smaregi;
  // tillPoints as the running stack says it has it (else SMAREGI_TILL_POINTS here).
  const tillPoints = found.info?.smaregi?.tillPoints ?? config.smaregi.tillPoints;
  const settings = SmaregiSettings.parse({
    contractId,
    ...(storeIds ? { storeIds } : {}),
    ...(memberLookup ? { memberLookup } : {}),
    ...(tillPoints ? { tillPoints } : {}),
    ...(returns ? { returns } : {}),
    ...(returnWindowDays ? { returnWindowDays } : {}),
    ...entry,
  });
  const client = createSmaregiClient({
    contractId,
    apiOrigin: url,
    idOrigin: url,
    credentials: async () => ({ clientId: SMAREGI_LOCAL.clientId, clientSecret: SMAREGI_LOCAL.clientSecret }),
  });
  return {
    client,
    ledger: handle.ledger,
    queue: localEnqueue(handle.intakeUrl),
    settings,
    async close() {
      await client.close();
      await handle.close();
    },
  };
}

/**
 * `npm run reconcile -- --source smaregi --since … [--until …] [--dry-run] [--stage S]` against the
 * running `npm start` (its Smaregi stand-in, ledger and queue) or a deployed stage (reconcile-smaregi-aws.ts):
 * the contract's transactions updated in the window (31-day windows, paged); what the ledger lacks goes
 * in as the thin event a webhook would have queued.
 */
export async function reconcileSmaregiCommand(o: {
  env: NodeJS.ProcessEnv;
  sourceName: string;
  since: Date;
  until: Date;
  dryRun: boolean;
  out: CommandOutput;
  now: () => Date;
  target?: SmaregiReconcileTarget;
}): Promise<number> {
  const target = o.target ?? (await localSmaregiTarget(o.env, o.sourceName));
  const { settings } = target;
  try {
    o.out.printError(
      `reconcile: ${o.sourceName} (contract ${settings.contractId}) transactions updated ${formatJst(o.since)} .. ${formatJst(o.until)}${o.dryRun ? ' (dry run)' : ''}`,
    );
    const result = await reconcileSmaregi(
      {
        client: target.client,
        ledger: target.ledger,
        source: o.sourceName,
        thinEvent: (id) => smaregiThinEvent(id, o.sourceName, settings, o.now().getTime(), 'reconcile'),
        queueMessage: queueMessageFor,
        queue: target.queue,
        progress: o.out.printError,
        onMissing: (m) =>
          o.out.print(
            `${o.dryRun ? 'missing' : 'enqueued'} transaction ${m.transactionHeadId} (${m.why}, updated ${m.updatedAt === undefined ? 'unknown' : jstIfInstant(m.updatedAt)})`,
          ),
      },
      { since: o.since, until: o.until, dryRun: o.dryRun },
    );
    o.out.print(summaryLine(result));
    return 0;
  } finally {
    await target.close();
  }
}
