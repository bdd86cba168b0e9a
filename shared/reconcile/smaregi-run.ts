import { recordedRun } from '../activity/index.js';
import { queueMessageFor } from '../queue/index.js';
import { reconcileSmaregi, type SmaregiClient, type SmaregiReconcileResult } from '../sources/smaregi/index.js';
import { type SmaregiSettings, smaregiThinEvent } from '../sources/index.js';
import { recordRun, summaryLine } from './run-report.js';
import type { ShopifyRunDeps } from './shopify-run.js';

/** What one scheduled Smaregi reconcile run needs beside the source's settings and client: the Shopify run's sinks. */
export type SmaregiRunDeps = ShopifyRunDeps;

/**
 * One scheduled run for one Smaregi source: the contract's transactions updated in the window (ending
 * `settleMinutes` ago, reaching `lookbackHours` back) whose state the ledger does not show are queued as
 * thin events; the run is filed (activity) and counted (ReconcileMissing).
 */
export async function runSmaregiReconcile(
  deps: SmaregiRunDeps,
  run: { name: string; settings: SmaregiSettings; client: Pick<SmaregiClient, 'listTransactions' | 'getTransaction'> },
): Promise<SmaregiReconcileResult> {
  const { name, settings } = run;
  const until = new Date(deps.now().getTime() - settings.reconcile.settleMinutes * 60_000);
  const since = new Date(until.getTime() - settings.reconcile.lookbackHours * 3_600_000);
  const missed: string[] = [];
  const reconcile = () =>
    reconcileSmaregi(
      {
        client: run.client,
        ledger: deps.ledger,
        source: name,
        thinEvent: (id) => smaregiThinEvent(id, name, settings, deps.now().getTime(), 'reconcile'),
        queueMessage: queueMessageFor,
        queue: deps.queue,
        onMissing: (m) => {
          missed.push(`transaction ${m.transactionHeadId} (${m.why}) queued`);
          deps.logger.warn('Smaregi webhook never delivered: queued from the transaction list', { source: name, ...m });
        },
      },
      { since, until, dryRun: false },
    );
  const result = await recordedRun(
    deps.activity,
    'reconcile',
    () => deps.now().getTime(),
    reconcile,
    (r) => ({
      summary: `${name}: ${summaryLine(r)}`,
      findings: r.missing,
      details: missed,
    }),
  );
  recordRun(deps, name, result, { since, until });
  return result;
}
