import { METRIC, outcomeMetric } from '../metrics/index.js';
import type { ProcessOutcome } from '../events/index.js';

/** The part of Powertools Metrics processing uses (units as Powertools names them). */
export interface MetricsSink {
  addMetric(name: string, unit: 'Count' | 'Milliseconds' | 'Seconds', value: number): unknown;
}

/** Ids that identify an event in logs: never amounts, names, tokens or secrets. */
export function eventIds(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null) return {};
  const fields = ['type', 'eventId', 'source', 'orderId', 'refundId'] as const;
  const ids: Record<string, string> = {};
  for (const f of fields) {
    const v = (body as Record<string, unknown>)[f];
    if (typeof v === 'string') ids[f] = v.slice(0, 200);
  }
  return ids;
}

/** The outcome's own fields for the one log line per event (ids, figures and reasons only: never `next`'s events). */
export function outcomeFields(outcome: ProcessOutcome): Record<string, unknown> {
  const { kind, action, next: _next, ...rest } = outcome;
  return { outcome: kind, action, ...rest };
}

/** Set-asides in doubt counted apart by reason, beside CallsInDoubt (the other reasons are that count alone). */
const IN_DOUBT_BY_REASON: Readonly<Record<string, string>> = {
  search_incomplete: METRIC.searchesIncomplete,
  // Not a call of its own in doubt: the refund waits for a sibling's, so its share counts it.
  sibling_in_doubt: METRIC.siblingRefundsWaiting,
};

/** Counts per outcome, points moved, and reconciliations. */
export function recordOutcomeMetrics(metrics: MetricsSink, outcome: ProcessOutcome): void {
  metrics.addMetric(outcomeMetric(outcome.kind), 'Count', 1);
  if (outcome.action === 'retry') metrics.addMetric(METRIC.retries, 'Count', 1);
  if (outcome.kind === 'credited') metrics.addMetric(METRIC.pointsCredited, 'Count', outcome.points);
  if ((outcome.kind === 'debited' || outcome.kind === 'insufficient_points') && outcome.points > 0) {
    metrics.addMetric(METRIC.pointsDebited, 'Count', outcome.points);
  }
  if ('reconciled' in outcome && outcome.reconciled) metrics.addMetric(METRIC.reconciliations, 'Count', 1);
  if (outcome.kind === 'outcome_unknown') {
    metrics.addMetric(METRIC.callsInDoubt, 'Count', 1);
    const byReason = IN_DOUBT_BY_REASON[outcome.errorKind];
    if (byReason) metrics.addMetric(byReason, 'Count', 1);
  }
  for (const f of 'followUps' in outcome ? (outcome.followUps ?? []) : []) {
    metrics.addMetric(outcomeMetric(f.kind), 'Count', 1);
    if (f.kind === 'debited' || f.kind === 'insufficient_points') metrics.addMetric(METRIC.pointsDebited, 'Count', f.points ?? 0);
  }
}
