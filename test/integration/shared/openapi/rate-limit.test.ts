import { describe, expect, it } from 'vitest';
import { ALICE, useHarness, type Harness } from './emulator-harness.js';

let h: Harness;

useHarness((started) => {
  h = started;
});

describe('Open API client, per-endpoint rate budget', () => {
  it('delays calls over the budget so the service never sees more per minute, and every call succeeds', async () => {
    // The client's clock and the emulator's clock move together: when the limiter waits, both
    // advance by the wait, so a minute passes in a few milliseconds.
    let now = Date.parse('2026-01-15T10:00:00Z');
    const waits: number[] = [];
    const client = h.client({
      ratePerMinute: 3,
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
        await h.advanceClock(ms / 1000);
      },
    });
    for (let i = 0; i < 10; i++) expect((await client.getMember(ALICE)).id).toBe(ALICE);
    const route = (await h.stats()).routes['GET /api/ext/users/{id}'];
    expect(route).toEqual({ total: 10, max_per_minute: 3 });
    expect(waits).toEqual([60_000, 60_000, 60_000]);
  });

  it('keeps separate budgets per endpoint', async () => {
    const waits: number[] = [];
    const client = h.client({ ratePerMinute: 2, sleep: async (ms) => void waits.push(ms) });
    await client.getMember(ALICE);
    await client.getMember(ALICE);
    await client.listPoints(ALICE);
    await client.listPoints(ALICE);
    expect(waits).toEqual([]);
  });
});
