/**
 * An upstream that answers with an enormous error text (a real local HTTP server) and the real
 * ledger on dynalite: the text is cut to about 1 KB before it reaches the outcome, the log or the
 * ledger, so the record is released with its error instead of being refused by DynamoDB (400 KB
 * item limit) and left pending with its lease held.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessingSettings } from '../../../../shared/config/processing-settings.js';
import { createLedger } from '../../../../shared/ledger/index.js';
import { clearTokenCache, createOpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { createProcessor } from '../../../../shared/points/index.js';
import { manualClock, startDynalite, type LocalDynamo } from '../../../../kit/dynalite.js';
import { purchase } from './harness.js';

const LONG = 'x'.repeat(500 * 1024);
let server: Server;
let url: string;
let dynamo: LocalDynamo;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/api/ext/token') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [LONG] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dynamo = await startDynalite();
  clearTokenCache();
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await dynamo.stop();
});

describe('a 500 KB upstream error text', () => {
  it('is cut to about 1 KB, and the order is released with it rather than left leased', async () => {
    const clock = manualClock();
    const ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock, leaseSeconds: 60 });
    const api = createOpenApiClient({ credentials: staticCredentials({ baseUrl: url, clientId: 'c', clientSecret: 's' }), readRetries: 0 });
    const processor = createProcessor({ ledger, openapi: api, clock, settings: ProcessingSettings.parse({}) });
    const event = purchase();

    const outcome = await processor.process(event);
    await api.close();

    expect(outcome).toMatchObject({ kind: 'configuration_error', action: 'retry' });
    expect(outcome.kind === 'configuration_error' && outcome.reason.length).toBeLessThanOrEqual(1024);
    const record = await ledger.getOrder({ source: event.source, orderId: event.orderId });
    expect(record?.leaseOwner).toBeUndefined();
    expect(record?.lastError?.length).toBeLessThanOrEqual(1024);
    expect(record?.lastError).toMatch(/characters cut/);
  });
});
