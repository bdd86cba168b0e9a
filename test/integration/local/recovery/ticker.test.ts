import { describe, expect, it } from 'vitest';
import { createLocalQueue, createManualClock } from '../../../../local/queue/index.js';
import { startRecoveryTicker } from '../../../../local/recovery/ticker.js';
import { openApiProbe } from '../../../../shared/consumer/index.js';
import { useHarness } from '../../shared/points/harness.js';

const h = useHarness();

/** The ticker on a manual clock, probing the real emulator through the real client; when each probe went. */
function ticker() {
  const clock = createManualClock();
  const queue = createLocalQueue({ clock });
  const started = clock.now();
  const probedAt: number[] = [];
  let running: Promise<unknown> = Promise.resolve();
  const probe = openApiProbe(h.api, 'shopify');
  const recovery = startRecoveryTicker({
    clock,
    pull: queue,
    probe: () => {
      probedAt.push(clock.now() - started);
      const call = probe();
      running = call.catch(() => undefined);
      return call;
    },
  });
  /** Moves the clock in 100-ms steps, letting each probe and the ticker's next schedule finish before going on. */
  const advance = async (ms: number) => {
    for (let moved = 0; moved < ms; moved += 100) {
      clock.advance(100);
      await new Promise((resolve) => setImmediate(resolve));
      await running;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const stop = async () => {
    recovery.stop();
    await queue.close();
  };
  return { queue, probedAt, advance, stop };
}

describe('the local recovery probe', () => {
  it('probes a paused upstream a second after the pause, then after 2, 4, 8 and 10 s while it stays down', async () => {
    const { queue, probedAt, advance, stop } = ticker();
    await queue.pause();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    await advance(35_000);
    expect(probedAt).toEqual([1_000, 3_000, 7_000, 15_000, 25_000, 35_000]);
    expect(await queue.isPaused()).toBe(true);
    await stop();
  });

  it('resumes pulling on the first answer, and probes a later pause again a second after it', async () => {
    const { queue, probedAt, advance, stop } = ticker();
    await queue.pause();
    await advance(1_000);
    expect(await queue.isPaused()).toBe(false);
    await advance(5_000);
    await queue.pause();
    await advance(1_000);
    expect(probedAt).toEqual([1_000, 7_000]);
    expect(await queue.isPaused()).toBe(false);
    await stop();
  });
});
