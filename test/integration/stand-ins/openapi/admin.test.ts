import { describe, expect, it } from 'vitest';
import { testClient } from '../../../support/emulator.js';
import { ALICE, BOB, connect, fixtureConfig, NOW, useEmulator } from './http.js';

const { emu, api, reconnect } = useEmulator();

describe('clock', () => {
  it('starts frozen at the configured now', async () => {
    expect(await emu.now()).toBe(NOW);
  });

  it('sets the clock to a given time', async () => {
    await emu.setClock('2026-07-01 00:00:00');
    expect(await emu.now()).toBe('2026-07-01 00:00:00');
  });

  it('advances the clock by a number of seconds and answers the new time', async () => {
    const r = await emu.admin<{ now: string }>('POST', '/clock', { advance_seconds: 3_661 });
    expect(r).toEqual({ status: 200, body: { now: '2026-01-15 11:01:01' } });
  });

  it('refuses a time that is not Y-m-d H:i:s', async () => {
    expect((await emu.admin('POST', '/clock', { now: '2026-07-01' })).status).toBe(400);
  });

  it('stamps API records with the emulator clock', async () => {
    await emu.setClock('2026-03-03 03:03:03');
    await reconnect();
    const m = (await api.post('/api/ext/users', {})).body.member;
    expect(m.created_at).toBe('2026-03-03 03:03:03');
  });

  it('runs on real time when the configuration has no now', async () => {
    await emu.reset({ clients: [testClient()] });
    const [date, time] = (await emu.now()).split(' ');
    const shown = Date.parse(`${date}T${time}Z`);
    expect(Math.abs(shown - Date.now())).toBeLessThan(60_000);
  });
});

describe('POST /__emulator/reset', () => {
  it('restores the starting configuration when sent without a body', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    await emu.reset();
    await reconnect();
    expect((await api.get(`/api/ext/users/${ALICE}`)).status).toBe(200);
  });

  it('replaces all state with a new configuration', async () => {
    await emu.reset({ now: NOW, clients: [testClient({ client_id: 'other', client_secrets: ['s'] })] });
    expect((await connect(emu, 'other', 's')).token).toBeTruthy();
    await expect(connect(emu)).rejects.toThrow(/401/);
  });

  it('answers 204', async () => {
    expect((await emu.admin('POST', '/reset')).status).toBe(204);
  });

  it('refuses an invalid configuration with 400 and keeps the current state', async () => {
    const r = await emu.admin<{ error: string }>('POST', '/reset', { clients: [{ client_id: 'x' }] });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/client_secrets/);
    expect((await api.get(`/api/ext/users/${ALICE}`)).status).toBe(200);
  });

  it('refuses a configuration whose seed customers break an Open API rule', async () => {
    const bad = fixtureConfig({ members: [{ external_ids: { shopify: 'a b' } }] });
    const r = await emu.admin<{ error: string }>('POST', '/reset', bad);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/external_ids\.shopify format is invalid/);
  });
});

describe('PATCH /__emulator/clients/{client_id}', () => {
  it('answers the client configuration with the change applied', async () => {
    const r = await emu.admin<Record<string, unknown>>('PATCH', '/clients/test-client', { ranks: { regular: 0.1, gold: 0.2 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ client_id: 'test-client', ranks: { regular: 0.1, gold: 0.2 }, uses_points: true });
  });

  it('changes the rate that later calculations use', async () => {
    await emu.patchClient('test-client', { ranks: { regular: 0.1, gold: 0.2 } });
    expect((await api.post(`/api/ext/users/${ALICE}/points/calculation`, { amount: 100 })).body.member.point).toBe(10);
  });

  it('turns the point feature off', async () => {
    await emu.patchClient('test-client', { uses_points: false });
    expect((await api.post(`/api/ext/users/${ALICE}/points`, { point: 1 })).body.errors).toBe('Not available for points');
  });

  it('deletes the values of a removed external key for every customer', async () => {
    await emu.patchClient('test-client', { external_keys: ['shopify'] });
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.external_ids).toEqual({ shopify: '1001' });
  });

  it("accepts the client's own client_id in a patch", async () => {
    expect((await emu.admin('PATCH', '/clients/test-client', { client_id: 'test-client', contracted: true })).status).toBe(200);
  });

  it('refuses a patch that changes the client_id', async () => {
    expect((await emu.admin('PATCH', '/clients/test-client', { client_id: 'renamed' })).status).toBe(400);
  });

  it('answers 404 for an unknown client', async () => {
    expect((await emu.admin('PATCH', '/clients/nobody', { contracted: false })).status).toBe(404);
  });

  it('refuses members in a patch', async () => {
    expect((await emu.admin('PATCH', '/clients/test-client', { members: [] })).status).toBe(400);
  });

  it('refuses a default rank that has no rate', async () => {
    expect((await emu.admin('PATCH', '/clients/test-client', { default_rank: 'bronze' })).status).toBe(400);
  });
});

describe('handover tokens and device change', () => {
  it('issues a handover token with 201', async () => {
    const r = await emu.admin<{ token: string }>('POST', '/clients/test-client/handover-tokens', { member_id: BOB, ttl_seconds: 60 });
    expect(r.status).toBe(201);
    expect(r.body.token.length).toBeGreaterThan(0);
  });

  it('refuses a handover token for an unknown customer with 404', async () => {
    const r = await emu.admin('POST', '/clients/test-client/handover-tokens', { member_id: 'nobody' });
    expect(r.status).toBe(404);
  });

  it('shows the device-change procedure in the list item', async () => {
    await emu.setDeviceChange('test-client', BOB, true);
    const item = (await api.get('/api/ext/users')).body.members.find((m: { id: string }) => m.id === BOB);
    expect(item.change_status_name).toBe('Device change in progress');
  });

  it('answers 404 to a device change for an unknown customer', async () => {
    expect((await emu.admin('PATCH', '/clients/test-client/members/nobody', { device_change: true })).status).toBe(404);
  });

  it('answers 404 to an unknown admin call', async () => {
    expect((await emu.admin('GET', '/nothing-here')).status).toBe(404);
  });
});
