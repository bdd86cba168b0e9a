import { beforeEach, describe, expect, it } from 'vitest';
import { ALICE, BOB, connect, fixtureConfig, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

async function useConfig(overrides: Record<string, unknown>): Promise<void> {
  await emu.reset(fixtureConfig(overrides));
  await reconnect();
}
/** Moves the clock and takes a fresh token (an old one may have expired on the way). */
async function clockTo(now: string): Promise<void> {
  await emu.setClock(now);
  await reconnect();
}
const grant = (body: Record<string, unknown>, id = ALICE) => api.post(`/api/ext/users/${id}/points`, body);
const calc = (body: Record<string, unknown>, id = ALICE) => api.post(`/api/ext/users/${id}/points/calculation`, body);
const member = async (id = ALICE) => (await api.get(`/api/ext/users/${id}`)).body.member;
const history = async (id = ALICE, query = '') => (await api.get(`/api/ext/users/${id}/points${query}`)).body;
const expiries = async (id = ALICE, query = '') => (await api.get(`/api/ext/users/${id}/points/expired_list${query}`)).body;

describe('POST /api/ext/users/{id}/points (grant)', () => {
  it('adds points and answers the detail form without external_ids', async () => {
    const r = await grant({ point: 120 });
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({ id: ALICE, point: 120, total_point: 120, point_geted_at: '2026-01-15 10:00:00' });
    expect(r.body.member).not.toHaveProperty('external_ids');
  });

  it('records the grant in the history with title, remarks, null detail and the default expiry', async () => {
    await grant({ point: 120, title: 'Welcome', remarks: 'marker-1' });
    expect((await history()).points).toEqual([
      {
        id: expect.any(String),
        point: 120,
        title: 'Welcome',
        detail: null,
        remarks: 'marker-1',
        expired_at: '2027-01-15 23:59:59',
        created_at: '2026-01-15 10:00:00',
        updated_at: '2026-01-15 10:00:00',
      },
    ]);
  });

  it('sets a date-only expired_at to 23:59:59 of that day', async () => {
    await grant({ point: 5, expired_at: '2026-03-31' });
    expect((await history()).points[0].expired_at).toBe('2026-03-31 23:59:59');
  });

  it('grants points without expiry when the client has no default expiry', async () => {
    await useConfig({ point_expiry_days: null });
    await grant({ point: 5 });
    expect((await history()).points[0].expired_at).toBeNull();
  });

  it('refuses an expired_at that is not Y-m-d', async () => {
    const r = await grant({ point: 5, expired_at: '2026/03/31' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(['The expired at does not match the format Y-m-d.']);
  });

  it('refuses an expired_at before today', async () => {
    expect((await grant({ point: 5, expired_at: '2026-01-14' })).body.errors).toEqual([
      'The expired at must be a date after or equal to today.',
    ]);
  });

  it('deducts with a negative point and records the deduction without expiry', async () => {
    await grant({ point: 100 });
    const r = await grant({ point: -30, expired_at: '2030-01-01' });
    expect(r.body.member.point).toBe(70);
    expect(r.body.member.total_point).toBe(100);
    expect((await history()).points[0]).toMatchObject({ point: -30, expired_at: null });
  });

  it('refuses a deduction larger than the held points with the insufficient-points object', async () => {
    await grant({ point: 10 });
    const r = await grant({ point: -11 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: { point: ['The point exceeds the points held.'] } });
  });

  it('changes nothing when a deduction is refused', async () => {
    await grant({ point: 10 });
    await grant({ point: -11 });
    expect((await member()).point).toBe(10);
    expect((await history()).total).toBe(1);
  });

  it('refuses a missing point', async () => {
    expect((await grant({ title: 'x' })).body).toEqual({ status: false, errors: ['The point field is required.'] });
  });

  it('refuses a point that is not an integer', async () => {
    for (const point of [1.5, 'ten', true]) {
      expect((await grant({ point })).body.errors, String(point)).toEqual(['The point must be an integer.']);
    }
  });

  it('refuses a point under the lower bound', async () => {
    expect((await grant({ point: -1_000_000_000 })).body.errors).toEqual(['The point must be at least -999999999.']);
  });

  it('answers "Not available for points" to a client that does not use points', async () => {
    const other = await connect(emu, 'nopoints', 'np-secret');
    const r = await other.post(`/api/ext/users/${ALICE}/points`, { point: 1 });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: 'Not available for points' });
  });

  it('answers "Member is not found" for an unknown customer', async () => {
    expect((await grant({ point: 1 }, '00000000-0000-4000-8000-000000000999')).body.errors).toBe('Member is not found');
  });

  it('counts every grant and deduction in total_point_count', async () => {
    await grant({ point: 10 });
    await grant({ point: -3 });
    const item = (await api.get('/api/ext/users')).body.members.find((m: { id: string }) => m.id === ALICE);
    expect(item.total_point_count).toBe(2);
  });

  it('loses no update when grants on one customer arrive concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => grant({ point: i + 1, remarks: `r${i}` })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect((await member()).point).toBe((25 * 26) / 2);
    expect((await history()).total).toBe(25);
  });
});

describe('POST /api/ext/users/{id}/points/calculation', () => {
  it('grants amount times the rank rate, rounded down', async () => {
    expect((await calc({ amount: 1999 })).body.member.point).toBe(19);
  });

  it("uses the rate of the customer's own rank", async () => {
    expect((await calc({ amount: 1999 }, BOB)).body.member.point).toBe(99);
  });

  it('computes with the decimal rate exactly (0.29 x 100 is 29, not 28)', async () => {
    await useConfig({ ranks: { regular: 0.29, gold: 0.05 } });
    expect((await calc({ amount: 100 })).body.member.point).toBe(29);
  });

  it('copies title and remarks to the history item', async () => {
    await calc({ amount: 5000, title: 'Order #1', remarks: 'shopify:1' });
    expect((await history()).points[0]).toMatchObject({ point: 50, title: 'Order #1', remarks: 'shopify:1' });
  });

  it('answers the detail form without external_ids', async () => {
    expect((await calc({ amount: 100 })).body.member).not.toHaveProperty('external_ids');
  });

  it('answers no total_point_count: the Open API gives it in the customer list only', async () => {
    const answer = (await calc({ amount: 100 })).body.member;
    expect(answer).toMatchObject({ point: 1, total_point: 1 });
    expect(answer).not.toHaveProperty('total_point_count');
  });

  it('accepts the maximum amount 999999999', async () => {
    expect((await calc({ amount: 999_999_999 })).body.member.point).toBe(9_999_999);
  });

  it('refuses an amount over 999999999', async () => {
    expect((await calc({ amount: 1_000_000_000 })).body.errors).toEqual(['The amount may not be greater than 999999999.']);
  });

  it('refuses a negative amount', async () => {
    expect((await calc({ amount: -1 })).body.errors).toEqual(['The amount must be at least 0.']);
  });

  it('refuses an amount that is not an integer', async () => {
    expect((await calc({ amount: 10.5 })).body.errors).toEqual(['The amount must be an integer.']);
  });

  it('refuses a missing amount', async () => {
    expect((await calc({})).body).toEqual({ status: false, errors: ['The amount field is required.'] });
  });

  it('answers "Not available for points" to a client that does not use points', async () => {
    const other = await connect(emu, 'nopoints', 'np-secret');
    expect((await other.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 1 })).body.errors).toBe('Not available for points');
  });

  it('counts both of two concurrent calculations on one customer', async () => {
    await Promise.all([calc({ amount: 1000 }), calc({ amount: 2000 })]);
    expect((await member()).point).toBe(30);
  });
});

describe('lots: deduction order and expiry', () => {
  beforeEach(async () => {
    await useConfig({ point_expiry_days: null });
  });

  it('consumes the earliest expiry first', async () => {
    await grant({ point: 50, expired_at: '2026-03-01' });
    await grant({ point: 30, expired_at: '2026-02-01' });
    await grant({ point: -40 });
    expect((await expiries()).points).toEqual([{ expired_at: '2026-03-01 23:59:59', point: '40' }]);
  });

  it('consumes points without expiry last', async () => {
    await grant({ point: 100 });
    await grant({ point: 20, expired_at: '2026-02-01' });
    await grant({ point: -30 });
    expect((await expiries()).points).toEqual([]);
    expect((await member()).point).toBe(90);
  });

  it('still holds expiring points at 23:59:59 of their expiry day', async () => {
    await grant({ point: 20, expired_at: '2026-01-20' });
    await clockTo('2026-01-20 23:59:59');
    expect((await member()).point).toBe(20);
  });

  it('stops holding points once their expiry has passed on the emulator clock', async () => {
    await grant({ point: 20, expired_at: '2026-01-20' });
    await grant({ point: 7 });
    await clockTo('2026-01-21 00:00:00');
    const m = await member();
    expect([m.point, m.point_expired_at, m.point_expired_point]).toEqual([7, '--', '--']);
  });

  it('does not let a deduction use expired points', async () => {
    await grant({ point: 20, expired_at: '2026-01-20' });
    await clockTo('2026-01-21 00:00:00');
    expect((await grant({ point: -1 })).body.errors).toEqual({ point: ['The point exceeds the points held.'] });
  });
});

describe('point_used_at, point_expired_at, point_expired_point', () => {
  it('shows the date of the first point use, not the last', async () => {
    await grant({ point: 100 });
    await grant({ point: -10 });
    await clockTo('2026-01-16 09:00:00');
    await grant({ point: -10 });
    expect((await member()).point_used_at).toBe('2026-01-15');
  });

  it('shows the nearest expiry date and the points expiring on it', async () => {
    await grant({ point: 300, expired_at: '2026-06-30' });
    await grant({ point: 40, expired_at: '2026-02-28' });
    await grant({ point: 2, expired_at: '2026-02-28' });
    const m = await member();
    expect([m.point_expired_at, m.point_expired_point]).toEqual(['2026-02-28', '42']);
  });

  it('groups point_expired_point of 1000 or more with commas', async () => {
    await grant({ point: 1_234_567, expired_at: '2026-02-28' });
    expect((await member()).point_expired_point).toBe('1,234,567');
  });

  it('shows 999 without grouping', async () => {
    await grant({ point: 999, expired_at: '2026-02-28' });
    expect((await member()).point_expired_point).toBe('999');
  });

  it('shows -- for both once every expiring point is used', async () => {
    await grant({ point: 10, expired_at: '2026-02-28' });
    await grant({ point: -10 });
    const m = await member();
    expect([m.point_expired_at, m.point_expired_point]).toEqual(['--', '--']);
  });

  it('shows -- for both when only points without expiry are held', async () => {
    await useConfig({ point_expiry_days: null });
    await grant({ point: 10 });
    const m = await member();
    expect([m.point, m.point_expired_at, m.point_expired_point]).toEqual([10, '--', '--']);
  });

  it('sums every point expiring within the display period when the admin sets one', async () => {
    await useConfig({ near_expiry_days: 30 });
    await grant({ point: 1000, expired_at: '2026-01-31' });
    await grant({ point: 500, expired_at: '2026-02-14' });
    await grant({ point: 9, expired_at: '2026-02-15' });
    const m = await member();
    expect([m.point_expired_at, m.point_expired_point]).toEqual(['2026-01-31', '1,500']);
  });

  it('shows an expiry date with -- points when the only expiring points lie beyond the display period', async () => {
    await useConfig({ near_expiry_days: 30 });
    await grant({ point: 80, expired_at: '2026-05-01' });
    const m = await member();
    expect([m.point_expired_at, m.point_expired_point]).toEqual(['2026-05-01', '--']);
  });
});

describe('GET /api/ext/users/{id}/points (history)', () => {
  it('lists the newest registration first', async () => {
    await grant({ point: 1, remarks: 'first' });
    await clockTo('2026-01-15 11:00:00');
    await grant({ point: 2, remarks: 'second' });
    await grant({ point: 3, remarks: 'third' });
    expect((await history()).points.map((p: { remarks: string }) => p.remarks)).toEqual(['third', 'second', 'first']);
  });

  it('pages the history with the envelope', async () => {
    for (let i = 1; i <= 3; i++) await grant({ point: i });
    const body = await history(ALICE, '?per_page=2&page=2');
    expect(body.points.map((p: { point: number }) => p.point)).toEqual([1]);
    expect(body).toMatchObject({ total: 3, per_page: 2, current_page: 2, last_page: 2 });
  });

  it('answers an empty history with total 0', async () => {
    expect(await history()).toEqual({ points: [], total: 0, per_page: 50, current_page: 1, last_page: 1 });
  });

  it('answers "Member is not found" for a withdrawn customer', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    expect((await history()).errors).toBe('Member is not found');
  });
});

describe('GET /api/ext/users/{id}/points/expired_list', () => {
  it('lists expiries nearest first with the points as strings', async () => {
    await grant({ point: 1500, expired_at: '2026-09-30' });
    await grant({ point: 5, expired_at: '2026-02-01' });
    expect((await expiries()).points).toEqual([
      { expired_at: '2026-02-01 23:59:59', point: '5' },
      { expired_at: '2026-09-30 23:59:59', point: '1500' },
    ]);
  });

  it('sums the points that expire at the same time', async () => {
    await grant({ point: 5, expired_at: '2026-02-01' });
    await grant({ point: 6, expired_at: '2026-02-01' });
    expect((await expiries()).points).toEqual([{ expired_at: '2026-02-01 23:59:59', point: '11' }]);
  });

  it('answers an empty array and total 0 without expiring points', async () => {
    expect(await expiries()).toMatchObject({ points: [], total: 0 });
  });

  it('pages the summary', async () => {
    for (const d of ['2026-02-01', '2026-03-01', '2026-04-01']) await grant({ point: 1, expired_at: d });
    const body = await expiries(ALICE, '?per_page=1&page=3');
    expect(body.points).toEqual([{ expired_at: '2026-04-01 23:59:59', point: '1' }]);
    expect(body).toMatchObject({ total: 3, last_page: 3 });
  });
});
