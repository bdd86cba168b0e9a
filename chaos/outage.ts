import type { Disturbance } from './disturbance.js';
import type { EmulatorAdmin, EmulatorStats } from './emulator-admin.js';
import type { SimClock } from './sim-clock.js';

/**
 * `--outage SECONDS`: when half the deliveries are sent, every Open API route fails (the emulator's
 * `error_500` fault on every path under /api/ext, as many times as asked) for that many seconds of
 * simulated time; then the faults are cleared. Reported: the upstream calls spent during the outage
 * (the circuit breaker bounds them), the backlog when it ended, and how long that backlog took to drain.
 */
export interface OutageReport {
  seconds: number;
  /** Open API requests the worker sent while the service was down (emulator stats, incl. token). */
  callsDuring: number;
  callsByRoute: Record<string, number>;
  /** Messages still queued (deferred) when the outage ended. */
  backlogAtEnd: number;
  /** Receives during the outage (every message handed out, set-aside copies included). */
  receivesDuring: number | undefined;
  /** Simulated seconds from the outage's end until the last message queued before it was processed. */
  drainSeconds: number | undefined;
  /** Open API requests during the drain, and the busiest route's average rate over it (per minute). */
  drainCalls: number;
  drainPeakRoutePerMinute: number | undefined;
}

export interface Outage extends Disturbance {
  /** Tell it about each processed message (to time the drain). */
  onDeleted(message: { sentAt: number; deletedAt: number }): void;
  report(): OutageReport | undefined;
  /** [start, end] on the simulated clock, once begun (end: +infinity while it lasts). */
  window(): [number, number] | undefined;
}

/** An unlimited number of times, in effect: the fault is removed when the outage ends. */
const FOR_EVER = 1_000_000_000;

/** How the Open API fails during an outage: a 500 on every call, or the connection reset before it runs. */
export type OutageFault = 'error_500' | 'reset_before';

export function createOutage(options: {
  seconds: number;
  /** Default error_500. */
  fault?: OutageFault;
  admin: EmulatorAdmin;
  clock: SimClock;
  clientId: string;
  /** Messages queued or deferred now. */
  backlog: () => number;
  /** Receives the queue has handed out so far (SQS ReceiveMessage results). */
  receives?: () => number;
  log: (line: string) => void;
}): Outage {
  const { admin, clock } = options;
  let startedAt: number | undefined;
  let endsAt: number | undefined;
  let endedAt: number | undefined;
  let ending = false;
  let before: EmulatorStats | undefined;
  let atEnd: EmulatorStats | undefined;
  let backlogAtEnd = 0;
  let receivesAtStart: number | undefined;
  let receivesAtEnd: number | undefined;
  let lastDrained: number | undefined;
  let drainCallsAt: Record<string, number> | undefined;

  const routes = (stats: EmulatorStats | undefined): Record<string, number> => {
    const client = stats?.clients[options.clientId];
    return {
      ...Object.fromEntries(Object.entries(client?.routes ?? {}).map(([r, s]) => [r, s.total])),
      token: client?.token_requests ?? 0,
    };
  };
  const delta = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(
      Object.keys(b)
        .map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)])
        .filter(([, v]) => (v as number) > 0),
    ) as Record<string, number>;
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

  const outage: Outage = {
    name: 'outage',
    async beforeDelivery(position, total) {
      if (startedAt !== undefined || position !== Math.floor(total / 2)) return;
      before = await admin.stats();
      await admin.addFault({ path: '^/api/ext/', fault: options.fault ?? 'error_500', times: FOR_EVER });
      startedAt = clock.now();
      receivesAtStart = options.receives?.();
      endsAt = startedAt + options.seconds * 1000;
      options.log(
        `chaos: outage begins: every Open API route ${options.fault === 'reset_before' ? 'resets the connection' : 'answers 500'} for ${options.seconds} s (simulated)`,
      );
    },
    async tick() {
      if (endsAt === undefined || endedAt !== undefined || ending || clock.now() < endsAt) return;
      ending = true;
      try {
        await admin.clearFaults();
        endedAt = clock.now();
        atEnd = await admin.stats();
        backlogAtEnd = options.backlog();
        receivesAtEnd = options.receives?.();
        options.log(
          `chaos: outage over after ${((endedAt - (startedAt ?? endedAt)) / 1000).toFixed(0)} s (simulated); ${backlogAtEnd} messages queued`,
        );
      } finally {
        ending = false;
      }
    },
    jumpLimit: () => (endedAt === undefined ? endsAt : undefined),
    window: () => (startedAt === undefined ? undefined : [startedAt, endedAt ?? Number.POSITIVE_INFINITY]),
    holdsClock: () => startedAt !== undefined && endedAt === undefined,
    onDeleted(message) {
      if (endedAt === undefined || message.sentAt > endedAt) return;
      lastDrained = Math.max(lastDrained ?? 0, message.deletedAt);
    },
    report() {
      if (startedAt === undefined) return undefined;
      const during = delta(routes(before), routes(atEnd));
      return {
        seconds: options.seconds,
        callsDuring: sum(during),
        callsByRoute: during,
        backlogAtEnd,
        receivesDuring: receivesAtStart !== undefined && receivesAtEnd !== undefined ? receivesAtEnd - receivesAtStart : undefined,
        drainSeconds: lastDrained !== undefined && endedAt !== undefined ? Math.max(0, (lastDrained - endedAt) / 1000) : undefined,
        drainCalls: drainCallsAt ? sum(drainCallsAt) : 0,
        drainPeakRoutePerMinute:
          drainCallsAt && lastDrained !== undefined && endedAt !== undefined && lastDrained > endedAt
            ? Math.max(0, ...Object.values(drainCallsAt)) / ((lastDrained - endedAt) / 60_000)
            : undefined,
      };
    },
    /** The calls since the outage ended. */
    async afterDrain() {
      if (atEnd === undefined) return;
      drainCallsAt = delta(routes(atEnd), routes(await admin.stats()));
    },
    reportLines() {
      const r = outage.report();
      if (!r) return [];
      const byRoute =
        Object.entries(r.callsByRoute)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none';
      return [
        `  outage: ${r.seconds} s (simulated) of ${options.fault === 'reset_before' ? 'connection resets' : '500s'} on every route; ${r.callsDuring} upstream calls during it (${byRoute})`,
        `    receives during it: ${r.receivesDuring ?? 'n/a'}${r.receivesDuring !== undefined && r.backlogAtEnd > 0 ? ` (${(r.receivesDuring / r.backlogAtEnd).toFixed(1)} per message of the backlog)` : ''}; pulling paused while the service was down`,
        `    backlog at its end ${r.backlogAtEnd} messages; drained ${r.drainSeconds === undefined ? 'n/a' : `${r.drainSeconds.toFixed(0)} s`} after it (simulated), ${r.drainCalls} calls` +
          (r.drainPeakRoutePerMinute === undefined
            ? ''
            : `, busiest route ${r.drainPeakRoutePerMinute.toFixed(0)}/min on average (budget 2000/min)`),
      ];
    },
  };
  return outage;
}
