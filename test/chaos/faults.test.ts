import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emulatorAdmin, routeRequestsOf } from '../../chaos/emulator-admin.js';
import { createFaultInjector, MOVE_AFTER_DELIVERIES } from '../../chaos/faults.js';
import type { Random } from '../../chaos/prng.js';
import { startTestEmulator, type TestEmulator, testClient } from '../support/emulator.js';

/**
 * The fault injector against the real emulator: one pending fault per route, so a rarely called route
 * (the token's) never stores faults that would fire together as an outage the run never drew.
 */
const MEMBERS = [
  { id: '8f6d2c1e-0001-4000-8000-000000000001', login_id: 'alice', password: 'pass1234', external_ids: { shopify: '1001' } },
];
let emulator: TestEmulator;
beforeAll(async () => {
  emulator = await startTestEmulator({ now: '2026-01-15 10:00:00', clients: [testClient({ members: MEMBERS })] });
});
afterAll(async () => emulator.close());
beforeEach(async () => emulator.reset());

/**
 * A random source whose fault stream draws the token route (weights put it first) with the first kind
 * and count 1, and draws a fault at a delivery only while `drawing` says so.
 */
function tokenDraws(drawing: () => boolean): Random {
  const stream: Random = {
    next: () => 0.01,
    int: (min) => min,
    chance: () => drawing(),
    pick: (items) => items[0] as (typeof items)[number],
    digits: (length) => '1'.repeat(length),
    fork: () => stream,
  };
  return stream;
}

const headers = { 'content-type': 'application/json', 'user-agent': 'chaos-test' };
async function tokenRequest(): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${emulator.url}/api/ext/token`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'test-client', client_secret: 'test-secret' }),
  }).catch(() => undefined);
  if (!res) return { status: 0 };
  const body = (await res.json().catch(() => ({}))) as { access_token?: string };
  return { status: res.status, ...(body.access_token ? { token: body.access_token } : {}) };
}
async function lookup(token: string): Promise<number> {
  const res = await fetch(`${emulator.url}/api/ext/users/external_id/shopify/1001`, {
    headers: { ...headers, authorization: `Bearer ${token}` },
  });
  await res.text();
  return res.status;
}

function injector(drawing: () => boolean) {
  const admin = emulatorAdmin(emulator.url);
  return createFaultInjector(tokenDraws(drawing), admin, {
    faultRate: 1,
    crashRate: 0,
    clientTimeoutMs: 1000,
    routeRequests: () => routeRequestsOf(admin, 'test-client'),
  });
}

describe('chaos faults, per route', () => {
  it('arms a second token fault only once the first has fired, so one renewal meets one failure, not a pile', async () => {
    const { token } = await tokenRequest();
    const faults = injector(() => true);
    await faults.maybeArm();
    await lookup(token as string);
    await faults.maybeArm();
    expect(faults.tally.byRoute).toEqual({ token: 1 });
    expect(faults.tally.waitedForRoute).toBe(1);
    // The renewal meets the one armed fault; its retry goes through: nothing else was stored for it.
    expect((await tokenRequest()).status).toBe(500);
    expect((await tokenRequest()).status).toBe(200);
    await faults.maybeArm();
    expect(faults.tally.byRoute).toEqual({ token: 2 });
  });

  it(`moves a fault whose route is not called for ${MOVE_AFTER_DELIVERIES} deliveries to a route with none pending, so every fault drawn is armed`, async () => {
    const { token } = await tokenRequest();
    let draws = 2;
    const faults = injector(() => draws-- > 0);
    await faults.maybeArm();
    await lookup(token as string);
    await faults.maybeArm();
    expect(faults.tally.waitedForRoute).toBe(1);
    for (let delivery = 0; delivery < MOVE_AFTER_DELIVERIES; delivery += 1) {
      await lookup(token as string);
      await faults.maybeArm();
    }
    expect(faults.tally.movedToFreeRoute).toBe(1);
    expect(faults.tally.byRoute).toEqual({ token: 1, 'member by external id': 1 });
    expect(faults.tally.emulator).toBe(2);
    faults.calm();
    expect(faults.tally.neverArmed).toBeUndefined();
  });
});
