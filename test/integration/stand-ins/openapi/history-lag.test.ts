/**
 * The history_lag_ms client setting: the point history is a read replica that many real milliseconds behind
 * the primary; balances are not. The lag is long against one request and bounded against the test's wait.
 */
import { describe, expect, it } from 'vitest';
import { ALICE, fixtureConfig, useEmulator } from './http.js';

const { emu, api } = useEmulator();

const LAG_MS = 3000;
const WITHIN = { timeout: 15_000, interval: 25 };

const grant = (point: number, remarks: string) => api.post(`/api/ext/users/${ALICE}/points`, { point, remarks });
const history = async (query = '') => (await api.get(`/api/ext/users/${ALICE}/points${query}`)).body;
const remarksShown = async () => ((await history()).points as { remarks: string }[]).map((p) => p.remarks);

describe('history_lag_ms', () => {
  it('hides a new entry from the history until it is that old, while the balance shows it at once', async () => {
    await emu.patchClient('test-client', { history_lag_ms: LAG_MS });
    expect((await grant(40, 'order-1')).status).toBe(200);
    expect(await history()).toMatchObject({ points: [], total: 0, last_page: 1 });
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.point).toBe(40);
    await expect.poll(remarksShown, WITHIN).toEqual(['order-1']);
  });

  it('counts in total and pages only the entries it shows', async () => {
    await emu.patchClient('test-client', { history_lag_ms: LAG_MS });
    await grant(40, 'order-1');
    await expect.poll(remarksShown, WITHIN).toEqual(['order-1']);
    await grant(60, 'order-2');
    const first = await history('?per_page=1&page=1');
    expect(first).toMatchObject({ total: 1, per_page: 1, current_page: 1, last_page: 1 });
    expect(first.points.map((p: { remarks: string }) => p.remarks)).toEqual(['order-1']);
    expect((await history('?per_page=1&page=2')).points).toEqual([]);
    await expect.poll(remarksShown, WITHIN).toEqual(['order-2', 'order-1']);
  });

  it('is 0 unless set: the client configuration shows it and the history is current', async () => {
    const r = await emu.admin<Record<string, unknown>>('PATCH', '/clients/test-client', {});
    expect(r.body.history_lag_ms).toBe(0);
    await grant(40, 'order-1');
    expect(await remarksShown()).toEqual(['order-1']);
  });

  it('can be set in the configuration', async () => {
    await emu.reset(fixtureConfig({ history_lag_ms: LAG_MS }));
    const r = await emu.admin<Record<string, unknown>>('PATCH', '/clients/test-client', {});
    expect(r.body.history_lag_ms).toBe(LAG_MS);
  });

  it('refuses a lag that is not a non-negative integer, in a patch or a configuration', async () => {
    for (const bad of [-1, 1.5, '100', null]) {
      const patch = await emu.admin<{ error: string }>('PATCH', '/clients/test-client', { history_lag_ms: bad });
      expect([patch.status, patch.body.error], String(bad)).toEqual([400, expect.stringContaining('history_lag_ms')]);
      const reset = await emu.admin<{ error: string }>('POST', '/reset', fixtureConfig({ history_lag_ms: bad }));
      expect([reset.status, reset.body.error], String(bad)).toEqual([400, expect.stringContaining('history_lag_ms')]);
    }
  });
});
