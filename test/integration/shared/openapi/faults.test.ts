import { beforeEach, describe, expect, it } from 'vitest';
import { clearTokenCache, createOpenApiClient, staticCredentials, type OpenApiClient } from '../../../../shared/openapi/index.js';
import { BOB, rejectionOf, startHarness, useHarness, type Harness } from './emulator-harness.js';

const CALCULATION = '^/api/ext/users/[^/]+/points/calculation$';
const CALC_ROUTE = 'POST /api/ext/users/{id}/points/calculation';
const MEMBER_ROUTE = 'GET /api/ext/users/{id}';

let h: Harness;
let client: OpenApiClient;

useHarness((started) => {
  h = started;
  client = h.client({ retryBaseMs: 5 });
});
beforeEach(async () => {
  await client.getMember(BOB); // warm: token cached, connection open
});

/** Points granted to BOB so far, read through the point history. */
async function granted(): Promise<number> {
  return (await client.listPoints(BOB)).points.reduce((n, p) => n + p.point, 0);
}

describe('Open API client, whether a failed write may have been executed', () => {
  it('says a 500 on a write may have been executed and does not repeat the write', async () => {
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'error_500' });
    const e = await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'server', status: 500, errorCode: 'API-OPENAPI21', executed: 'unknown' });
    expect((await h.stats()).routes[CALC_ROUTE]?.total).toBe(1);
  });

  it('says a connection reset before execution may have been executed (the client cannot tell)', async () => {
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'reset_before' });
    const e = await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'network', executed: 'unknown' });
    expect(await granted()).toBe(0);
  });

  it('says a connection reset after commit may have been executed, and the points were granted', async () => {
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'reset_after_commit' });
    const e = await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'network', executed: 'unknown' });
    expect(await granted()).toBe(10);
    expect((await h.stats()).routes[CALC_ROUTE]?.total).toBe(1);
  });

  it('says an answer held back beyond the timeout is a timeout that may have been executed', async () => {
    // Shares the cached token; only the held-back call meets the short timeout.
    const impatient = h.client({ timeouts: { headersMs: 1000 } });
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'delay', delay_ms: 3000 });
    const e = await rejectionOf(impatient.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'timeout', executed: 'unknown' });
    expect(await granted()).toBe(10);
  });

  it('says a refused connection was not executed', async () => {
    const closed = await startHarness();
    const url = closed.url;
    await closed.close();
    const offline = createOpenApiClient({ credentials: staticCredentials({ ...h.credentials(), baseUrl: url }), readRetries: 0 });
    try {
      expect(await rejectionOf(offline.calculatePoints(BOB, { amount: 1 }))).toMatchObject({ kind: 'network', executed: 'no' });
    } finally {
      await offline.close();
    }
  });
});

describe('Open API client, a failing token endpoint', () => {
  it('says the write was not executed when no token could be obtained, after retrying the token request', async () => {
    clearTokenCache();
    const before = await h.stats();
    await h.fault({ method: 'POST', path: '^/api/ext/token$', fault: 'error_500', times: 10 });
    const e = await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'server', status: 500, executed: 'no', route: 'POST /api/ext/token' });
    const after = await h.stats();
    expect(after.token_requests - before.token_requests).toBe(3); // first try + 2 retries, not more
    expect(after.routes[CALC_ROUTE]).toBeUndefined();
  });
});

describe('Open API client, read retries', () => {
  it('repeats a read after a 500 and returns its answer', async () => {
    await h.fault({ method: 'GET', path: '^/api/ext/users/[^/]+$', fault: 'error_500' });
    expect((await client.getMember(BOB)).id).toBe(BOB);
    expect((await h.stats()).routes[MEMBER_ROUTE]?.total).toBe(3); // warm-up, the 500, the retry
  });

  it('repeats a read after a connection reset', async () => {
    await h.fault({ method: 'GET', path: '^/api/ext/users/[^/]+$', fault: 'reset_before' });
    expect((await client.getMember(BOB)).id).toBe(BOB);
  });

  it('gives up after the configured number of read retries', async () => {
    await h.fault({ method: 'GET', path: '^/api/ext/users/[^/]+$', fault: 'error_500', times: 5 });
    expect(await rejectionOf(client.getMember(BOB))).toMatchObject({ kind: 'server' });
    expect((await h.stats()).routes[MEMBER_ROUTE]?.total).toBe(1 + 3); // warm-up + first try + 2 retries
  });

  it('never repeats the single-use handover check', async () => {
    const token = await h.handoverToken(BOB);
    await h.fault({ method: 'GET', path: '^/api/ext/check/', fault: 'error_500' });
    expect(await rejectionOf(client.checkHandoverToken(token, BOB))).toMatchObject({ kind: 'server', executed: 'unknown' });
    expect((await h.stats()).routes['GET /api/ext/check/{token}']?.total).toBe(1);
  });
});
