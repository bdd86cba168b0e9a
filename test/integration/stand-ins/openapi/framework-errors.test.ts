/**
 * Requests the HTTP framework itself refuses (an unreadable URL, an over-long path parameter, a body it
 * cannot take, a request that is not HTTP): they answer in the Open API's error shapes, never Fastify's own.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { ALICE, type Reply, request, useEmulator } from './http.js';

const { emu, api } = useEmulator();

/** Sends `head` (and `body`) on a raw socket and returns everything the server writes back. */
function rawExchange(head: string, body = ''): Promise<{ status: number; headers: string; body: Reply['body'] }> {
  const { hostname, port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(head + body));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (out += d));
    socket.on('error', reject);
    socket.on('close', () => {
      const split = out.indexOf('\r\n\r\n');
      const headers = out.slice(0, split);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: JSON.parse(out.slice(split + 4)) });
    });
  });
}

const MiB = 1024 * 1024;

describe('a path with malformed percent-encoding', () => {
  it('answers 400 in the simple shape naming the customer id', async () => {
    const r = await api.get('/api/ext/users/%ZZ');
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The id must be valid percent-encoded UTF-8.'] }]);
  });

  it('answers 400 in the simple shape naming the unique_id', async () => {
    const r = await api.get('/api/ext/users/unique_id/50%off');
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The unique id must be valid percent-encoded UTF-8.'] }]);
  });

  it('answers 400 for an escape that is not UTF-8', async () => {
    const r = await api.get('/api/ext/users/external_id/shopify/%FF');
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The external id must be valid percent-encoded UTF-8.'] }]);
  });

  it('answers the invalid-token 401 first when the access token is bad', async () => {
    const r = await request(emu.url, 'GET', '/api/ext/users/%ZZ', { token: 'made-up' });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ status: false, error_code: 'API-OPENAPI16' });
  });

  it('answers "Not contracted" first for a client whose contract is invalid', async () => {
    await emu.patchClient('test-client', { contracted: false });
    const r = await api.get('/api/ext/users/%ZZ');
    expect([r.status, r.body]).toEqual([400, { status: false, errors: 'Not contracted' }]);
  });

  it('counts under the route its path has', async () => {
    await api.get('/api/ext/users/%ZZ/points');
    expect((await emu.stats('test-client'))?.routes['GET /api/ext/users/{id}/points']).toEqual({ total: 1, max_per_minute: 1 });
  });

  it('answers the structured 404 when the path is no endpoint', async () => {
    const r = await api.get('/api/ext/%ZZ/users');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: false, error_code: 'API-OPENAPI08' });
  });

  it('answers the structured 405 when the path is an endpoint of another method', async () => {
    const r = await api.call('PATCH', '/api/ext/users/%ZZ');
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ status: false, error_code: 'API-OPENAPI09' });
  });
});

describe('a path parameter over 2048 characters', () => {
  it('answers 400 in the simple shape naming the parameter', async () => {
    const r = await api.get(`/api/ext/users/external_id/shopify/${'9'.repeat(2049)}`);
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The external id may not be greater than 2048 characters.'] }]);
  });

  it('is looked up like any other at exactly 2048 characters', async () => {
    const r = await api.get(`/api/ext/users/external_id/shopify/${'9'.repeat(2048)}`);
    expect([r.status, r.body]).toEqual([400, { status: false, errors: 'Member is not found' }]);
  });

  it('counts under its route', async () => {
    await api.get(`/api/ext/users/${'a'.repeat(3000)}`);
    expect((await emu.stats('test-client'))?.routes['GET /api/ext/users/{id}']?.total).toBe(1);
  });
});

describe('a body over 1 MiB', () => {
  const big = JSON.stringify({ point: 1, title: 'x'.repeat(MiB) });

  it('answers 400 in the simple shape', async () => {
    const r = await api.call('POST', `/api/ext/users/${ALICE}/points`, { body: big });
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The request body may not be greater than 1048576 bytes.'] }]);
  });

  it('changes nothing', async () => {
    await api.call('POST', `/api/ext/users/${ALICE}/points`, { body: big });
    expect((await api.get(`/api/ext/users/${ALICE}`)).body.member.point).toBe(0);
  });

  it('answers the invalid-token 401 first when the access token is bad', async () => {
    const r = await request(emu.url, 'POST', `/api/ext/users/${ALICE}/points`, { token: 'made-up', body: big });
    expect(r.status).toBe(401);
  });

  it('counts under its route', async () => {
    await api.call('POST', `/api/ext/users/${ALICE}/points`, { body: big });
    expect((await emu.stats('test-client'))?.routes['POST /api/ext/users/{id}/points']?.total).toBe(1);
  });

  it("answers the token endpoint's 400 at the token endpoint", async () => {
    const r = await request(emu.url, 'POST', '/api/ext/token', { body: big });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: false, error_code: 'API-OPENAPI16' });
  });
});

describe('a body with an empty Content-Type', () => {
  it('is not read, like any other content type the API does not take', async () => {
    const r = await rawExchange(
      `POST /api/ext/users/${ALICE}/points HTTP/1.1\r\nHost: x\r\nUser-Agent: t\r\nAuthorization: Bearer ${api.token}\r\n` +
        'Content-Type: \r\nContent-Length: 11\r\nConnection: close\r\n\r\n',
      '{"point":1}',
    );
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The point field is required.'] }]);
  });
});

describe('a request that is not HTTP', () => {
  it('answers 400 in the simple shape', async () => {
    const r = await rawExchange('HELLO THERE\r\n\r\n');
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The request is not valid HTTP.'] }]);
  });

  it('answers 400 in the simple shape when its headers are too large', async () => {
    const r = await rawExchange(`GET /api/ext/users HTTP/1.1\r\nHost: x\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect([r.status, r.body]).toEqual([400, { status: false, errors: ['The request line and headers are too large.'] }]);
  });

  it('declares its JSON body', async () => {
    const r = await rawExchange('HELLO THERE\r\n\r\n');
    expect(r.headers).toMatch(/\r\ncontent-type: application\/json; charset=utf-8/i);
  });
});
