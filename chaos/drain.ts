import type { emulatorAdmin } from './emulator-admin.js';
import type { FaultInjector } from './faults.js';
import type { ChaosStack } from './stack.js';
import { waitIdle, waitUntil } from './wait.js';

/**
 * The end of a run: let the queue play out with its faults still armed, then calm them, redrive the
 * dead-letter list if asked (as an operator would), and wait until the queue is idle.
 */

export interface Drain {
  stack: ChaosStack;
  injector: FaultInjector;
  admin: ReturnType<typeof emulatorAdmin>;
  /** Give up after this long (real time). */
  timeoutMs: number;
  log: (line: string) => void;
  redrive: boolean;
  mayExpireLeases: () => boolean;
}

export interface Drained {
  deadLettered: number;
  redriven: number;
}

export async function drain(run: Drain): Promise<Drained> {
  const deadline = Date.now() + run.timeoutMs;
  const ticker = setInterval(() => {
    const s = run.stack.queue.stats();
    run.log(
      `chaos: queue ${s.visible} visible, ${s.processing} processing, ${s.waitingRetry} waiting retry, ${s.deadLettered} dead-lettered`,
    );
  }, 5000);
  try {
    return await drainRounds(run, deadline);
  } finally {
    clearInterval(ticker);
  }
}

async function drainRounds({ stack, injector, admin, log, redrive, mayExpireLeases }: Drain, deadline: number): Promise<Drained> {
  // First let the run play out with its faults still armed (and any outage to its end), then calm down.
  await waitIdle(stack, deadline);
  await waitUntil(mayExpireLeases, Math.max(0, deadline - Date.now()));
  await admin.clearFaults();
  injector.calm();
  let redriven = 0;
  let deadLettered = 0;
  for (let round = 0; redrive && round < 5 && Date.now() < deadline; round += 1) {
    await waitIdle(stack, deadline);
    const letters = stack.queue.deadLetters().length;
    if (letters === 0) break;
    deadLettered += letters;
    // Leases left by crashed attempts must run out before a redriven message can take them over.
    if (stack.expireLeases()) injector.tally.leaseExpiries += 1;
    redriven += stack.queue.redrive();
    log(`chaos: redrove ${letters} dead-lettered messages (round ${round + 1})`);
  }
  if (!(await waitIdle(stack, deadline))) {
    const s = stack.queue.stats();
    log(`chaos: queue not idle at the drain deadline (visible ${s.visible}, processing ${s.processing}, waiting retry ${s.waitingRetry})`);
  }
  // Those still in the list (never redriven, or dead-lettered again) count too.
  return { deadLettered: deadLettered + stack.queue.deadLetters().length, redriven };
}
