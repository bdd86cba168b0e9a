import { describe, expect, it } from 'vitest';
import { BOB, rejectionOf, useHarness, type Harness } from './emulator-harness.js';

/**
 * The client against what a gateway, WAF or maintenance page in front of the service answers (the
 * emulator's `status` fault): shared/openapi/README.md, "Answers the spec does not give".
 */
let h: Harness;
useHarness((started) => {
  h = started;
});

const CALCULATION = '^/api/ext/users/[^/]+/points/calculation$';
const CALC_ROUTE = 'POST /api/ext/users/{id}/points/calculation';
const PAGE = '<!DOCTYPE html><html><body><h1>Service Unavailable</h1></body></html>';

/** A client whose waits are recorded, not slept, on a clock that moves only by them (a wait is then exact). */
function recordingClient(extra: Parameters<Harness['client']>[0] = {}) {
  const waits: number[] = [];
  let now = Date.parse('2026-01-15T01:00:00Z');
  const sleep = async (ms: number) => {
    waits.push(ms);
    now += ms;
  };
  const client = h.client({ retryBaseMs: 5, now: () => now, sleep, ...extra });
  return { client, waits };
}

describe('Open API client, answers of whatever stands in front of the service', () => {
  it('waits a 429 write out for its Retry-After in seconds and sends it again, executed once', async () => {
    const { client, waits } = recordingClient();
    await client.getMember(BOB);
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'status', status: 429, body: 'slow down', headers: { 'retry-after': '3' } });
    expect((await client.calculatePoints(BOB, { amount: 1000 })).id).toBe(BOB);
    expect(waits).toContain(3000);
    expect((await h.stats()).routes[CALC_ROUTE]?.total).toBe(2);
    expect((await client.listPoints(BOB)).points.map((p) => p.point)).toEqual([10]);
  });

  it('reads a Retry-After given as an HTTP date', async () => {
    let now = Date.parse('2026-01-15T01:00:00Z');
    const waits: number[] = [];
    const client = h.client({
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });
    await h.fault({
      path: '^/api/ext/users/[^/]+$',
      fault: 'status',
      status: 429,
      headers: { 'retry-after': 'Thu, 15 Jan 2026 01:00:05 GMT' },
    });
    expect((await client.getMember(BOB)).id).toBe(BOB);
    expect(waits).toContain(5000);
  });

  it('gives up waiting past rateLimitMaxWaitMs: a rate_limited error, not executed, carrying the Retry-After', async () => {
    const { client, waits } = recordingClient();
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'status', status: 429, headers: { 'retry-after': '120' } });
    const e = await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    expect(e).toMatchObject({ kind: 'rate_limited', status: 429, executed: 'no', retryAfterMs: 120_000 });
    expect(waits.filter((w) => w >= 1000)).toEqual([]);
  });

  it('holds every later call of the client back while a Retry-After runs, without sending it', async () => {
    const { client } = recordingClient();
    await h.fault({ method: 'POST', path: CALCULATION, fault: 'status', status: 429, headers: { 'retry-after': '120' } });
    await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }));
    const before = (await h.stats()).routes['GET /api/ext/users/{id}']?.total ?? 0;
    expect(await rejectionOf(client.getMember(BOB))).toMatchObject({ kind: 'rate_limited', executed: 'no' });
    expect((await h.stats()).routes['GET /api/ext/users/{id}']?.total ?? 0).toBe(before);
  });

  it('stops after rateLimitWaits 429s in a row', async () => {
    const { client, waits } = recordingClient({ rateLimitWaits: 2 });
    await h.fault({ path: CALCULATION, fault: 'status', status: 429, times: 10 });
    expect(await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }))).toMatchObject({ kind: 'rate_limited', executed: 'no' });
    expect(waits).toHaveLength(2);
    expect((await h.stats()).routes[CALC_ROUTE]?.total).toBe(3);
  });

  it('waits out a 429 of the token endpoint too', async () => {
    const { client, waits } = recordingClient();
    await h.fault({ path: '^/api/ext/token$', fault: 'status', status: 429, headers: { 'retry-after': '2' } });
    expect((await client.getMember(BOB)).id).toBe(BOB);
    expect(waits).toContain(2000);
  });

  it('reads an HTML 503 maintenance page as a server error that may have run', async () => {
    const { client } = recordingClient({ readRetries: 0 });
    await client.getMember(BOB);
    await h.fault({ path: CALCULATION, fault: 'status', status: 503, body: PAGE, headers: { 'content-type': 'text/html' } });
    expect(await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }))).toMatchObject({
      kind: 'server',
      status: 503,
      executed: 'unknown',
    });
  });

  it('retries a read met by a 503 page, like any 5xx', async () => {
    const { client } = recordingClient();
    await client.getMember(BOB);
    await h.fault({
      path: '^/api/ext/users/[^/]+$',
      fault: 'status',
      status: 503,
      body: PAGE,
      headers: { 'content-type': 'text/html' },
      times: 2,
    });
    expect((await client.getMember(BOB)).id).toBe(BOB);
  });

  it('reads a 403 as an unrecognised refusal, not executed, whatever its body says', async () => {
    const { client } = recordingClient();
    await client.getMember(BOB);
    await h.fault({ path: CALCULATION, fault: 'status', status: 403, body: JSON.stringify({ status: false, errors: 'Not contracted' }) });
    expect(await rejectionOf(client.calculatePoints(BOB, { amount: 1000 }))).toMatchObject({
      kind: 'unrecognised',
      status: 403,
      executed: 'no',
    });
  });

  it('keeps reading the 401 invalid-token answer (JSON labelled text/html) as the spec says', async () => {
    const { client } = recordingClient();
    await client.getMember(BOB);
    await h.fault({ path: '^/api/ext/users/[^/]+$', fault: 'error_500' });
    await h.fault({
      path: '^/api/ext/users/[^/]+$',
      fault: 'status',
      status: 401,
      body: JSON.stringify({ status: false, errors: ['auth'], all_errors: ['auth'], error_code: 'API-OPENAPI16' }),
      headers: { 'content-type': 'text/html; charset=UTF-8', 'www-authenticate': 'Bearer error="invalid_token"' },
    });
    // The 500 fault matches first and is consumed by the first try; the 401 then makes the client take a new token.
    expect((await client.getMember(BOB)).id).toBe(BOB);
  });
});
