import { request as undiciRequest } from 'undici';
import { describe, expect, it } from 'vitest';
import { ALICE, connect, request, useEmulator } from './http.js';

const { emu, api } = useEmulator();

const CALC = 'POST /api/ext/users/{id}/points/calculation';
const calc = () => api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 100 });

describe('GET /__emulator/stats', () => {
  it('counts requests per client under the method and the Open API path template', async () => {
    await calc();
    await calc();
    await api.get('/api/ext/users/external_id/shopify/1001');
    const s = await emu.stats('test-client');
    expect(s?.routes[CALC]).toEqual({ total: 2, max_per_minute: 2 });
    expect(s?.routes['GET /api/ext/users/external_id/{external_key}/{external_id}']).toEqual({ total: 1, max_per_minute: 1 });
  });

  it('reports the busiest minute of the emulator clock in max_per_minute', async () => {
    await calc();
    await calc();
    await calc();
    await emu.advanceClock(60);
    await calc();
    expect((await emu.stats('test-client'))?.routes[CALC]).toEqual({ total: 4, max_per_minute: 3 });
  });

  it('keeps the count of an earlier minute when the clock is moved back into it', async () => {
    await calc();
    await calc();
    await emu.setClock('2026-01-15 10:05:00');
    await calc();
    await emu.setClock('2026-01-15 10:00:30');
    await calc();
    expect((await emu.stats('test-client'))?.routes[CALC]).toEqual({ total: 4, max_per_minute: 3 });
  });

  it('counts each clock minute apart, whatever the order of the requests', async () => {
    await emu.setClock('2026-01-15 10:01:00');
    await calc();
    await emu.setClock('2026-01-15 10:00:00');
    await calc();
    await emu.setClock('2026-01-15 10:01:59');
    await calc();
    expect((await emu.stats('test-client'))?.routes[CALC]).toEqual({ total: 3, max_per_minute: 2 });
  });

  it('counts token requests', async () => {
    await connect(emu);
    expect((await emu.stats('test-client'))?.token_requests).toBe(2);
  });

  it('counts a refused token request under the client it names', async () => {
    await request(emu.url, 'POST', '/api/ext/token', {
      body: { grant_type: 'client_credentials', client_id: 'test-client', client_secret: 'wrong' },
    });
    expect((await emu.stats('test-client'))?.token_requests).toBe(2);
  });

  it("counts a request with an expired token under the token's client", async () => {
    await emu.advanceClock(86_400);
    expect((await calc()).status).toBe(401);
    expect((await emu.stats('test-client'))?.routes[CALC]?.total).toBe(1);
  });

  it('does not count a request whose client is unknown', async () => {
    await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: 'made-up' });
    expect((await emu.stats('test-client'))?.routes[`GET /api/ext/users/{id}`]).toBeUndefined();
  });

  it('counts requests without a User-Agent header', async () => {
    await undiciRequest(`${emu.url}/api/ext/users/${ALICE}`, { headers: { authorization: `Bearer ${api.token}` } });
    await api.get(`/api/ext/users/${ALICE}`);
    expect((await emu.stats('test-client'))?.missing_user_agent).toBe(1);
  });

  it('counts a request without a User-Agent that ends in 404 under the client its token names', async () => {
    await undiciRequest(`${emu.url}/api/ext/orders`, { headers: { authorization: `Bearer ${api.token}` } });
    expect((await emu.stats('test-client'))?.missing_user_agent).toBe(1);
  });

  it('counts a request without a User-Agent that ends in 405 under the client its token names', async () => {
    await undiciRequest(`${emu.url}/api/ext/users/${ALICE}`, { method: 'PATCH', headers: { authorization: `Bearer ${api.token}` } });
    expect((await emu.stats('test-client'))?.missing_user_agent).toBe(1);
  });

  it("counts a request without a User-Agent that ends in 401 under the expired token's client", async () => {
    await emu.advanceClock(86_400);
    const r = await undiciRequest(`${emu.url}/api/ext/users/${ALICE}`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(r.statusCode).toBe(401);
    expect((await emu.stats('test-client'))?.missing_user_agent).toBe(1);
  });

  it('counts a request whose body is not valid JSON under its route', async () => {
    await api.call('POST', `/api/ext/users/${ALICE}/points/calculation`, { body: '{"amount":' });
    expect((await emu.stats('test-client'))?.routes[CALC]?.total).toBe(1);
  });

  it('counts requests that a fault dropped', async () => {
    await emu.addFault({ path: '/points/calculation$', fault: 'reset_before' });
    await calc().catch(() => undefined);
    expect((await emu.stats('test-client'))?.routes[CALC]?.total).toBe(1);
  });

  it('starts from zero after reset', async () => {
    await calc();
    await emu.reset();
    expect(await emu.stats('test-client')).toBeUndefined();
  });
});
