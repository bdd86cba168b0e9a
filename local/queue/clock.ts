/**
 * Time as the queue sees it. Injected so tests (and the chaos runs) can move visibility timeouts and
 * the deduplication window forward without waiting for them.
 */
export interface QueueClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: QueueClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // A pending visibility timer must not keep a CLI or a test process alive on its own.
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface ManualClock extends QueueClock {
  /** Moves time forward, firing every timer that falls due, in due order. */
  advance(ms: number): void;
  /** Number of timers not yet fired. */
  pending(): number;
}

/** A clock that moves only when told to. */
export function createManualClock(startMs = Date.UTC(2026, 0, 15, 1, 0, 0)): ManualClock {
  let now = startMs;
  let nextId = 1;
  const timers = new Map<number, { due: number; callback: () => void }>();
  return {
    now: () => now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { due: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let first: [number, { due: number; callback: () => void }] | undefined;
        for (const entry of timers) {
          if (entry[1].due <= target && (first === undefined || entry[1].due < first[1].due)) first = entry;
        }
        if (first === undefined) break;
        timers.delete(first[0]);
        now = Math.max(now, first[1].due);
        first[1].callback();
      }
      now = target;
    },
    pending: () => timers.size,
  };
}
