import type { QueueClock } from '../local/queue/index.js';

/**
 * The chaos run's simulated time, shared by the queue, the worker, its client and the ledger. It runs
 * at real speed while anything works, and the run JUMPS it forward when nothing does (no batch
 * running, nothing receivable), to the next moment something is due: a deferred message coming back,
 * the end of an outage. So a two-hour outage, a 24-hour retry horizon or a lease of 30 s cost no real
 * time, and a lease can never run out under a running attempt (time jumps only when none runs; in AWS
 * the Lambda timeout, shorter than the lease, guarantees the same).
 */
export interface SimClock extends QueueClock {
  /** Moves time forward by `ms`, firing every timer that falls due, in due order. */
  jump(ms: number): void;
  /** Simulated ms jumped so far (beyond real time). */
  jumpedMs(): number;
}

interface Timer {
  due: number;
  callback: () => void;
  real: NodeJS.Timeout | undefined;
}

export function createSimClock(): SimClock {
  let offset = 0;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const now = () => Date.now() + offset;

  function arm(id: number, timer: Timer): void {
    if (timer.real !== undefined) clearTimeout(timer.real);
    timer.real = setTimeout(() => fire(id), Math.max(0, timer.due - now()));
    // A pending visibility timer must not keep the process alive on its own.
    timer.real.unref();
  }
  function fire(id: number): void {
    const timer = timers.get(id);
    if (timer === undefined) return;
    timers.delete(id);
    if (timer.real !== undefined) clearTimeout(timer.real);
    timer.callback();
  }

  return {
    now,
    setTimeout(callback, ms) {
      const id = nextId++;
      const timer: Timer = { due: now() + Math.max(0, ms), callback, real: undefined };
      timers.set(id, timer);
      arm(id, timer);
      return id;
    },
    clearTimeout(handle) {
      const timer = timers.get(handle as number);
      if (timer?.real !== undefined) clearTimeout(timer.real);
      timers.delete(handle as number);
    },
    jump(ms) {
      if (ms <= 0) return;
      offset += ms;
      const due = [...timers.entries()].filter(([, t]) => t.due <= now()).sort(([, a], [, b]) => a.due - b.due);
      for (const [id] of due) fire(id);
      for (const [id, timer] of timers) arm(id, timer);
    },
    jumpedMs: () => offset,
  };
}
