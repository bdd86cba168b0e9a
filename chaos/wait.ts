import type { ChaosStack } from './stack.js';

/** Waits, in real time, until the condition holds or the time is up. */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Waits, in real time, until the queue holds nothing (the simulated clock jumps meanwhile, so a timer
 * on the queue's clock would run out at once).
 */
export async function waitIdle(stack: ChaosStack, deadline: number): Promise<boolean> {
  for (;;) {
    const s = stack.queue.stats();
    if (s.runningBatches === 0 && s.visible + s.processing + s.waitingRetry === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
