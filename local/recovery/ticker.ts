import {
  type PlannedPauseRecords,
  probeWaitMs,
  type PullSwitch,
  RECOVERY_FIRST_PROBE_MS,
  resumeWhenUp,
  type UpstreamProbe,
} from '../../shared/consumer/index.js';
import type { QueueClock } from '../queue/index.js';

/** The longest wait between probes of a paused upstream (the deployed stack: every few seconds of each scheduled minute). */
export const LOCAL_RECOVERY_PROBE_MS = 10_000;

export interface RecoveryTicker {
  /** When the next probe runs, while pulling is paused (the chaos clock jumps to it); undefined otherwise. */
  nextDueAt(): number | undefined;
  stop(): void;
}

/**
 * The local stand-in of the deployed stack's scheduled recovery probe, on the queue's clock: it looks
 * every RECOVERY_FIRST_PROBE_MS whether the worker paused pulling; while it has, one probe of the Open
 * API, then the next after a wait doubling up to `intervalMs` while it stays down (1, 2, 4, 8, 10 s:
 * shared/consumer/recovery.ts); the first answer resumes.
 */
export function startRecoveryTicker(options: {
  clock: QueueClock;
  pull: PullSwitch & { stats(): { paused: boolean } };
  probe: UpstreamProbe;
  intervalMs?: number;
  log?: (line: string) => void;
  /** A planned pause (`npm run pause`): left alone until its end. */
  planned?: PlannedPauseRecords;
}): RecoveryTicker {
  const intervalMs = options.intervalMs ?? LOCAL_RECOVERY_PROBE_MS;
  const { clock, pull } = options;
  let handle: unknown;
  let dueAt = clock.now() + RECOVERY_FIRST_PROBE_MS;
  let stopped = false;
  /** Failed probes in a row (the wait before the next one doubles with each). */
  let failed = 0;
  const tick = async () => {
    if (stopped) return;
    let waitMs = intervalMs; // the probe's check itself failed: look again later
    try {
      const result = await resumeWhenUp({
        pull,
        probe: options.probe,
        now: clock.now,
        sleep: async () => undefined,
        intervalMs,
        untilMs: clock.now(),
        ...(options.planned ? { planned: options.planned } : {}),
      });
      if (result === 'resumed') options.log?.('[worker] the Open API answers again: pulling resumed');
      failed = result === 'still_down' ? failed + 1 : 0;
      if (failed > 0) waitMs = probeWaitMs(failed, intervalMs);
      else if (result !== 'planned') waitMs = RECOVERY_FIRST_PROBE_MS;
    } finally {
      schedule(waitMs);
    }
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    dueAt = clock.now() + ms;
    handle = clock.setTimeout(() => void tick(), ms);
  };
  schedule(RECOVERY_FIRST_PROBE_MS);
  return {
    nextDueAt: () => (pull.stats().paused ? dueAt : undefined),
    stop() {
      stopped = true;
      clock.clearTimeout(handle);
    },
  };
}
