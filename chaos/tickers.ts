import type { Disturbance } from './disturbance.js';
import type { FaultInjector } from './faults.js';
import type { ChaosStack } from './stack.js';

/**
 * The run's two tickers: one lets leases run out while the worker idles, the other moves the simulated
 * clock to the next moment something is due.
 */

interface TickedParts {
  stack: ChaosStack;
  injector: FaultInjector;
  disturbances: Disturbance[];
}

/** Starts the lease and clock tickers; returns what stops them. */
export function startTickers(
  { stack, injector, disturbances }: TickedParts,
  holdsClock: () => boolean,
  log: (line: string) => void,
): () => void {
  // Whenever the worker is idle but messages wait for a retry, let every lease run out: crashed
  // attempts' leases then expire and are taken over (see stack.ts for why this is safe).
  const leaseTicker = setInterval(() => {
    const s = stack.queue.stats();
    if (!holdsClock() && s.waitingRetry > 0 && s.receivableGroups === 0 && stack.expireLeases()) injector.tally.leaseExpiries += 1;
  }, 250);
  // Simulated time: while nothing runs, jump to the next moment something is due (a deferred message
  // coming back), never past a disturbance's end; the disturbances end themselves on time.
  let ticking = false;
  const clockTicker = setInterval(() => {
    if (ticking) return;
    ticking = true;
    void (async () => {
      for (const d of disturbances) await d.tick();
      stack.jumpToNextDue(earliest(disturbances.map((d) => d.jumpLimit())), earliest(disturbances.map((d) => d.nextDueAt?.())));
    })()
      .catch((error: unknown) => log(`chaos: clock tick failed: ${(error as Error).message}`))
      .finally(() => {
        ticking = false;
      });
  }, 20);
  return () => {
    clearInterval(leaseTicker);
    clearInterval(clockTicker);
  };
}

/** The earliest of the times given, if any. */
function earliest(times: (number | undefined)[]): number | undefined {
  const defined = times.filter((t): t is number => t !== undefined);
  return defined.length > 0 ? Math.min(...defined) : undefined;
}
