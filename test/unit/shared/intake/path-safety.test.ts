/**
 * Ids that become path segments of Open API calls are checked at intake by the client's own rule
 * (shared/openapi/paths.ts): a delivery the client would refuse is answered 422 with the field,
 * instead of being queued and failing into the dead-letter queue.
 */
import { describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { receiveWebhook } from '../../../../shared/intake/index.js';
import { unsafeCustomerId } from '../../../../shared/sources/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, posHeaders } from '../../../../kit/fixture-webhooks.js';

const SECRET = 'pos_path_safety_0123456789abcdef0123';
const NOW_S = Math.floor(Date.parse('2026-11-22T10:00:00Z') / 1000);

async function sendPos(body: string) {
  const queue = new RecordingQueue();
  const response = await receiveWebhook(
    { source: 'pos', method: 'POST', headers: posHeaders(body, SECRET, NOW_S), body, isBase64Encoded: false },
    {
      sources: loadSources(undefined),
      secrets: staticWebhookSecrets({ pos: [SECRET] }),
      queue,
      now: () => NOW_S * 1000,
      maxBodyBytes: 256 * 1024,
    },
  );
  return { response, queue };
}

describe('path-safety of customer ids at intake', () => {
  for (const card of ['.', '..']) {
    it(`answers 422 naming customer.cardNumber for a card number of "${card}", and queues nothing`, async () => {
      const { response, queue } = await sendPos(fixture('pos/sale.json').replace('8000123412345678', card));
      expect(response.statusCode).toBe(422);
      expect(response.answer).toMatchObject({ error: { kind: 'invalid_payload', path: 'customer.cardNumber' } });
      expect(queue.messages).toHaveLength(0);
    });
  }

  it('answers 422 naming customer.externalId for an explicit external id of ".."', async () => {
    const body = fixture('pos/sale.json').replace(
      '{ "cardNumber": "8000123412345678" }',
      '{ "externalKey": "pos_card", "externalId": ".." }',
    );
    const { response } = await sendPos(body);
    expect(response).toMatchObject({ statusCode: 422, answer: { error: { path: 'customer.externalId' } } });
  });

  it('still accepts a card number with dots inside it', async () => {
    const { response } = await sendPos(fixture('pos/sale.json').replace('8000123412345678', '8000.1234'));
    expect(response.statusCode).toBe(202);
  });
});

describe('unsafeCustomerId, the net under every source', () => {
  const event = (externalKey: string, externalId: string) =>
    ({ customer: { externalKey, externalId } }) as unknown as Parameters<typeof unsafeCustomerId>[0];

  it('names event.customer.externalId for a dot segment', () => {
    expect(unsafeCustomerId(event('shopify', '..'))).toEqual({ path: 'event.customer.externalId', problem: 'must not be a dot segment' });
  });

  it('names event.customer.externalKey for a key with a slash', () => {
    expect(unsafeCustomerId(event('a/b', '1'))?.path).toBe('event.customer.externalKey');
  });

  it('passes an id the client would send', () => {
    expect(unsafeCustomerId(event('shopify', '820982911946154508'))).toBeUndefined();
  });
});
