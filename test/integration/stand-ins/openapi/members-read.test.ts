import { describe, expect, it } from 'vitest';
import { ALICE, BOB, connect, fixtureConfig, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

const notFound = { status: false, errors: 'Member is not found' };

describe('GET /api/ext/users (customer list)', () => {
  it('lists customers oldest registration first with the paging envelope', async () => {
    await api.post('/api/ext/users', { login_id: 'carol' });
    const r = await api.get('/api/ext/users');
    expect(r.status).toBe(200);
    expect(r.body.members.map((m: { login_id: string }) => m.login_id)).toEqual(['alice', 'bob', 'carol']);
    expect(r.body).toMatchObject({ total: 3, per_page: 50, current_page: 1, last_page: 1 });
  });

  it('returns all 50 custom-field keys in a list item even with four configured', async () => {
    const item = (await api.get('/api/ext/users')).body.members[0];
    for (let i = 1; i <= 50; i++) expect(item).toHaveProperty(`column${String(i).padStart(2, '0')}`);
  });

  it('gives list items the client_id, display names and counters but no external_ids or point_* fields', async () => {
    const item = (await api.get('/api/ext/users')).body.members[0];
    expect(item).toMatchObject({
      client_id: 'test-client',
      logined_name: 'Not logged in',
      enabled_name: 'Valid',
      change_status_name: 'No handover request',
      total_point_count: 0,
    });
    for (const k of ['external_ids', 'point_used_at', 'point_expired_at', 'point_expired_point']) expect(item).not.toHaveProperty(k);
  });

  it('pages with per_page and page', async () => {
    const r = await api.get('/api/ext/users?per_page=1&page=2');
    expect(r.body.members.map((m: { id: string }) => m.id)).toEqual([BOB]);
    expect(r.body).toMatchObject({ total: 2, per_page: 1, current_page: 2, last_page: 2 });
  });

  it('returns an empty page past the last one', async () => {
    const r = await api.get('/api/ext/users?page=9');
    expect(r.body.members).toEqual([]);
    expect(r.body.last_page).toBe(1);
  });

  it('refuses per_page above 1000', async () => {
    const r = await api.get('/api/ext/users?per_page=1001');
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(['The per page must be an integer between 1 and 1000.']);
  });

  it('refuses page 0', async () => {
    expect((await api.get('/api/ext/users?page=0')).status).toBe(400);
  });

  it('leaves withdrawn customers out of the list', async () => {
    await api.del(`/api/ext/users/${BOB}/resign`);
    const r = await api.get('/api/ext/users');
    expect(r.body.members.map((m: { id: string }) => m.id)).toEqual([ALICE]);
  });
});

describe('GET /api/ext/users/{id} (customer detail)', () => {
  it('answers the detail form with its fields in the order the Open API lists them', async () => {
    const r = await api.get(`/api/ext/users/${ALICE}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.member)).toEqual([
      'id',
      'unique_id',
      'pin',
      'login_id',
      'rank',
      'column01',
      'column02',
      'column03',
      'column04',
      'secret_question',
      'secret_answer',
      'point',
      'total_point',
      'logined',
      'enabled',
      'memo',
      'ud_id',
      'point_geted_at',
      'point_used_at',
      'point_expired_at',
      'point_expired_point',
      'external_ids',
      'logined_at',
      'created_at',
      'updated_at',
    ]);
  });

  it('includes the external IDs as a key-to-id map', async () => {
    const r = await api.get(`/api/ext/users/${ALICE}`);
    expect(r.body.member.external_ids).toEqual({ shopify: '1001', pos_card: 'PC-1' });
  });

  it('returns -- for the point_* fields of a customer without points', async () => {
    const m = (await api.get(`/api/ext/users/${ALICE}`)).body.member;
    expect([m.point, m.point_used_at, m.point_expired_at, m.point_expired_point]).toEqual([0, '--', '--', '--']);
  });

  it('returns only as many column keys as the highest configured column', async () => {
    await emu.reset(fixtureConfig({ custom_fields: [{ column: 'column03', key: 'birthday', type: 'date' }] }));
    await reconnect();
    const m = (await api.get(`/api/ext/users/${ALICE}`)).body.member;
    expect(Object.keys(m).filter((k) => k.startsWith('column'))).toEqual(['column01', 'column02', 'column03']);
  });

  it('returns no column keys for a client without a custom-field setting', async () => {
    await emu.reset(fixtureConfig({ custom_fields: [] }));
    await reconnect();
    const m = (await api.get(`/api/ext/users/${ALICE}`)).body.member;
    expect(Object.keys(m).some((k) => k.startsWith('column'))).toBe(false);
  });

  it('adds physical-name fields after point_expired_point and before external_ids with with_column_key=true', async () => {
    await api.put(`/api/ext/users/${ALICE}`, { column01: 'Ali', column03: '1990-04-01' });
    const m = (await api.get(`/api/ext/users/${ALICE}?with_column_key=true`)).body.member;
    const keys = Object.keys(m);
    expect(keys.slice(keys.indexOf('point_expired_point') + 1, keys.indexOf('external_ids'))).toEqual([
      'nickname',
      'shoe_size',
      'birthday',
      'visited_at',
    ]);
    expect([m.nickname, m.birthday, m.column01]).toEqual(['Ali', '19900401', 'Ali']);
  });

  it('leaves the point_* keys out entirely for a client without points', async () => {
    const other = await connect(emu, 'nopoints', 'np-secret');
    const m = (await other.get(`/api/ext/users/${ALICE}`)).body.member;
    expect(m).toHaveProperty('point');
    for (const k of ['point_used_at', 'point_expired_at', 'point_expired_point']) expect(m).not.toHaveProperty(k);
  });

  it('answers "Member is not found" for an unknown id', async () => {
    const r = await api.get('/api/ext/users/00000000-0000-4000-8000-000000000999');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(notFound);
  });

  it('does not show one client the customers of another', async () => {
    await emu.reset(fixtureConfig());
    const other = await connect(emu, 'nopoints', 'np-secret');
    expect((await other.get(`/api/ext/users/${BOB}`)).body).toEqual(notFound);
  });
});

describe('GET /api/ext/users/unique_id/{unique_id}', () => {
  it('finds a customer by unique ID', async () => {
    const r = await api.get('/api/ext/users/unique_id/U-BOB');
    expect(r.status).toBe(200);
    expect(r.body.member.id).toBe(BOB);
  });

  it('answers "Member is not found" for an unknown unique ID', async () => {
    expect((await api.get('/api/ext/users/unique_id/U-NOBODY')).body).toEqual(notFound);
  });
});

describe('GET /api/ext/users/external_id/{external_key}/{external_id}', () => {
  it('finds a customer by external key and external ID', async () => {
    const r = await api.get('/api/ext/users/external_id/pos_card/PC-1');
    expect(r.status).toBe(200);
    expect(r.body.member.id).toBe(ALICE);
    expect(r.body.member.external_ids).toEqual({ shopify: '1001', pos_card: 'PC-1' });
  });

  it('answers "Member is not found" for an unmatched external ID', async () => {
    const r = await api.get('/api/ext/users/external_id/shopify/9999');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(notFound);
  });

  it('answers the same "Member is not found" for an unconfigured external key', async () => {
    expect((await api.get('/api/ext/users/external_id/line/1001')).body).toEqual(notFound);
  });

  it('finds an external ID of 255 characters', async () => {
    const long = 'a'.repeat(255);
    await api.put(`/api/ext/users/${BOB}`, { external_ids: { pos_card: long } });
    expect((await api.get(`/api/ext/users/external_id/pos_card/${long}`)).body.member.id).toBe(BOB);
  });

  it('answers "Member is not found" for a withdrawn customer', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    expect((await api.get('/api/ext/users/external_id/shopify/1001')).body).toEqual(notFound);
  });
});
