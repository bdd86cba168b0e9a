/**
 * The late_commit fault: the answer comes at once, the operation runs `commit_after_ms` of real time later
 * against the state then. "Later" is shown without timing assertions: the emulator's clock is moved after the
 * answer, so an entry created at arrival and one created at commit carry different times; a commit that fails
 * silently is shown to have run by a later sentinel commit that did land (timers fire in order).
 */
import { describe, expect, it } from 'vitest';
import { ALICE, NOW, request, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

const CALC_PATH = '^/api/ext/users/[^/]+/points/calculation$';
const GRANT_PATH = '^/api/ext/users/[^/]+/points$';
/** Long enough for the test to answer and move the clock before it runs, even on a busy machine. */
const LATER_MS = 2000;
/** The bound of every "eventually". */
const WITHIN = { timeout: 15_000, interval: 25 };

const calc = (remarks = 'order-1') => api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 1000, remarks });
const grant = (point: number, remarks: string) => api.post(`/api/ext/users/${ALICE}/points`, { point, remarks });
const balance = async () => (await api.get(`/api/ext/users/${ALICE}`)).body.member.point as number;
interface Entry {
  point: number;
  remarks: string;
  created_at: string;
}
/** ALICE's history, newest first, as [point, remarks, created_at]. */
const entries = async () =>
  ((await api.get(`/api/ext/users/${ALICE}/points`)).body.points as Entry[]).map((p) => [p.point, p.remarks, p.created_at]);
const lateFault = (extra: Record<string, unknown> = {}) =>
  emu.addFault({ method: 'POST', path: CALC_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: LATER_MS, ...extra });

/** A late grant whose landing shows that every late commit received before it has run. */
async function sentinel(): Promise<void> {
  await emu.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'status', status: 502, commit_after_ms: LATER_MS });
  expect((await grant(1, 'sentinel')).status).toBe(502);
  await expect.poll(async () => (await entries()).some(([, remarks]) => remarks === 'sentinel'), WITHIN).toBe(true);
}

describe('late_commit', () => {
  it('answer reset: the socket is destroyed with no answer, and the operation lands later, stamped with the clock then', async () => {
    await lateFault({ answer: 'reset' });
    await expect(calc()).rejects.toThrow();
    await emu.setClock('2026-01-15 11:00:00');
    await expect.poll(entries, WITHIN).toEqual([[10, 'order-1', '2026-01-15 11:00:00']]);
  });

  it('answer status: the given status, body and headers come at once, and the operation lands later', async () => {
    const page = '<html><body>502 Bad Gateway</body></html>';
    await lateFault({ answer: 'status', status: 502, body: page, headers: { 'content-type': 'text/html' } });
    const r = await calc();
    expect([r.status, r.text, r.headers.get('content-type')]).toEqual([502, page, 'text/html']);
    await emu.setClock('2026-01-15 11:00:00');
    await expect.poll(entries, WITHIN).toEqual([[10, 'order-1', '2026-01-15 11:00:00']]);
  });

  it('answer hold: no answer comes, not even once the operation has landed, until the client gives up', async () => {
    await lateFault({ answer: 'hold' });
    const controller = new AbortController();
    let outcome = 'waiting';
    const call = fetch(`${emu.url}/api/ext/users/${ALICE}/points/calculation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', 'user-agent': 'emulator-tests' },
      body: JSON.stringify({ amount: 1000, remarks: 'order-1' }),
      signal: controller.signal,
    }).then(
      (res) => {
        outcome = `answered ${res.status}`;
      },
      (e: Error) => {
        outcome = e.name;
      },
    );
    await expect.poll(entries, WITHIN).toEqual([[10, 'order-1', NOW]]);
    expect(outcome).toBe('waiting');
    controller.abort();
    await call;
    expect(outcome).toBe('AbortError');
  });

  it('counts the request in the stats once, when it arrives', async () => {
    await lateFault();
    await expect(calc()).rejects.toThrow();
    const route = 'POST /api/ext/users/{id}/points/calculation';
    expect((await emu.stats('test-client'))?.routes[route]?.total).toBe(1);
    await expect.poll(async () => (await entries()).length, WITHIN).toBe(1);
    expect((await emu.stats('test-client'))?.routes[route]?.total).toBe(1);
  });

  it('refuses, silently and at commit time, a deduction the balance no longer covers', async () => {
    await grant(100, 'earned');
    await emu.addFault({ method: 'POST', path: GRANT_PATH, fault: 'late_commit', answer: 'reset', commit_after_ms: LATER_MS });
    await expect(grant(-80, 'late-spend')).rejects.toThrow();
    expect((await grant(-50, 'spend')).status).toBe(200);
    await sentinel();
    expect((await entries()).map(([point, remarks]) => [point, remarks])).toEqual([
      [1, 'sentinel'],
      [-50, 'spend'],
      [100, 'earned'],
    ]);
    expect(await balance()).toBe(51);
  });

  it('takes the access token as checked on arrival: the operation lands after the token has expired', async () => {
    await lateFault();
    await expect(calc()).rejects.toThrow();
    await emu.advanceClock(2 * 86_400);
    await reconnect();
    await expect.poll(entries, WITHIN).toEqual([[10, 'order-1', '2026-01-17 10:00:00']]);
  });

  it('runs nothing for a request whose access token was refused on arrival', async () => {
    await lateFault({ answer: 'status', status: 504 });
    const r = await request(emu.url, 'POST', `/api/ext/users/${ALICE}/points/calculation`, {
      token: 'not-a-token',
      body: { amount: 1000, remarks: 'order-1' },
    });
    expect(r.status).toBe(504);
    await sentinel();
    expect((await entries()).map(([, remarks]) => remarks)).toEqual(['sentinel']);
  });

  it('is cancelled by a reset while still pending: nothing lands in the new state', async () => {
    await lateFault();
    await expect(calc()).rejects.toThrow();
    await emu.reset();
    await reconnect();
    await sentinel();
    expect((await entries()).map(([, remarks]) => remarks)).toEqual(['sentinel']);
  });

  it('still lands after DELETE /__emulator/faults once its request was received', async () => {
    await lateFault();
    await expect(calc()).rejects.toThrow();
    await emu.clearFaults();
    await expect.poll(entries, WITHIN).toEqual([[10, 'order-1', NOW]]);
  });

  it('is removed by DELETE /__emulator/faults before it fires: the next request runs at once', async () => {
    await lateFault();
    await emu.clearFaults();
    expect((await calc()).status).toBe(200);
    expect(await entries()).toEqual([[10, 'order-1', NOW]]);
  });

  it('refuses a fault body it cannot honour, with a message naming the field', async () => {
    const late = { path: CALC_PATH, fault: 'late_commit' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...late, answer: 'explode', commit_after_ms: 10 }, 'answer'],
      [{ ...late, commit_after_ms: 10 }, 'answer'],
      [{ ...late, answer: 'reset' }, 'commit_after_ms'],
      [{ ...late, answer: 'reset', commit_after_ms: -1 }, 'commit_after_ms'],
      [{ ...late, answer: 'reset', commit_after_ms: 1.5 }, 'commit_after_ms'],
      [{ ...late, answer: 'reset', commit_after_ms: '10' }, 'commit_after_ms'],
      [{ ...late, answer: 'reset', commit_after_ms: 2 ** 31 }, 'commit_after_ms'],
      [{ ...late, answer: 'status', commit_after_ms: 10 }, 'status'],
      [{ ...late, answer: 'reset', commit_after_ms: 10, status: 502 }, 'status'],
      [{ path: CALC_PATH, fault: 'error_500', answer: 'reset' }, 'answer'],
      [{ path: CALC_PATH, fault: 'reset_before', commit_after_ms: 10 }, 'commit_after_ms'],
    ];
    for (const [body, field] of cases) {
      const r = await emu.admin<{ error: string }>('POST', '/faults', body);
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, expect.stringContaining(field)]);
    }
    expect((await calc()).status).toBe(200);
  });
});
