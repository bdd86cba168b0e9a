/**
 * Shopify signs no timestamp: a captured delivery replayed after the ledger forgot its order would
 * credit again. Intake answers such old events 200 `ignored` (nothing queued), inside a window
 * derived from the ledger's retention (LEDGER_TTL_DAYS) less a margin.
 */
import { deliveryMetric } from '../../../../shared/intake/delivery-metrics.js';
import { describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { replayWindowDays, replayWindowDaysFromEnv } from '../../../../shared/intake/config.js';
import { type IntakeDeps, receiveWebhook } from '../../../../shared/intake/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, posHeaders, shopifyHeaders, squareHeaders } from '../../../../kit/fixture-webhooks.js';

const SECRET = 'shpss_replay_current_0123456789abcdef';
const DAY = 86_400_000;
// The fixture's processed_at: the canonical event's occurredAt.
const PROCESSED_AT = Date.parse('2026-11-20T14:03:10-05:00');
const ORDER = fixture('shopify/orders-paid-usd-discount-shipping.json');

function setup(nowMs: number, overrides: Partial<IntakeDeps> = {}) {
  const queue = new RecordingQueue();
  const logged: Array<Record<string, unknown>> = [];
  const deps: IntakeDeps = {
    sources: loadSources(undefined),
    secrets: staticWebhookSecrets({ shopify: [SECRET] }),
    queue,
    now: () => nowMs,
    maxBodyBytes: 256 * 1024,
    logger: {
      info: (message, extra) => logged.push({ message, ...extra }),
      warn: (message, extra) => logged.push({ message, ...extra }),
      error: (message, extra) => logged.push({ message, ...extra }),
    },
    ...overrides,
  };
  const send = () =>
    receiveWebhook(
      { source: 'shopify', method: 'POST', headers: shopifyHeaders(ORDER, SECRET, 'orders/paid'), body: ORDER, isBase64Encoded: false },
      deps,
    );
  return { queue, logged, send };
}

describe('replay window at intake', () => {
  it('answers 200 ignored, queues nothing, logs and counts an order older than the window', async () => {
    const { send, queue, logged } = setup(PROCESSED_AT + 371 * DAY);
    const response = await send();
    expect(response.statusCode).toBe(200);
    expect(response.answer).toMatchObject({
      status: 'ignored',
      reason: expect.stringMatching(/^too_old: occurred 2026-11-20T19:03:10.000Z, more than 370 days ago/),
    });
    expect(queue.messages).toHaveLength(0);
    expect(logged).toContainEqual(expect.objectContaining({ message: 'webhook ignored', source: 'shopify', kind: 'too_old' }));
    expect(deliveryMetric(response)).toEqual({ name: 'DeliveriesIgnored', kind: 'too_old' });
  });

  it('queues an order just inside the window', async () => {
    const { send, queue } = setup(PROCESSED_AT + 369 * DAY);
    expect((await send()).statusCode).toBe(202);
    expect(queue.messages).toHaveLength(1);
  });

  it('takes the window from the deps, so a shorter ledger retention shortens it', async () => {
    const { send, queue } = setup(PROCESSED_AT + 80 * DAY, { replayWindowDays: replayWindowDays(100) });
    expect((await send()).statusCode).toBe(200);
    expect(queue.messages).toHaveLength(0);
  });
});

describe('replay window setting', () => {
  it('is the ledger retention less 30 days, from LEDGER_TTL_DAYS (default 400)', () => {
    expect(replayWindowDaysFromEnv({})).toBe(370);
    expect(replayWindowDaysFromEnv({ LEDGER_TTL_DAYS: '100' })).toBe(70);
  });

  it('keeps at least half the retention when the retention is short', () => {
    expect(replayWindowDays(20)).toBe(10);
  });

  it('names the variable when LEDGER_TTL_DAYS is not a number of days', () => {
    expect(() => replayWindowDaysFromEnv({ LEDGER_TTL_DAYS: 'forever' })).toThrow(/LEDGER_TTL_DAYS/);
  });
});

describe('events dated ahead of the clock at intake', () => {
  const POS_SECRET = 'pos_future_0123456789abcdef0123456789';
  const SQUARE_URL = 'https://hooks.example.com/webhooks/square';
  const SQUARE_KEY = 'square-future-key';
  const NOW = Date.parse('2026-11-24T00:00:00Z');
  function intake(nowMs: number) {
    const queue = new RecordingQueue();
    const deps: IntakeDeps = {
      sources: loadSources(JSON.stringify({ square: { notificationUrl: SQUARE_URL } })),
      secrets: staticWebhookSecrets({ shopify: [SECRET], pos: [POS_SECRET], square: [SQUARE_KEY] }),
      queue,
      now: () => nowMs,
      maxBodyBytes: 256 * 1024,
    };
    const send = (source: string, body: string, headers: Record<string, string>) =>
      receiveWebhook({ source, method: 'POST', headers, body, isBase64Encoded: false }, deps);
    return { queue, send };
  }
  const sale = (issuedAt: string) =>
    fixture('pos/sale.json').replace('"issuedAt": "2026-11-22T18:42:07+09:00"', `"issuedAt": "${issuedAt}"`);

  it('refuses a POS sale dated 2099 with 422 naming event.occurredAt, and queues nothing', async () => {
    const { send, queue } = intake(NOW);
    const body = sale('2099-01-01T00:00:00+09:00');
    const response = await send('pos', body, posHeaders(body, POS_SECRET, NOW / 1000));
    expect(response).toMatchObject({
      statusCode: 422,
      answer: {
        error: {
          kind: 'invalid_payload',
          path: 'event.occurredAt',
          message: expect.stringContaining('more than a day ahead of the clock'),
        },
      },
    });
    expect(queue.messages).toHaveLength(0);
  });

  it('refuses a Square payment dated more than a day ahead of the clock with 422', async () => {
    // Square's example is from 2020-11-22: the clock stands two days before it.
    const { send, queue } = intake(Date.parse('2020-11-20T12:00:00Z'));
    const body = fixture('square/payment-updated.json');
    const response = await send('square', body, squareHeaders(body, SQUARE_KEY, SQUARE_URL));
    expect(response).toMatchObject({ statusCode: 422, answer: { error: { path: 'event.occurredAt' } } });
    expect(queue.messages).toHaveLength(0);
  });

  it('refuses a Shopify order dated more than a day ahead (422 without a quarantine; kept with one)', async () => {
    const { send, queue } = intake(PROCESSED_AT - 2 * DAY);
    const response = await send('shopify', ORDER, shopifyHeaders(ORDER, SECRET, 'orders/paid'));
    expect(response).toMatchObject({ statusCode: 422, answer: { error: { path: 'event.occurredAt' } } });
    expect(queue.messages).toHaveLength(0);
  });

  it('still queues a sale dated within a day ahead (a till whose clock or zone is off by hours)', async () => {
    const { send, queue } = intake(NOW);
    const body = sale('2026-11-24T20:00:00+09:00');
    expect((await send('pos', body, posHeaders(body, POS_SECRET, NOW / 1000))).statusCode).toBe(202);
    expect(queue.messages).toHaveLength(1);
  });
});
