import { describe, expect, it } from 'vitest';
import { ALICE, request, structuredError, useEmulator } from './http.js';

const { emu, api } = useEmulator();

/** One request per endpoint of the Open API. */
const ENDPOINTS: [string, string, unknown?][] = [
  ['GET', '/api/ext/users'],
  ['GET', `/api/ext/users/${ALICE}`],
  ['GET', '/api/ext/users/unique_id/U-ALICE'],
  ['GET', '/api/ext/users/external_id/shopify/1001'],
  ['POST', '/api/ext/users', {}],
  ['PUT', `/api/ext/users/${ALICE}`, {}],
  ['DELETE', `/api/ext/users/${ALICE}/external_ids/shopify`],
  ['POST', '/api/ext/users/login', { login_id: 'alice', password: 'pass1234' }],
  ['POST', `/api/ext/users/${ALICE}/logout`],
  ['DELETE', `/api/ext/users/${ALICE}/resign`],
  ['GET', `/api/ext/users/${ALICE}/points`],
  ['GET', `/api/ext/users/${ALICE}/points/expired_list`],
  ['POST', `/api/ext/users/${ALICE}/points`, { point: 1 }],
  ['POST', `/api/ext/users/${ALICE}/points/calculation`, { amount: 1 }],
  ['GET', `/api/ext/check/some-token?id=${ALICE}`],
];

describe('errors common to every endpoint', () => {
  it('answers "Not contracted" on every endpoint once the contract is invalid', async () => {
    await emu.patchClient('test-client', { contracted: false });
    for (const [method, path, body] of ENDPOINTS) {
      const r = await api.call(method, path, body === undefined ? {} : { body });
      expect([r.status, r.body], `${method} ${path}`).toEqual([400, { status: false, errors: 'Not contracted' }]);
    }
  });

  it('answers the invalid-token 401 on every endpoint without a token', async () => {
    for (const [method, path, body] of ENDPOINTS) {
      const r = await request(emu.url, method, path, body === undefined ? {} : { body });
      expect(r.status, `${method} ${path}`).toBe(401);
      expect(r.headers.get('www-authenticate'), `${method} ${path}`).toBe('Bearer error="invalid_token"');
    }
  });

  it('answers the invalid-token 401, not a body error, to an unreadable body sent with a bad token', async () => {
    const r = await request(emu.url, 'POST', '/api/ext/users', { token: 'made-up', body: '{"login_id":' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error_code: 'API-OPENAPI16' });
  });

  it('answers "Member is not found" before reading the body of a request for an unknown customer', async () => {
    const r = await api.call('POST', '/api/ext/users/nobody/points', { body: '{"point":' });
    expect([r.status, r.body]).toEqual([400, { status: false, errors: 'Member is not found' }]);
  });

  it('answers 405 with API-OPENAPI09 for a method the path does not allow', async () => {
    const r = await api.call('PATCH', `/api/ext/users/${ALICE}`, { body: {} });
    expect(r.status).toBe(405);
    expect(r.body).toEqual(structuredError('Method Not Allowed', 'API-OPENAPI09'));
  });

  it('answers 405 to GET on the token endpoint', async () => {
    expect((await request(emu.url, 'GET', '/api/ext/token')).status).toBe(405);
  });

  it('answers 404 for an unknown URL', async () => {
    const r = await api.get('/api/ext/orders');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: false, error_code: 'API-OPENAPI08' });
  });

  it('answers JSON in UTF-8', async () => {
    const r = await api.get(`/api/ext/users/${ALICE}`);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('reads a JSON body sent with a charset parameter', async () => {
    const r = await api.call('POST', `/api/ext/users/${ALICE}/points`, {
      body: JSON.stringify({ point: 3 }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(r.body.member.point).toBe(3);
  });

  it('answers a body of the wrong type as missing parameters', async () => {
    const r = await api.call('POST', `/api/ext/users/${ALICE}/points`, {
      body: 'point=3',
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.body.errors).toEqual(['The point field is required.']);
  });

  it('refuses a JSON body that is not an object', async () => {
    const r = await api.post(`/api/ext/users/${ALICE}/points`, [1, 2]);
    expect(r.status).toBe(400);
  });
});
