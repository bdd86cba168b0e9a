import { describe, expect, it } from 'vitest';
import { BOB, useHarness, type Harness } from './emulator-harness.js';

/**
 * A state-changing call sent under a lease carries the lease's send window (shared/openapi/send-window.ts):
 * it is never sent, nor waited for, past the window's end, however long the steps before it took.
 */
let h: Harness;
useHarness((started) => {
  h = started;
});

const CALCULATION = '^/api/ext/users/[^/]+/points/calculation$';
const CALC_ROUTE = 'POST /api/ext/users/{id}/points/calculation';
const TOKEN_429 = {
  method: 'POST',
  path: '^/api/ext/token$',
  fault: 'status',
  status: 429,
  body: 'slow down',
  headers: { 'retry-after': '2' },
} as const;

/** A client on a hand-moved clock whose waits move it (nothing is slept), and a window closing `ms` after now. */
function clientWithWindow(ms: number) {
  let now = Date.parse('2026-01-15T01:00:00Z');
  const client = h.client({
    now: () => now,
    sleep: async (wait) => {
      now += wait;
    },
  });
  const closesAt = now + ms;
  return { client, window: { leftMs: () => closesAt - now } };
}

const creditedPoints = async () => (await h.client().listPoints(BOB)).points.map((p) => p.point);

describe('Open API client, writes sent under a lease', () => {
  it('sends no calculation whose window a held token renewal used up, and says nothing was sent', async () => {
    const { client, window } = clientWithWindow(2_500);
    await h.fault(TOKEN_429);
    const e = await client.calculatePoints(BOB, { amount: 1000 }, window).catch((x: unknown) => x);
    expect(e).toMatchObject({ kind: 'lease_window_closed', executed: 'no' });
    expect((await h.stats()).routes[CALC_ROUTE]?.total ?? 0).toBe(0);
    expect(await creditedPoints()).toEqual([]);
  });

  it('sends the same calculation when its window outlasts the hold, once', async () => {
    const { client, window } = clientWithWindow(10_000);
    await h.fault(TOKEN_429);
    expect((await client.calculatePoints(BOB, { amount: 1000 }, window)).id).toBe(BOB);
    expect((await h.stats()).routes[CALC_ROUTE]?.total).toBe(1);
    expect(await creditedPoints()).toEqual([10]);
  });

  it('sends no grant or registration once the window has closed', async () => {
    const closed = { leftMs: () => 0 };
    const client = h.client();
    await expect(client.grantPoints(BOB, { point: 5 }, closed)).rejects.toMatchObject({ kind: 'lease_window_closed', executed: 'no' });
    await expect(client.registerMember({}, closed)).rejects.toMatchObject({ kind: 'lease_window_closed', executed: 'no' });
    const routes = (await h.stats()).routes;
    expect(Object.keys(routes).filter((r) => r.startsWith('POST /api/ext/users'))).toEqual([]);
  });

  it('gives up waiting for the answer when the window closes, not at the call deadline', async () => {
    const client = h.client();
    const closesAt = Date.now() + 1_200;
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'delay', delay_ms: 5_000 });
    const e = await client.calculatePoints(BOB, { amount: 1000 }, { leftMs: () => closesAt - Date.now() }).catch((x: unknown) => x);
    // Without the window the 10 s deadline would wait the 5 s delay out and succeed.
    expect(e).toMatchObject({ kind: 'timeout', executed: 'unknown' });
  });
});
