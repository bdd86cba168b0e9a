import { isOutageError } from '../openapi/index.js';
import { type PlannedPauseRecords, plannedPauseHolds } from './planned-pause.js';
import type { PullSwitch } from './pull.js';

/** The scheduled event that runs the recovery probe in AWS (infra/constructs/pull-recovery.ts). */
export const RECOVERY_TICK = { recovery: 'probe' } as const;

export const isRecoveryTick = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && (event as { recovery?: unknown }).recovery === RECOVERY_TICK.recovery;

/** One cheap call to the Open API: resolves when it answered (any answer but an outage's), throws otherwise. */
export type UpstreamProbe = () => Promise<void>;

/**
 * The first probe of a paused upstream goes this soon after the pause (locally; a scheduled invocation
 * probes at once), and each failed probe doubles the wait before the next, up to the recovery's
 * interval: 1, then 2, 4, 8, 10, 10... s. A blip that paused pulling (a burst of failures, not an
 * outage) then holds the queue for seconds, while a service that stays down is still probed only once
 * per interval after the first few probes.
 */
export const RECOVERY_FIRST_PROBE_MS = 1_000;

/** The wait after the `failed`-th failed probe in a row (1-based): 2, 4, 8... s, capped at `intervalMs`. */
export function probeWaitMs(failed: number, intervalMs: number): number {
  return Math.min(intervalMs, RECOVERY_FIRST_PROBE_MS * 2 ** Math.min(Math.max(failed, 1), 20));
}

/** `planned`: paused for an announced maintenance (`npm run pause`) that has not reached its end: left alone. */
export type RecoveryResult = 'running' | 'resumed' | 'still_down' | 'planned';

/**
 * While pulling is paused, probes the upstream (waits doubling from RECOVERY_FIRST_PROBE_MS up to `intervalMs`) until `untilMs` (the caller's time
 * budget: a scheduled invocation's, or the local stack's tick) and resumes pulling on the first probe
 * the service answers. Pulling that runs is left alone.
 */
export async function resumeWhenUp(deps: {
  pull: PullSwitch;
  probe: UpstreamProbe;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  intervalMs: number;
  untilMs: number;
  /** The planned pause, if any (planned-pause.ts): never resumed before its `until`, nor probed meanwhile. */
  planned?: PlannedPauseRecords;
}): Promise<RecoveryResult> {
  if (!(await deps.pull.isPaused())) return 'running';
  if (deps.planned && (await plannedPauseHolds(deps.planned, deps.now()))) return 'planned';
  for (let failed = 1; ; failed++) {
    if (await answers(deps.probe)) {
      await deps.pull.resume();
      return 'resumed';
    }
    const wait = probeWaitMs(failed, deps.intervalMs);
    if (deps.now() + wait > deps.untilMs) return 'still_down';
    await deps.sleep(wait);
  }
}

async function answers(probe: UpstreamProbe): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (e) {
    return !isOutageError(e);
  }
}
