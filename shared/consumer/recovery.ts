import { isOutageError } from '../openapi/index.js';
import { type PlannedPauseRecords, plannedPauseHolds } from './planned-pause.js';
import type { PullSwitch } from './pull.js';

/** The scheduled event that runs the recovery probe in AWS (infra/constructs/pull-recovery.ts). */
export const RECOVERY_TICK = { recovery: 'probe' } as const;

export const isRecoveryTick = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && (event as { recovery?: unknown }).recovery === RECOVERY_TICK.recovery;

/** One cheap call to the Open API: resolves when it answered (any answer but an outage's), throws otherwise. */
export type UpstreamProbe = () => Promise<void>;

/** `planned`: paused for an announced maintenance (`npm run pause`) that has not reached its end: left alone. */
export type RecoveryResult = 'running' | 'resumed' | 'still_down' | 'planned';

/**
 * While pulling is paused, probes the upstream every `intervalMs` until `untilMs` (the caller's time
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
  for (;;) {
    if (await answers(deps.probe)) {
      await deps.pull.resume();
      return 'resumed';
    }
    if (deps.now() + deps.intervalMs > deps.untilMs) return 'still_down';
    await deps.sleep(deps.intervalMs);
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
