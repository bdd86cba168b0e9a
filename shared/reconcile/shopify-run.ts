import { type ActivityRecorder, recordedRun } from '../activity/index.js';
import type { ConfiguredSource } from '../sources/index.js';
import { type ReconcileDeps, type ReconcileResult, reconcileShopify } from './reconcile.js';
import { recordRun, type RunSinks, summaryLine } from './run-report.js';
import type { ReconcileSources } from './settings.js';

/** What one scheduled Shopify reconcile run needs beside the source's Admin client. */
export interface ShopifyRunDeps extends Pick<ReconcileDeps, 'ledger' | 'queue' | 'now'> {
  logger: RunSinks['logger'] & {
    warn(m: string, e?: Record<string, unknown>): void;
    error(m: string, e?: Record<string, unknown>): void;
  };
  metrics: RunSinks['metrics'];
  /** Where the run's summary is filed for the operator console (best effort). */
  activity?: ActivityRecorder | undefined;
}

/**
 * One scheduled run for one Shopify source: the window ends `settleMinutes` ago (webhooks of the last few
 * minutes may still be queued) and reaches `lookbackHours` back; what the ledger never saw is queued, and
 * the run is filed (activity) and counted (ReconcileMissing).
 */
export async function runShopifyReconcile(
  deps: ShopifyRunDeps,
  run: { name: string; source: ConfiguredSource; settings: ReconcileSources[string]; client: ReconcileDeps['client'] },
): Promise<ReconcileResult> {
  const { name, settings } = run;
  const until = new Date(deps.now().getTime() - settings.settleMinutes * 60_000);
  const since = new Date(until.getTime() - settings.lookbackHours * 3_600_000);
  const missed: string[] = [];
  const result = await recordedRun(
    deps.activity,
    'reconcile',
    () => deps.now().getTime(),
    () =>
      reconcileShopify(
        {
          client: run.client,
          ledger: deps.ledger,
          source: run.source,
          shopDomain: settings.shopDomain,
          queue: deps.queue,
          now: deps.now,
          onMissing: (m) => {
            missed.push(`${m.kind} ${m.eventId} (${m.orderName}) queued`);
            deps.logger.warn('webhook never delivered: queued from the Admin API', { source: name, ...m });
          },
          onProblem: (p) => deps.logger.error('could not reconcile', { source: name, ...p }),
        },
        { since, until, dryRun: false },
      ),
    (r) => ({ summary: `${name}: ${summaryLine(r)}`, findings: r.missing, details: missed }),
  );
  recordRun(deps, name, result, { since, until });
  return result;
}
