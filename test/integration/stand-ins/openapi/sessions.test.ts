import { describe, expect, it } from 'vitest';
import { ALICE, BOB, useEmulator } from './http.js';

const { emu, api } = useEmulator();

const login = (body: Record<string, unknown>) => api.post('/api/ext/users/login', body);

describe('POST /api/ext/users/login', () => {
  it('logs the customer in, sets logined_at and answers the detail form without external_ids', async () => {
    const r = await login({ login_id: 'alice', password: 'pass1234' });
    expect(r.status).toBe(200);
    expect(r.body.member).toMatchObject({ id: ALICE, logined: 1, logined_at: '2026-01-15 10:00:00' });
    expect(r.body.member).not.toHaveProperty('external_ids');
  });

  it('accepts the credentials as multipart form fields', async () => {
    const r = await api.call('POST', '/api/ext/users/login', { multipart: { login_id: 'alice', password: 'pass1234' } });
    expect(r.status).toBe(200);
    expect(r.body.member.id).toBe(ALICE);
  });

  it('leaves logined_at untouched for a client with e-mail verification', async () => {
    await emu.patchClient('test-client', { email_verification: true });
    const m = (await login({ login_id: 'alice', password: 'pass1234' })).body.member;
    expect([m.logined, m.logined_at]).toEqual([1, null]);
  });

  it('answers the same wrong-credentials message for an unknown login_id and a wrong password', async () => {
    const unknown = await login({ login_id: 'nobody', password: 'pass1234' });
    const wrong = await login({ login_id: 'alice', password: 'nope1234' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ status: false, errors: 'The login ID or password is incorrect.' });
    expect(wrong.body).toEqual(unknown.body);
  });

  it('refuses a suspended customer (enabled=0) with the locked-account message, whatever the password', async () => {
    await api.put(`/api/ext/users/${ALICE}`, { enabled: 0 });
    for (const password of ['pass1234', 'wrong-one']) {
      expect((await login({ login_id: 'alice', password })).body).toEqual({ status: false, errors: 'This account is locked.' });
    }
  });

  it('refuses a customer in the device-change procedure', async () => {
    await emu.setDeviceChange('test-client', ALICE, true);
    expect((await login({ login_id: 'alice', password: 'pass1234' })).body).toEqual({
      status: false,
      errors: 'This account is in the device change procedure.',
    });
  });

  it('logs the customer in again once taken out of the device-change procedure', async () => {
    await emu.setDeviceChange('test-client', ALICE, true);
    await emu.setDeviceChange('test-client', ALICE, false);
    expect((await login({ login_id: 'alice', password: 'pass1234' })).status).toBe(200);
  });

  it('refuses a login without password with the login-id-required message', async () => {
    expect((await login({ login_id: 'alice' })).body).toEqual({ status: false, errors: ['The login id field is required.'] });
  });

  it('refuses a login without login_id', async () => {
    expect((await login({ password: 'pass1234' })).body.errors).toEqual(['The login id field is required.']);
  });

  it('refuses a customer whose password was never set', async () => {
    await api.post('/api/ext/users', { login_id: 'nopass' });
    expect((await login({ login_id: 'nopass', password: 'anything' })).body.errors).toBe('The login ID or password is incorrect.');
  });
});

describe('POST /api/ext/users/{id}/logout', () => {
  it('answers status true and sets logined to 0', async () => {
    await login({ login_id: 'alice', password: 'pass1234' });
    const r = await api.post(`/api/ext/users/${ALICE}/logout`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: true });
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.logined).toBe(0);
  });

  it('answers "Member is not found" for an unknown customer', async () => {
    expect((await api.post('/api/ext/users/00000000-0000-4000-8000-000000000999/logout')).body.errors).toBe('Member is not found');
  });
});

describe('DELETE /api/ext/users/{id}/resign', () => {
  it('answers 204 with an empty body', async () => {
    const r = await api.del(`/api/ext/users/${ALICE}/resign`);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });

  it('makes every later read of the customer answer "Member is not found"', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    for (const path of [`/api/ext/users/${ALICE}`, '/api/ext/users/unique_id/U-ALICE', '/api/ext/users/external_id/pos_card/PC-1']) {
      expect((await api.get(path)).body, path).toEqual({ status: false, errors: 'Member is not found' });
    }
  });

  it('refuses points for a withdrawn customer', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    expect((await api.post(`/api/ext/users/${ALICE}/points`, { point: 1 })).body.errors).toBe('Member is not found');
  });

  it('answers "Member is not found" to a second resign', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    expect((await api.del(`/api/ext/users/${ALICE}/resign`)).body.errors).toBe('Member is not found');
  });

  it('validates the columns to overwrite and keeps the customer when one is invalid', async () => {
    const r = await api.del(`/api/ext/users/${ALICE}/resign`, { column03: 'not-a-date' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual(['The column03 does not match the format Y-m-d.']);
    expect((await api.get(`/api/ext/users/${ALICE}`)).status).toBe(200);
  });

  it('accepts column overwrites as multipart form fields', async () => {
    const r = await api.call('DELETE', `/api/ext/users/${BOB}/resign`, { multipart: { column01: 'withdrawn' } });
    expect(r.status).toBe(204);
  });

  it('frees the unique_id, login_id and external IDs for new customers', async () => {
    await api.del(`/api/ext/users/${ALICE}/resign`);
    const r = await api.post('/api/ext/users', { unique_id: 'U-ALICE', login_id: 'alice', external_ids: { shopify: '1001' } });
    expect(r.status).toBe(200);
  });
});

describe('GET /api/ext/check/{token}?id= (handover token)', () => {
  it('answers status true for a fresh token and its customer', async () => {
    const token = await emu.handoverToken('test-client', ALICE);
    const r = await api.get(`/api/ext/check/${token}?id=${ALICE}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: true });
  });

  it('accepts a token only once', async () => {
    const token = await emu.handoverToken('test-client', ALICE);
    await api.get(`/api/ext/check/${token}?id=${ALICE}`);
    expect((await api.get(`/api/ext/check/${token}?id=${ALICE}`)).body).toEqual({ status: false, errors: 'Invalid Token' });
  });

  it('answers "Invalid Token" when the id does not match', async () => {
    const token = await emu.handoverToken('test-client', ALICE);
    expect((await api.get(`/api/ext/check/${token}?id=${BOB}`)).body.errors).toBe('Invalid Token');
  });

  it('keeps the token usable after a check with the wrong id', async () => {
    const token = await emu.handoverToken('test-client', ALICE);
    await api.get(`/api/ext/check/${token}?id=${BOB}`);
    expect((await api.get(`/api/ext/check/${token}?id=${ALICE}`)).status).toBe(200);
  });

  it('answers "Invalid Token" for a token that never existed', async () => {
    const r = await api.get(`/api/ext/check/no-such-token?id=${ALICE}`);
    expect(r.status).toBe(400);
    expect(r.body.errors).toBe('Invalid Token');
  });

  it('answers "Token is expired" once its lifetime has passed on the emulator clock', async () => {
    const token = await emu.handoverToken('test-client', ALICE, 60);
    await emu.advanceClock(61);
    const r = await api.get(`/api/ext/check/${token}?id=${ALICE}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: 'Token is expired' });
  });

  it('refuses a check without the id query', async () => {
    const token = await emu.handoverToken('test-client', ALICE);
    expect((await api.get(`/api/ext/check/${token}`)).body.errors).toEqual(['The id field is required.']);
  });

  it("does not accept one client's token from another client", async () => {
    const token = await emu.handoverToken('nopoints', ALICE);
    expect((await api.get(`/api/ext/check/${token}?id=${ALICE}`)).body.errors).toBe('Invalid Token');
  });
});
