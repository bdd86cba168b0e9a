import { describe, expect, it } from 'vitest';
import { ALICE, fixtureConfig, request, structuredError, useEmulator } from './http.js';

const { emu } = useEmulator(fixtureConfig(), { connect: false });

const goodBody = { grant_type: 'client_credentials', client_id: 'test-client', client_secret: 'test-secret' };
const authFailed = structuredError('Authentication failed', 'API-OPENAPI16');

describe('POST /api/ext/token', () => {
  it('issues a bearer token valid for 86400 seconds with a null scope and no refresh token', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: goodBody });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 86400, scope: null });
    expect(r.body.access_token.length).toBeGreaterThan(0);
  });

  it('accepts the credentials as form fields', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { form: goodBody });
    expect(r.status).toBe(200);
    expect(r.body.token_type).toBe('Bearer');
  });

  it('accepts any of the client secrets of the contract', async () => {
    await emu.patchClient('test-client', { client_secrets: ['first-system', 'second-system'] });
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: { ...goodBody, client_secret: 'second-system' } });
    expect(r.status).toBe(200);
  });

  it('issues a new token per request and keeps the earlier ones valid', async () => {
    const a = (await request(emu.url, 'POST', '/api/ext/token', { body: goodBody })).body.access_token;
    const b = (await request(emu.url, 'POST', '/api/ext/token', { body: goodBody })).body.access_token;
    expect(a).not.toBe(b);
    for (const token of [a, b]) expect((await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token })).status).toBe(200);
  });

  it('answers 400 with the authentication-failed body when grant_type is not client_credentials', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: { ...goodBody, grant_type: 'password' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(authFailed);
    expect(r.headers.get('www-authenticate')).toBeNull();
  });

  it('answers 400 when client_id is missing', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: { grant_type: 'client_credentials', client_secret: 'x' } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual(authFailed);
  });

  it('answers the token request failure 400 to a body that is not valid JSON', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: '{"grant_type":' });
    expect([r.status, r.body]).toEqual([400, authFailed]);
  });

  it('answers 401 with a Basic realm="token" challenge and the same body when the secret is wrong', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: { ...goodBody, client_secret: 'wrong' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Basic realm="token"');
    expect(r.body).toEqual(authFailed);
  });

  it('answers 401 for an unknown client_id', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: { ...goodBody, client_id: 'nobody' } });
    expect(r.status).toBe(401);
  });

  it('answers "Not contracted" to a client whose contract is invalid', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', {
      body: { ...goodBody, client_id: 'ended', client_secret: 'ended-secret' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: 'Not contracted' });
  });
});

describe('access tokens on the other endpoints', () => {
  async function token(): Promise<string> {
    return (await request(emu.url, 'POST', '/api/ext/token', { body: goodBody })).body.access_token;
  }

  it('refuses a request without a token with the invalid-token 401, JSON sent as text/html', async () => {
    const r = await request(emu.url, 'GET', `/api/ext/users/${ALICE}`);
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(JSON.parse(r.text)).toEqual(authFailed);
  });

  it('refuses an unknown token with the invalid-token 401', async () => {
    const r = await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: 'made-up' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('keeps a token valid until just before 86400 seconds on the emulator clock', async () => {
    const t = await token();
    await emu.advanceClock(86_399);
    expect((await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: t })).status).toBe(200);
  });

  it('refuses a token once 86400 seconds have passed on the emulator clock', async () => {
    const t = await token();
    await emu.advanceClock(86_400);
    const r = await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: t });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.text).error_code).toBe('API-OPENAPI16');
  });

  it('invalidates every token on reset', async () => {
    const t = await token();
    await emu.reset();
    expect((await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: t })).status).toBe(401);
  });

  it('answers "Not contracted" on an endpoint once the contract has become invalid', async () => {
    const t = await token();
    await emu.patchClient('test-client', { contracted: false });
    const r = await request(emu.url, 'GET', `/api/ext/users/${ALICE}`, { token: t });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: false, errors: 'Not contracted' });
  });
});
