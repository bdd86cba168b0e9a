/**
 * Whether the worker is handed messages at all: the SQS event source mapping's Enabled flag in AWS,
 * the local queue's pause under `npm start`. While the Open API is down the worker stops pulling
 * instead of receiving every message and setting it aside again each breaker period: a backlog then
 * costs no receives however long the outage lasts, and it is all still there, visible, the moment
 * pulling resumes (recovery.ts).
 */
export interface PullSwitch {
  pause(): Promise<void>;
  resume(): Promise<void>;
  isPaused(): Promise<boolean>;
}

/** Pauses pulling when the upstream fails while the breaker is open; at most once per breaker period. */
export interface OutagePause {
  /** An Open API call failed and the breaker is (still) open. */
  failedWhileOpen(): void;
  /** Waits for a pause under way (the batch's end: a Lambda freezes after it returns). */
  flush(): Promise<void>;
}

export function pauseOnOutage(deps: {
  pull: PullSwitch | undefined;
  now: () => number;
  /** The breaker's period: a failed probe pauses again at most this often. */
  minIntervalMs: number;
  logger: { warn(message: string, extra?: Record<string, unknown>): void };
}): OutagePause {
  let lastAt: number | undefined;
  let pending: Promise<void> = Promise.resolve();
  return {
    failedWhileOpen() {
      const { pull } = deps;
      if (pull === undefined) return;
      const now = deps.now();
      if (lastAt !== undefined && now - lastAt < deps.minIntervalMs) return;
      lastAt = now;
      pending = pull.pause().then(
        () => deps.logger.warn('the Open API is down: pulling paused until a probe answers'),
        (e: unknown) => deps.logger.warn('could not pause pulling', { error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' }),
      );
    },
    flush: () => pending,
  };
}
