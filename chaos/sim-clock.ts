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
  /** Moves time forward by `ms` (less if a jump limit caps it), firing every timer that falls due, in due order; returns the ms moved. */
  jump(ms: number): number;
  /** Simulated ms jumped so far (beyond real time). */
  jumpedMs(): number;
  /**
   * Caps every jump from now on: a jump never takes the clock past what `limit` returns (undefined: no
   * cap). Whoever jumps (the idle clock, lease expiries, a disturbance) meets the same cap.
   */
  setJumpLimit(limit: (() => number | undefined) | undefined): void;
  /** The simulated time at a past real moment (epoch ms of `Date.now()`), from the jumps made since. */
  simAt(realMs: number): number;
}

/** How long the jumps are remembered for `simAt` (real ms): longer than any window a guard asks about. */
const JUMP_LOG_MS = 10 * 60 * 1000;

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
  let jumpLimit: (() => number | undefined) | undefined;
  /** Each jump: the real moment and the offset from then on (oldest first). */
  const jumps: { real: number; offset: number }[] = [];

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
    jump(requested) {
      const cap = jumpLimit?.();
      const ms = cap === undefined ? requested : Math.min(requested, cap - now());
      if (ms <= 0) return 0;
      offset += ms;
      const real = Date.now();
      jumps.push({ real, offset });
      while (jumps.length > 1 && (jumps[1] as { real: number }).real < real - JUMP_LOG_MS) jumps.shift();
      const due = [...timers.entries()].filter(([, t]) => t.due <= now()).sort(([, a], [, b]) => a.due - b.due);
      for (const [id] of due) fire(id);
      for (const [id, timer] of timers) arm(id, timer);
      return ms;
    },
    jumpedMs: () => offset,
    setJumpLimit(limit) {
      jumpLimit = limit;
    },
    simAt(realMs) {
      let at = 0;
      for (const j of jumps) if (j.real <= realMs) at = j.offset;
      return realMs + at;
    },
  };
}
