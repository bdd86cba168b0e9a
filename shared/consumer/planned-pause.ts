/**
 * A planned pause of the worker's pulling (a maintenance of the membership service announced ahead):
 * `npm run pause` / `npm run resume` (ops/pulling.ts). Pulling is switched off the same way an outage
 * switches it off (shared/consumer/pull.ts: the event source mapping, or the local queue), and this
 * record, one item of the ledger table, says it was planned, since when and until when, so the
 * recovery probe does not resume it on the first answer of a service still in maintenance
 * (recovery.ts). Intake keeps accepting: the events wait in the queue and drain at the rate budget after.
 */
import type { PlannedPause, PlannedPauseRecords } from '../ledger/index.js';
import type { PullSwitch } from './pull.js';

// The record itself is the ledger's (shared/ledger/planned-pause.ts): the ledger module owns its table.
export { ledgerPlannedPause, PLANNED_PAUSE_KEY, PlannedPause, type PlannedPauseRecords } from '../ledger/index.js';

/** Whether pulling runs, and if not, whether the pause was planned (since, until) or an outage's. */
export type PullingStatus = { state: 'running' } | { state: 'paused'; planned: PlannedPause } | { state: 'paused'; planned: undefined };

/** Stops pulling for a planned maintenance: the record first, so the recovery probe never resumes it in between. */
export async function pausePulling(
  deps: { pull: PullSwitch; records: PlannedPauseRecords; now: () => number },
  until?: Date,
): Promise<PlannedPause> {
  const current = await deps.records.get();
  // Announced again (a new --until): the pause keeps its start.
  const pause: PlannedPause = {
    since: current?.since ?? new Date(deps.now()).toISOString(),
    ...(until ? { until: until.toISOString() } : {}),
  };
  await deps.records.set(pause);
  await deps.pull.pause();
  return pause;
}

/** Starts pulling again: the queued events drain at the rate budget, as after an outage. */
export async function resumePulling(deps: { pull: PullSwitch; records: PlannedPauseRecords }): Promise<void> {
  await deps.pull.resume();
  await deps.records.clear();
}

export async function pullingStatus(deps: { pull: PullSwitch; records: PlannedPauseRecords }): Promise<PullingStatus> {
  if (!(await deps.pull.isPaused())) return { state: 'running' };
  return { state: 'paused', planned: await deps.records.get() };
}

/**
 * For the recovery probe: whether a planned pause still holds pulling off now. One whose `until` has
 * passed is removed (the probe then resumes pulling once the service answers).
 */
export async function plannedPauseHolds(records: PlannedPauseRecords, nowMs: number): Promise<boolean> {
  const pause = await records.get();
  if (pause === undefined) return false;
  if (pause.until === undefined || Date.parse(pause.until) > nowMs) return true;
  await records.clear();
  return false;
}
