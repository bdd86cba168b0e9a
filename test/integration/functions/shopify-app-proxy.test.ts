import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHandler } from '../../../functions/shopify-app-proxy.js';
import { staticWebhookSecrets } from '../../../shared/config/index.js';
import { signAppProxyQuery } from '../../../shared/customers/index.js';
import { clearTokenCache, createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../support/emulator.js';
import { RecordingQueue } from '../../support/recording-queue.js';

/**
 * The Lambda handler behind `GET|POST /proxy/shopify/link` with API Gateway's v2 events: the method from
 * the request context, the POST's form body as API Gateway gives it (base64 or not), against the emulator.
 */
const CAROL = '8f6d2c1e-0003-4000-8000-000000000003';
const SECRET = 'shopify-app-secret-for-tests';
const NOW_MS = Date.parse('2026-01-15T01:00:00Z');

let emulator: TestEmulator;
let openapi: OpenApiClient;

beforeAll(async () => {
  emulator = await startTestEmulator({
    now: '2026-01-15 10:00:00',
    clients: [testClient({ members: [{ id: CAROL, login_id: 'carol', password: 'pass1234' }] })],
  });
  openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
  });
});
afterAll(async () => {
  await openapi.close();
  await emulator.close();
});

function event(method: string, rawQueryString: string, body?: { text: string; base64: boolean }): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `${method} /proxy/shopify/link`,
    rawPath: '/proxy/shopify/link',
    rawQueryString,
    headers: { accept: 'application/json', ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    requestContext: { http: { method, path: '/proxy/shopify/link' } },
    ...(body ? { body: body.base64 ? Buffer.from(body.text).toString('base64') : body.text, isBase64Encoded: body.base64 } : {}),
    isBase64Encoded: body?.base64 ?? false,
  } as unknown as APIGatewayProxyEventV2;
}

describe('shopify-app-proxy (Lambda)', () => {
  for (const base64 of [true, false]) {
    it(`answers the GET with a confirmation and links on the POST carrying it (body ${base64 ? 'base64' : 'text'}), queueing the crediting`, async () => {
      clearTokenCache();
      await emulator.reset();
      const queue = new RecordingQueue();
      const handler = makeHandler({
        secrets: staticWebhookSecrets({ shopify: [SECRET] }),
        source: 'shopify',
        externalKey: 'shopify',
        openapi,
        now: () => NOW_MS,
        queue,
        retroCreditDays: 30,
      });
      const token = await emulator.handoverToken('test-client', CAROL);
      const query = new URLSearchParams({
        token,
        member: CAROL,
        shop: 'demo-shop.myshopify.com',
        logged_in_customer_id: '7001',
        path_prefix: '/apps/points',
        timestamp: String(NOW_MS / 1000),
      });
      query.set('signature', signAppProxyQuery(query, SECRET));

      const shown = await handler(event('GET', query.toString()));
      expect(shown.statusCode).toBe(200);
      const confirm = (JSON.parse(String(shown.body)) as { confirm: string }).confirm;
      expect(queue.messages).toEqual([]);

      const linked = await handler(event('POST', query.toString(), { text: `confirm=${encodeURIComponent(confirm)}`, base64 }));
      expect({ status: linked.statusCode, body: JSON.parse(String(linked.body)) }).toEqual({
        status: 200,
        body: { status: 'linked', member: CAROL, changed: true },
      });
      expect(queue.events()).toEqual([expect.objectContaining({ type: 'customer', action: 'linked' })]);
    });
  }
});
