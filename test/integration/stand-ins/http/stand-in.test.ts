import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { faultFrom, type JsonAnswer, type RunningServer, serveStandIn, standInAdmin } from '../../../../stand-ins/http/index.js';

/** The helper every shop-side stand-in is served by, over real HTTP: what a stand-in's callers see whatever its API. */
describe('a stand-in served by stand-ins/http', () => {
  let served: RunningServer | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  const start = async (handle: Parameters<typeof serveStandIn>[0], maxBodyBytes = 64) => {
    served = await serveStandIn(handle, { maxBodyBytes });
    return served.url;
  };
  const echo = (req: { method?: string; url?: string }, body: Buffer): JsonAnswer => ({
    status: 200,
    body: { method: req.method, url: req.url, body: body.toString('utf8') },
  });

  it('answers the handler’s status, JSON body and extra headers such as Retry-After', async () => {
    const url = await start(() => ({ status: 429, body: { errors: 'slow down' }, headers: { 'retry-after': '7' } }));
    const res = await fetch(`${url}/anything`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('retry-after'), await res.json()]).toEqual([
      429,
      'application/json; charset=utf-8',
      '7',
      { errors: 'slow down' },
    ]);
  });

  it('hands the handler the raw body whatever its Content-Type, with the method and the path and query as sent', async () => {
    const url = await start(echo);
    const sent = [
      await fetch(`${url}/a/b?x=1`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"point":"5"}' }),
      await fetch(`${url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }),
      await fetch(`${url}/odd`, { method: 'POST', headers: { 'content-type': 'not a media type' }, body: 'raw' }),
    ];
    expect(await Promise.all(sent.map((r) => r.json()))).toEqual([
      { method: 'PATCH', url: '/a/b?x=1', body: '{"point":"5"}' },
      { method: 'POST', url: '/token', body: 'a=1' },
      { method: 'POST', url: '/odd', body: 'raw' },
    ]);
  });

  it('answers 413 to a body over the limit, without calling the handler', async () => {
    let calls = 0;
    const url = await start(() => {
      calls += 1;
      return { status: 200, body: {} };
    }, 8);
    const res = await fetch(`${url}/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"123456789"' });
    expect([res.status, await res.json(), calls]).toEqual([413, { errors: 'Request Entity Too Large' }, 0]);
  });

  it('answers 500 when the handler throws, and keeps serving', async () => {
    const url = await start((req) => {
      if (req.url === '/boom') throw new Error('a bug');
      return { status: 200, body: { ok: true } };
    });
    const boom = await fetch(`${url}/boom`);
    expect([boom.status, await boom.json()]).toEqual([500, { errors: 'Internal Server Error' }]);
    expect((await fetch(`${url}/fine`)).status).toBe(200);
  });

  it('cuts the connection with no answer for a destroy fault', async () => {
    const url = await start(() => ({ status: 200, body: null, destroy: true }));
    await expect(fetch(`${url}/x`, { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  it('still hands a path the router cannot decode to the handler', async () => {
    const url = new URL(await start(echo));
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: url.hostname, port: url.port, path: '/v2/orders/%zz' }, (res) => {
        let body = '';
        res.on('data', (c) => {
          body += String(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { method: 'GET', url: '/v2/orders/%zz', body: '' }]);
  });

  it('keeps the test surface to POSTs with a JSON body from a loopback caller without an Origin', async () => {
    const url = await start(
      (req, body) => standInAdmin(req, body, '/__t/', (path, json) => ({ status: 201, body: { path, json } })) ?? echo(req, body),
    );
    const post = (headers: Record<string, string>, body = '{"a":1}') => fetch(`${url}/__t/x`, { method: 'POST', headers, body });
    const answers = [
      await fetch(`${url}/__t/x`),
      await post({ 'content-type': 'application/json', origin: 'https://evil.example' }),
      await post({ 'content-type': 'text/plain' }),
      await post({ 'content-type': 'application/json' }, 'not json'),
      await post({ 'content-type': 'application/json' }),
    ];
    expect(await Promise.all(answers.map(async (r) => [r.status, await r.json()]))).toEqual([
      [405, { error: 'use POST' }],
      [403, { error: 'admin routes refuse requests with an Origin header (cross-site)' }],
      [415, { error: 'admin requests with a body must be Content-Type: application/json' }],
      [400, { error: 'the body is not JSON' }],
      [201, { path: '/__t/x', json: { a: 1 } }],
    ]);
  });

  it('reads a fault as {status, times, retry_after?} and refuses anything else', () => {
    expect([faultFrom({ status: 503, times: 2, retry_after: '3' }), faultFrom({ status: '503' })]).toEqual([
      { status: 503, times: 2, retryAfter: '3' },
      { status: 422, body: { error: 'expected {status, times}' } },
    ]);
  });
});
