/**
 * `/__local/*` (the dead letters, with card numbers, and redrive) answers only requests that come
 * from this machine as such; the webhook routes beside it are unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalHttpServer, startLocalHttpServer } from '../../../../local/http/index.js';
import { rawRequest } from '../../../support/raw-http.js';

let server: LocalHttpServer;
let redrives = 0;

beforeAll(async () => {
  server = await startLocalHttpServer({
    port: 0,
    apiRoutes: { 'POST /webhooks/shopify': async () => ({ statusCode: 202, body: '{"status":"accepted"}' }) },
    localRoutes: {
      'GET /__local/dlq': () => ({ status: 200, headers: {}, body: Buffer.from('{"messages":[]}') }),
      'POST /__local/redrive': () => {
        redrives++;
        return { status: 200, headers: {}, body: Buffer.from('{"moved":0}') };
      },
    },
    isReady: () => true,
  });
});
afterAll(async () => server.close());

describe('local admin routes: loopback callers only', () => {
  it('refuses a foreign Host (DNS rebinding) with 403', async () => {
    const r = await rawRequest(`${server.url}/__local/dlq`, 'GET', { host: `rebind.evil.example:${server.port}` });
    expect(r.status).toBe(403);
  });

  it('refuses a request with an Origin with 403, and redrives nothing', async () => {
    const before = redrives;
    const r = await rawRequest(`${server.url}/__local/redrive`, 'POST', { origin: 'http://evil.example' });
    expect(r.status).toBe(403);
    expect(redrives).toBe(before);
  });

  it('refuses a POST with a non-JSON body with 415', async () => {
    const r = await rawRequest(`${server.url}/__local/redrive`, 'POST', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1');
    expect(r.status).toBe(415);
  });

  it('serves localhost with its port, and an empty POST', async () => {
    expect((await rawRequest(`${server.url}/__local/dlq`, 'GET', { host: `localhost:${server.port}` })).status).toBe(200);
    expect((await rawRequest(`${server.url}/__local/redrive`, 'POST', {})).status).toBe(200);
  });

  it('leaves the webhook routes as they were: foreign Host and Origin still served', async () => {
    const r = await rawRequest(
      `${server.url}/webhooks/shopify`,
      'POST',
      { host: 'shop.ngrok.example', origin: 'https://x.example', 'content-type': 'application/json' },
      '{}',
    );
    expect(r.status).toBe(202);
  });
});
