import { type PlannedPauseRecords, type PullSwitch, resumeWhenUp, type UpstreamProbe } from '../../shared/consumer/index.js';
import type { QueueClock } from '../queue/index.js';

/** How often the local stack probes a paused upstream (the deployed stack: every few seconds of each scheduled minute). */
export const LOCAL_RECOVERY_PROBE_MS = 10_000;

export interface RecoveryTicker {
  /** When the next probe runs, while pulling is paused (the chaos clock jumps to it); undefined otherwise. */
  nextDueAt(): number | undefined;
  stop(): void;
}

/**
 * The local stand-in of the deployed stack's scheduled recovery probe: every `intervalMs` on the
 * queue's clock, if the worker paused pulling, one probe of the Open API; the first answer resumes.
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
  let dueAt = clock.now() + intervalMs;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
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
    } finally {
      schedule();
    }
  };
  const schedule = () => {
    if (stopped) return;
    dueAt = clock.now() + intervalMs;
    handle = clock.setTimeout(() => void tick(), intervalMs);
  };
  schedule();
  return {
    nextDueAt: () => (pull.stats().paused ? dueAt : undefined),
    stop() {
      stopped = true;
      clock.clearTimeout(handle);
    },
  };
}
