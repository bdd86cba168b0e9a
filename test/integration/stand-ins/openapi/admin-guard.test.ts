/**
 * The admin API has no authentication (stand-ins/openapi/README.md, "Admin API"): it answers only requests that come
 * from this machine as such. A DNS-rebinding page (foreign Host), a cross-site page (any Origin) and a
 * form post (non-JSON body) are refused before anything changes. The spec API is unaffected.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../../support/emulator.js';
import { rawRequest } from '../../../support/raw-http.js';

let emulator: TestEmulator;
let port: string;
const FAULT = { path: '^/api/ext/users$', fault: 'error_500', times: 1 } as const;

beforeAll(async () => {
  emulator = await startTestEmulator();
  port = new URL(emulator.url).port;
});
afterAll(async () => emulator.close());
beforeEach(async () => emulator.reset());

/** Whether the fault added before the request is still there (a reset would have removed it). */
async function faultSurvives(): Promise<boolean> {
  const token = await rawRequest(
    `${emulator.url}/api/ext/token`,
    'POST',
    { 'content-type': 'application/json' },
    JSON.stringify({ grant_type: 'client_credentials', client_id: 'test-client', client_secret: 'test-secret' }),
  );
  const { access_token } = JSON.parse(token.body) as { access_token: string };
  const r = await rawRequest(`${emulator.url}/api/ext/users`, 'GET', { authorization: `Bearer ${access_token}`, 'user-agent': 't' });
  return r.status === 500;
}

describe('emulator admin API: loopback callers only', () => {
  it('refuses a request whose Host is not loopback (DNS rebinding) with 403, and resets nothing', async () => {
    await emulator.addFault(FAULT);
    const r = await rawRequest(`${emulator.url}/__emulator/reset`, 'POST', { host: `rebind.evil.example:${port}` });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toMatch(/loopback Host/);
    expect(await faultSurvives()).toBe(true);
  });

  it('refuses any request that carries an Origin header with 403', async () => {
    const r = await rawRequest(`${emulator.url}/__emulator/stats`, 'GET', { origin: 'http://evil.example' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toMatch(/Origin/);
  });

  it('refuses a POST whose body is not declared JSON with 415, and adds nothing', async () => {
    const r = await rawRequest(`${emulator.url}/__emulator/faults`, 'POST', { 'content-type': 'text/plain' }, JSON.stringify(FAULT));
    expect(r.status).toBe(415);
    expect(await faultSurvives()).toBe(false);
  });

  for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
    it(`serves a loopback Host ${host} with its port`, async () => {
      const r = await rawRequest(`${emulator.url}/__emulator/clock`, 'GET', { host: `${host}:${port}` });
      expect(r.status).toBe(200);
    });
  }

  it('still takes an empty POST /__emulator/reset without a content type, as the contract allows', async () => {
    const r = await rawRequest(`${emulator.url}/__emulator/reset`, 'POST', {});
    expect(r.status).toBe(204);
  });

  it('leaves the spec API as it was: a request with a foreign Host and an Origin is served', async () => {
    const r = await rawRequest(
      `${emulator.url}/api/ext/token`,
      'POST',
      { host: `api.example.com:${port}`, origin: 'http://evil.example', 'content-type': 'application/json' },
      JSON.stringify({ grant_type: 'client_credentials', client_id: 'test-client', client_secret: 'test-secret' }),
    );
    expect(r.status).toBe(200);
  });
});
