import { request } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiHandler, type LocalHttpServer, startLocalHttpServer } from '../../../../local/http/index.js';

const NOW = Date.UTC(2026, 10, 22, 10, 4, 5);

let servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(
  handler: ApiHandler,
  extra: { ready?: () => boolean; maxPayloadBytes?: number; errors?: unknown[] } = {},
): Promise<LocalHttpServer> {
  const server = await startLocalHttpServer({
    port: 0,
    apiRoutes: { 'POST /webhooks/shopify': handler, 'POST /webhooks/pos': handler },
    localRoutes: { 'GET /__local/ping': () => ({ status: 200, headers: {}, body: Buffer.from('pong') }) },
    isReady: extra.ready ?? (() => true),
    now: () => NOW,
    ...(extra.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: extra.maxPayloadBytes }),
    onHandlerError: (_route, e) => extra.errors?.push(e),
  });
  servers.push(server);
  return server;
}

/** A handler that keeps the event it was given and answers 202. */
function recorder(result: APIGatewayProxyResultV2<unknown> = { statusCode: 202, body: '{}' }) {
  const events: APIGatewayProxyEventV2[] = [];
  const handler: ApiHandler = async (event) => {
    events.push(event);
    return result;
  };
  return { events, handler };
}

/** A raw request, so repeated headers and exact bytes reach the server as written. */
function send(
  url: string,
  options: { method?: string; path: string; headers?: [string, string][]; body?: Buffer },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path, url);
    const req = request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: options.method ?? 'POST' },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    for (const [name, value] of options.headers ?? []) req.appendHeader(name, value);
    req.end(options.body);
  });
}

describe('local API Gateway', () => {
  it('hands the handler the payload 2.0 event AWS builds for the request', async () => {
    const { events, handler } = recorder();
    const server = await serve(handler);
    await send(server.url, {
      path: '/webhooks/shopify?a=1&b=2&a=3',
      headers: [
        ['X-Shopify-Topic', 'orders/paid'],
        ['X-Multi', 'one'],
        ['X-Multi', 'two'],
        ['User-Agent', 'Shopify-Captain-Hook'],
        ['Content-Type', 'application/json'],
      ],
      body: Buffer.from('{"id":1}'),
    });
    const event = events[0]!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /webhooks/shopify',
      rawPath: '/webhooks/shopify',
      rawQueryString: 'a=1&b=2&a=3',
      queryStringParameters: { a: '1,3', b: '2' },
      body: '{"id":1}',
      isBase64Encoded: false,
      headers: {
        'x-shopify-topic': 'orders/paid',
        'x-multi': 'one,two',
        'content-type': 'application/json',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-port': String(server.port),
      },
      requestContext: {
        routeKey: 'POST /webhooks/shopify',
        stage: '$default',
        http: { method: 'POST', path: '/webhooks/shopify', sourceIp: '127.0.0.1', userAgent: 'Shopify-Captain-Hook', protocol: 'HTTP/1.1' },
        time: '22/Nov/2026:10:04:05 +0000',
        timeEpoch: NOW,
      },
    });
    expect(event.requestContext.requestId).toMatch(/^[A-Za-z0-9=]{16}$/);
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('passes a body that is not UTF-8 as base64 the handler can decode to the exact bytes', async () => {
    const { events, handler } = recorder();
    const server = await serve(handler);
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d]);
    await send(server.url, { path: '/webhooks/pos', body: bytes });
    expect(events[0]?.isBase64Encoded).toBe(true);
    expect(Buffer.from(events[0]?.body ?? '', 'base64').equals(bytes)).toBe(true);
  });

  it('moves cookies out of the headers into the cookies list', async () => {
    const { events, handler } = recorder();
    const server = await serve(handler);
    await send(server.url, { path: '/webhooks/pos', headers: [['Cookie', 'a=1; b=2']] });
    expect(events[0]?.cookies).toEqual(['a=1', 'b=2']);
    expect(events[0]?.headers.cookie).toBeUndefined();
  });

  it('writes the handler structured result back: status, headers, base64 body and cookies', async () => {
    const { handler } = recorder({
      statusCode: 401,
      headers: { 'Content-Type': 'application/json', 'X-Count': 3 },
      body: Buffer.from('{"error":"invalid_signature"}').toString('base64'),
      isBase64Encoded: true,
      cookies: ['s=1; Path=/'],
    });
    const server = await serve(handler);
    const res = await send(server.url, { path: '/webhooks/shopify' });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['x-count']).toBe('3');
    expect(res.headers['set-cookie']).toEqual(['s=1; Path=/']);
    expect(res.body).toBe('{"error":"invalid_signature"}');
  });

  it('answers 200 with a JSON body when the handler returns a plain object', async () => {
    const { handler } = recorder({ accepted: true } as unknown as APIGatewayProxyResultV2<unknown>);
    const server = await serve(handler);
    const res = await send(server.url, { path: '/webhooks/shopify' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ accepted: true });
  });

  it('answers the health check 503 until everything is up, then 200', async () => {
    let ready = false;
    const server = await serve(recorder().handler, { ready: () => ready });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(503);
    ready = true;
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it.each([
    ['an unknown path', 'POST', '/webhooks/unknown'],
    ['a known path with another method', 'GET', '/webhooks/shopify'],
  ])('answers %s 404 in JSON without calling a handler', async (_label, method, path) => {
    const { events, handler } = recorder();
    const server = await serve(handler);
    const res = await send(server.url, { method, path });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ message: 'Not Found' });
    expect(events).toHaveLength(0);
  });

  it('answers 500 like API Gateway when the handler throws, without the error text', async () => {
    const errors: unknown[] = [];
    const server = await serve(
      async () => {
        throw new Error('boom: internal detail');
      },
      { errors },
    );
    const res = await send(server.url, { path: '/webhooks/shopify' });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({ message: 'Internal Server Error' });
    expect(errors).toHaveLength(1);
  });

  it('answers 503 like API Gateway when the handler outlives the integration timeout', async () => {
    const server = await startLocalHttpServer({
      port: 0,
      apiRoutes: { 'POST /webhooks/pos': () => new Promise(() => {}) },
      isReady: () => true,
      integrationTimeoutMs: 50,
    });
    servers.push(server);
    const res = await send(server.url, { path: '/webhooks/pos' });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.body)).toEqual({ message: 'Service Unavailable' });
  });

  it('refuses a payload over the limit with 413 before any handler runs', async () => {
    const { events, handler } = recorder();
    const server = await serve(handler, { maxPayloadBytes: 1024 });
    const res = await send(server.url, { path: '/webhooks/shopify', body: Buffer.alloc(2048, 0x61) });
    expect(res.status).toBe(413);
    expect(events).toHaveLength(0);
  });

  it('serves local routes beside the API routes', async () => {
    const server = await serve(recorder().handler);
    const res = await fetch(`${server.url}/__local/ping`);
    expect(await res.text()).toBe('pong');
  });
});
