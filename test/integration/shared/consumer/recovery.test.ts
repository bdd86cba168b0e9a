import { describe, expect, it } from 'vitest';
import { createLocalQueue, systemClock } from '../../../../local/queue/index.js';
import { openApiProbe, resumeWhenUp } from '../../../../shared/consumer/index.js';
import { useHarness } from '../points/harness.js';

const h = useHarness();

/** The real emulator behind the real client; the local queue as the worker's pull switch. */
function recovery(untilMs = Date.now()) {
  const queue = createLocalQueue({ clock: systemClock });
  const run = () =>
    resumeWhenUp({
      pull: queue,
      probe: openApiProbe(h.api, 'shopify'),
      now: Date.now,
      sleep: async () => undefined,
      intervalMs: 1_000,
      untilMs,
    });
  return { queue, run };
}

describe('the recovery probe', () => {
  it('leaves running pulling alone, without probing the service', async () => {
    const { queue, run } = recovery();
    const lookups = await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}');
    expect(await run()).toBe('running');
    expect(await queue.isPaused()).toBe(false);
    expect(await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}')).toBe(lookups);
  });

  it('keeps pulling paused while the Open API answers with server errors', async () => {
    const { queue, run } = recovery();
    await queue.pause();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 100 });
    expect(await run()).toBe('still_down');
    expect(await queue.isPaused()).toBe(true);
  });

  it('keeps pulling paused while the connection is reset', async () => {
    const { queue, run } = recovery();
    await queue.pause();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'reset_before', times: 100 });
    expect(await run()).toBe('still_down');
    expect(await queue.isPaused()).toBe(true);
  });

  it('resumes pulling on the first answer of the service, even "no such member"', async () => {
    const { queue, run } = recovery();
    await queue.pause();
    expect(await run()).toBe('resumed');
    expect(await queue.isPaused()).toBe(false);
  });
});
