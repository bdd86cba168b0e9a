import { describe, expect, it } from 'vitest';
import { createLocalQueue, systemClock } from '../../../../local/queue/index.js';
import { ledgerPlannedPause, openApiProbe, pausePulling, resumeWhenUp } from '../../../../shared/consumer/index.js';
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

  it('probes again after 2, 4, 8, then 10 s while the service stays down, within the invocation', async () => {
    const queue = createLocalQueue({ clock: systemClock });
    await queue.pause();
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'error_500', times: 1000 });
    let now = Date.now();
    const slept: number[] = [];
    const result = await resumeWhenUp({
      pull: queue,
      probe: openApiProbe(h.api, 'shopify'),
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
      intervalMs: 10_000,
      untilMs: now + 30_000,
    });
    expect([result, slept]).toEqual(['still_down', [2_000, 4_000, 8_000, 10_000]]);
    await queue.close();
  });

  it('resumes pulling on the first answer of the service, even "no such member"', async () => {
    const { queue, run } = recovery();
    await queue.pause();
    expect(await run()).toBe('resumed');
    expect(await queue.isPaused()).toBe(false);
  });

  it('leaves a planned pause alone while the service answers, without probing it, until its end', async () => {
    const { queue } = recovery();
    const records = ledgerPlannedPause({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName });
    let now = Date.now();
    await pausePulling({ pull: queue, records, now: () => now }, new Date(now + 3_600_000));
    const run = () =>
      resumeWhenUp({
        pull: queue,
        probe: openApiProbe(h.api, 'shopify'),
        now: () => now,
        sleep: async () => undefined,
        intervalMs: 1_000,
        untilMs: now,
        planned: records,
      });
    const lookups = await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}');
    expect(await run()).toBe('planned');
    expect(await queue.isPaused()).toBe(true);
    expect(await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}')).toBe(lookups);
    // Its end passed: the record goes, and the first answer resumes pulling.
    now += 3_600_001;
    expect(await run()).toBe('resumed');
    expect(await records.get()).toBeUndefined();
    await queue.close();
  });

  it('keeps a planned pause that outlived its end paused while the service still fails, as an outage', async () => {
    const { queue } = recovery();
    const records = ledgerPlannedPause({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName });
    let now = Date.now();
    await pausePulling({ pull: queue, records, now: () => now }, new Date(now + 60_000));
    now += 120_000;
    await h.emulator.addFault({ path: '^/api/ext/', fault: 'status', status: 503, body: '<html>maintenance</html>', times: 100 });
    const run = () =>
      resumeWhenUp({
        pull: queue,
        probe: openApiProbe(h.api, 'shopify'),
        now: () => now,
        sleep: async () => undefined,
        intervalMs: 1_000,
        untilMs: now,
        planned: records,
      });
    expect(await run()).toBe('still_down');
    expect(await queue.isPaused()).toBe(true);
    await queue.close();
  });
});
