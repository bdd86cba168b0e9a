import { describe, expect, it } from 'vitest';
import { ALICE, structuredError, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

const CALC_PATH = '^/api/ext/users/[^/]+/points/calculation$';
const calc = () => api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 1000, remarks: 'order-1' });
const historyTotal = async () => (await api.get(`/api/ext/users/${ALICE}/points`)).body.total as number;

describe('faults', () => {
  it('error_500 answers the structured 500 without executing the operation', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'error_500' });
    const r = await calc();
    expect(r.status).toBe(500);
    expect(r.body).toEqual(structuredError('Internal Server Error', 'API-OPENAPI21'));
    expect(await historyTotal()).toBe(0);
  });

  it('reset_before drops the connection without an answer and without executing', async () => {
    await emu.addFault({ method: 'POST', path: CALC_PATH, fault: 'reset_before' });
    await expect(calc()).rejects.toThrow();
    expect(await historyTotal()).toBe(0);
  });

  it('reset_after_commit drops the connection without an answer, yet the grant is in the history', async () => {
    await emu.addFault({ method: 'POST', path: CALC_PATH, fault: 'reset_after_commit' });
    await expect(calc()).rejects.toThrow();
    const h = (await api.get(`/api/ext/users/${ALICE}/points`)).body;
    expect(h.points.map((p: { point: number; remarks: string }) => [p.point, p.remarks])).toEqual([[10, 'order-1']]);
  });

  it('delay executes the operation before the held-back answer arrives', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'delay', delay_ms: 400 });
    let answered = false;
    const pending = calc().then((r) => {
      answered = true;
      return r;
    });
    let seen = 0;
    while (seen === 0) seen = await historyTotal();
    expect(answered).toBe(false);
    expect((await pending).status).toBe(200);
  });

  it('status answers the given status, body and headers as they are, without executing the operation', async () => {
    const page = '<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>';
    await emu.addFault({
      path: CALC_PATH,
      fault: 'status',
      status: 503,
      body: page,
      headers: { 'content-type': 'text/html', 'retry-after': '120' },
    });
    const r = await calc();
    expect(r.status).toBe(503);
    expect(r.text).toBe(page);
    expect(r.headers.get('content-type')).toBe('text/html');
    expect(r.headers.get('retry-after')).toBe('120');
    expect(await historyTotal()).toBe(0);
  });

  it('status answers any 4xx, a JSON-looking body included, without touching it', async () => {
    await emu.addFault({
      path: CALC_PATH,
      fault: 'status',
      status: 429,
      body: '{"message":"Too Many Requests"}',
      headers: { 'retry-after': '3' },
    });
    const r = await calc();
    expect([r.status, r.text, r.headers.get('retry-after')]).toEqual([429, '{"message":"Too Many Requests"}', '3']);
    expect(await historyTotal()).toBe(0);
  });

  it('status with an empty body answers an empty body', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'status', status: 403 });
    const r = await calc();
    expect([r.status, r.text]).toEqual([403, '']);
  });

  it('refuses a status fault without a 4xx/5xx status, and a status on another fault', async () => {
    for (const bad of [
      { path: '.*', fault: 'status' },
      { path: '.*', fault: 'status', status: 200 },
      { path: '.*', fault: 'status', status: 600 },
      { path: '.*', fault: 'status', status: 503, headers: { 'retry-after': 2 } },
      { path: '.*', fault: 'error_500', status: 503 },
    ]) {
      expect((await emu.admin('POST', '/faults', bad)).status).toBe(400);
    }
    expect((await calc()).status).toBe(200);
  });

  it('applies to the next `times` matching requests only', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'error_500', times: 2 });
    const statuses = [(await calc()).status, (await calc()).status, (await calc()).status];
    expect(statuses).toEqual([500, 500, 200]);
  });

  it('leaves requests with another method alone', async () => {
    await emu.addFault({ method: 'GET', path: '^/api/ext/users/[^/]+$', fault: 'error_500' });
    expect((await api.put(`/api/ext/users/${ALICE}`, { ud_id: 'x' })).status).toBe(200);
    expect((await api.get(`/api/ext/users/${ALICE}`)).status).toBe(500);
  });

  it('leaves requests on other paths alone', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'error_500' });
    expect((await api.post(`/api/ext/users/${ALICE}/points`, { point: 1 })).status).toBe(200);
  });

  it('are all removed by DELETE /__emulator/faults', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'error_500', times: 5 });
    await emu.clearFaults();
    expect((await calc()).status).toBe(200);
  });

  it('are removed by reset', async () => {
    await emu.addFault({ path: CALC_PATH, fault: 'error_500' });
    await emu.reset();
    await reconnect();
    expect((await calc()).status).toBe(200);
  });

  it('refuses an unknown fault kind', async () => {
    const r = await emu.admin('POST', '/faults', { path: '.*', fault: 'explode' });
    expect(r.status).toBe(400);
  });

  it('refuses a path that is not a regular expression', async () => {
    expect((await emu.admin('POST', '/faults', { path: '(', fault: 'error_500' })).status).toBe(400);
  });

  it('answers 201 with an id', async () => {
    const r = await emu.admin<{ id: string }>('POST', '/faults', { path: '.*', fault: 'delay', delay_ms: 1 });
    expect(r.status).toBe(201);
    expect(typeof r.body.id).toBe('string');
  });
});
