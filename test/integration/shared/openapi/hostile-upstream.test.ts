/**
 * A hostile or broken upstream, played by a real local HTTP server: answers too large to hold, and
 * answers trickled so slowly that only an overall deadline ends them.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearTokenCache, createOpenApiClient, staticCredentials, type OpenApiClientOptions } from '../../../../shared/openapi/index.js';

const MEMBER = '8f6d2c1e-0001-4000-8000-000000000001';
type Behaviour = (res: ServerResponse) => void;
let behaviour: Behaviour = (res) => res.end('{}');
let server: Server;
let url: string;
let served = 0;

let accessToken = 'tok';
const token = () => JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: 3600 });

/** Writes `total` bytes in 64 KiB chunks as fast as the socket takes them. */
function huge(total: number, status = 200): Behaviour {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    pump();
  };
}

/** One byte every `everyMs`: never idle long enough for a body timeout. */
function trickle(everyMs: number): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), everyMs);
    res.on('close', () => clearInterval(t));
  };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/api/ext/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(token());
      return;
    }
    served++;
    behaviour(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  clearTokenCache();
  accessToken = 'tok';
  served = 0;
});

const client = (opts: Partial<OpenApiClientOptions> = {}) =>
  createOpenApiClient({ credentials: staticCredentials({ baseUrl: url, clientId: 'c', clientSecret: 's' }), retryBaseMs: 1, ...opts });

describe('Open API client against a hostile upstream', () => {
  it('refuses a 2xx answer larger than 1 MiB as invalid_response, without reading it whole', async () => {
    behaviour = huge(50 * 1024 * 1024);
    const c = client({ readRetries: 0 });
    const e = await c.getMember(MEMBER).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'invalid_response', executed: 'unknown' });
    expect(String((e as Error).message)).toMatch(/larger than 1048576 bytes/);
  });

  it('refuses a huge error answer too, keeping its status', async () => {
    behaviour = huge(20 * 1024 * 1024, 500);
    const c = client({ readRetries: 0 });
    const e = await c.grantPoints(MEMBER, { point: 1 }).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'invalid_response', status: 500, executed: 'unknown' });
  });

  it('ends a trickled answer at the overall deadline of the call, as a timeout', async () => {
    behaviour = trickle(50);
    const c = client({ readRetries: 0, callTimeoutMs: 600 });
    const started = Date.now();
    const e = await c.getMember(MEMBER).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'timeout', executed: 'unknown' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('starts no call when the invocation budget has too little time left, and says nothing was sent', async () => {
    behaviour = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const c = client({ readRetries: 0, remainingMs: () => 200, minCallMs: 500 });
    const e = await c.grantPoints(MEMBER, { point: 1 }).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'timeout', executed: 'no' });
    expect(served).toBe(0);
  });

  it('cuts a call short at the invocation budget even when its own deadline is longer', async () => {
    behaviour = trickle(50);
    const started = Date.now();
    const c = client({ readRetries: 2, callTimeoutMs: 60_000, remainingMs: () => started + 800 - Date.now(), minCallMs: 100 });
    const e = await c.getMember(MEMBER).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('reports a request the HTTP client refuses to build (a token with a line break) as not executed', async () => {
    accessToken = 'tok\r\nX-Injected: 1';
    behaviour = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const c = client({ readRetries: 0 });
    const e = await c.grantPoints(MEMBER, { point: 1 }).catch((x: unknown) => x);
    await c.close();
    expect(e).toMatchObject({ kind: 'network', executed: 'no', messages: ['ERR_INVALID_CHAR'] });
    expect(served).toBe(0);
  });
});
