import { afterEach, describe, expect, it, vi } from 'vitest';
import { depsFromEnv, handler, makeHandler } from '../../../functions/receive-webhook.js';
import { staticWebhookSecrets } from '../../../shared/config/webhook-secrets.js';
import { ConfigurationError } from '../../../shared/config/index.js';
import type { IntakeLogger } from '../../../shared/intake/index.js';
import { loadSources } from '../../../shared/sources/registry.js';
import { RecordingQueue } from '../../support/recording-queue.js';
import { apiGatewayEvent, fixture, posHeaders, shopifyHeaders } from '../../../kit/fixture-webhooks.js';

/**
 * The handler end to end: API Gateway v2 event in, HTTP answer out. The queue is RecordingQueue,
 * an in-memory EventQueue: the queue boundary (SQS cannot run here).
 */

const SECRET = 'shpss_handler_test';
const POS_SECRET = 'pos_handler_test';
// 2026-11-24T03:53:20Z: after every fixture (the latest is 2026-11-23), as a real clock is after what it receives.
const NOW_S = 1_795_500_000;
const ORDER = fixture('shopify/orders-paid-usd-discount-shipping.json');

function recordingLogger() {
  const lines: { level: string; message: string; extra?: Record<string, unknown> }[] = [];
  const logger: IntakeLogger = {
    info: (message, extra) => lines.push({ level: 'info', message, ...(extra ? { extra } : {}) }),
    warn: (message, extra) => lines.push({ level: 'warn', message, ...(extra ? { extra } : {}) }),
    error: (message, extra) => lines.push({ level: 'error', message, ...(extra ? { extra } : {}) }),
  };
  return { logger, lines };
}

function setup() {
  const queue = new RecordingQueue();
  const { logger, lines } = recordingLogger();
  const handle = makeHandler({
    sources: loadSources(undefined),
    secrets: staticWebhookSecrets({ shopify: [SECRET], pos: [POS_SECRET] }),
    queue,
    now: () => NOW_S * 1000,
    maxBodyBytes: 256 * 1024,
    logger,
  });
  return { queue, handle, lines };
}

describe('receive-webhook handler', () => {
  it('answers 202 JSON with the event id and queues the purchase', async () => {
    const { handle, queue } = setup();
    const result = await handle(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid')));
    expect(result.statusCode).toBe(202);
    expect(result.headers?.['content-type']).toBe('application/json');
    expect(JSON.parse(result.body ?? '')).toEqual({ status: 'accepted', eventId: 'shopify:order:820982911946154508' });
    expect(queue.events()[0]).toMatchObject({ type: 'purchase', orderId: '820982911946154508', eligibleAmount: 358 });
  });

  it('accepts a base64-encoded body as API Gateway delivers binary content', async () => {
    const { handle, queue } = setup();
    const result = await handle(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid'), { isBase64Encoded: true }));
    expect(result.statusCode).toBe(202);
    expect(queue.messages).toHaveLength(1);
  });

  it('routes a POS return by the path and queues the refund', async () => {
    const { handle, queue } = setup();
    const body = fixture('pos/return.json');
    const result = await handle(apiGatewayEvent('pos', body, posHeaders(body, POS_SECRET, NOW_S)));
    expect(result.statusCode).toBe(202);
    expect(queue.events()[0]).toMatchObject({ type: 'refund', refundId: 'S014-R1-20261123-0007', refundAmount: 445 });
  });

  it('finds the source in a `source` path parameter, a stage-prefixed path, or the route key', async () => {
    const { handle } = setup();
    const headers = shopifyHeaders(ORDER, SECRET, 'orders/paid');
    const viaParam = apiGatewayEvent('x', ORDER, headers, {
      rawPath: '/webhooks/anything',
      routeKey: 'POST /webhooks/{source}',
      pathParameters: { source: 'shopify' },
    });
    const viaStage = apiGatewayEvent('x', ORDER, headers, { rawPath: '/prod/webhooks/shopify/' });
    const viaRoute = { ...apiGatewayEvent('x', ORDER, headers, { routeKey: 'POST /webhooks/shopify' }), rawPath: '' };
    for (const event of [viaParam, viaStage, viaRoute]) expect((await handle(event)).statusCode).toBe(202);
  });

  it('answers 404 for a path that names no configured source', async () => {
    const { handle, queue } = setup();
    const result = await handle(apiGatewayEvent('square', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid')));
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body ?? '')).toEqual({ error: { kind: 'unknown_source', message: 'no such webhook source' } });
    expect(queue.messages).toHaveLength(0);
  });

  it('answers 401 to a forged delivery and logs the refusal without the body or secret', async () => {
    const { handle, lines } = setup();
    const result = await handle(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, 'forged', 'orders/paid')));
    expect(result.statusCode).toBe(401);
    expect(lines).toEqual([{ level: 'warn', message: 'webhook refused', extra: { source: 'shopify', kind: 'invalid_signature' } }]);
    expect(JSON.stringify(lines)).not.toContain(SECRET);
  });

  it('answers 500 internal, not a crash, when a source module throws', async () => {
    const throwing = {
      name: 'shopify',
      kind: 'shopify',
      verify: () => {
        throw new TypeError('bug in a source module');
      },
      read: () => {
        throw new TypeError('unreachable');
      },
      readMany: () => {
        throw new TypeError('unreachable');
      },
    };
    const handle = makeHandler({
      sources: new Map([['shopify', throwing]]),
      secrets: staticWebhookSecrets({ shopify: [SECRET] }),
      queue: new RecordingQueue(),
      now: Date.now,
      maxBodyBytes: 1024,
    });
    const result = await handle(apiGatewayEvent('shopify', '{}', shopifyHeaders('{}', SECRET, 'orders/paid')));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '')).toEqual({ error: { kind: 'internal', message: 'try again later' } });
  });
});

describe('depsFromEnv', () => {
  it('builds working deps from the environment, with the local queue passed as an override', async () => {
    const queue = new RecordingQueue();
    const deps = depsFromEnv(
      {
        SHOPIFY_WEBHOOK_SECRET: `old-shopify-app-secret,${SECRET}`,
        SOURCES_CONFIG: '{"shopify": {"amount": {"rule": "minor"}, "expiryDays": 180}}',
      },
      { queue, logger: recordingLogger().logger },
    );
    const result = await makeHandler(deps)(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid')));
    expect(result.statusCode).toBe(202);
    expect(queue.events()[0]).toMatchObject({ eligibleAmount: 35820, expiryDays: 180 });
  });

  it('answers 500 not_configured to a POS delivery while the POS secret is shorter than 32 characters', async () => {
    const body = fixture('pos/sale.json');
    const deps = depsFromEnv({ POS_WEBHOOK_SECRETS: 'demo-pos-secret' }, { queue: new RecordingQueue(), logger: recordingLogger().logger });
    const result = await makeHandler(deps)(
      apiGatewayEvent('pos', body, posHeaders(body, 'demo-pos-secret', Math.floor(Date.now() / 1000))),
    );
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '')).toMatchObject({ error: { kind: 'not_configured' } });
  });

  it('reads MAX_BODY_BYTES and defaults to 256 KiB', () => {
    const queue = new RecordingQueue();
    expect(depsFromEnv({}, { queue }).maxBodyBytes).toBe(262_144);
    expect(depsFromEnv({ MAX_BODY_BYTES: '1000' }, { queue }).maxBodyBytes).toBe(1000);
    expect(() => depsFromEnv({ MAX_BODY_BYTES: 'lots' }, { queue })).toThrow(ConfigurationError);
    expect(() => depsFromEnv({ MAX_BODY_BYTES: 'lots' }, { queue })).toThrow('MAX_BODY_BYTES must be a positive integer');
  });

  it('requires QUEUE_URL unless a queue is passed in', () => {
    expect(() => depsFromEnv({})).toThrow(/QUEUE_URL is not set/);
    expect(depsFromEnv({ QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/points.fifo' }).queue).toBeDefined();
  });
});

describe('handler (Lambda entry point)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    vi.restoreAllMocks();
  });

  it('answers 500 not_configured when the environment is unusable, naming nothing to the sender', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    process.env = { ...saved, SOURCES_CONFIG: '{"shopify": {"amount": {"rule": "bankers"}}}', QUEUE_URL: 'https://sqs.example/q.fifo' };
    const result = await handler(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid')));
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body ?? '')).toEqual({ error: { kind: 'not_configured', message: 'the webhook endpoint is not configured' } });
    expect(String(logged.mock.calls[0]?.[0])).toContain('shopify.amount.rule');
  });
});

describe('delivery metrics', () => {
  /** The EMF lines the handler built from the environment writes to stdout, as Lambda ships them to CloudWatch. */
  async function emfOf(send: (handle: ReturnType<typeof makeHandler>) => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const output: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
    try {
      const deps = depsFromEnv(
        {
          SHOPIFY_WEBHOOK_SECRET: SECRET,
          POS_WEBHOOK_SECRETS: POS_SECRET,
          POWERTOOLS_METRICS_NAMESPACE: 'Shop/Points',
          POWERTOOLS_SERVICE_NAME: 'bridge',
        },
        { queue: new RecordingQueue(), logger: recordingLogger().logger, now: () => NOW_S * 1000 },
      );
      await send(makeHandler(deps));
    } finally {
      spy.mockRestore();
    }
    return output
      .flatMap((c) => c.split('\n'))
      .filter((l) => l.includes('"_aws"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }
  const declared = (emf: Record<string, unknown>) =>
    (emf._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] }).CloudWatchMetrics[0]!;

  it('counts an accepted purchase as DeliveriesAccepted by source and event type', async () => {
    const [emf, ...more] = await emfOf((h) => h(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid'))));
    expect(more).toEqual([]);
    expect(emf).toMatchObject({ DeliveriesAccepted: 1, service: 'bridge', source: 'shopify', kind: 'purchase' });
    expect(declared(emf!)).toEqual({
      Namespace: 'Shop/Points',
      Dimensions: [['service', 'source', 'kind']],
      Metrics: [{ Name: 'DeliveriesAccepted', Unit: 'Count' }],
    });
  });

  it('also counts a delivery made with another Shopify API version than the source setting, by the version received', async () => {
    const headers = shopifyHeaders(ORDER, SECRET, 'orders/paid', { 'x-shopify-api-version': '2025-07' });
    const [accepted, otherVersion, ...more] = await emfOf((h) => h(apiGatewayEvent('shopify', ORDER, headers)));
    expect(more).toEqual([]);
    expect(accepted).toMatchObject({ DeliveriesAccepted: 1, kind: 'purchase' });
    expect(otherVersion).toMatchObject({ DeliveriesOtherApiVersion: 1, source: 'shopify', kind: '2025-07' });
  });

  it('counts a forged signature as DeliveriesRefused with the refusal as its kind', async () => {
    const [emf] = await emfOf((h) => h(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, 'forged', 'orders/paid'))));
    expect(emf).toMatchObject({ DeliveriesRefused: 1, source: 'shopify', kind: 'invalid_signature' });
  });

  it('counts a topic it does not handle as DeliveriesIgnored', async () => {
    const [emf] = await emfOf((h) => h(apiGatewayEvent('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'customers/create'))));
    expect(emf).toMatchObject({ DeliveriesIgnored: 1, source: 'shopify', kind: 'ignored' });
  });

  it('files a delivery to an unconfigured source under source "unknown", whatever the URL says', async () => {
    const [emf] = await emfOf((h) => h(apiGatewayEvent('x-made-up-123', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid'))));
    expect(emf).toMatchObject({ DeliveriesRefused: 1, source: 'unknown', kind: 'unknown_source' });
  });
});
