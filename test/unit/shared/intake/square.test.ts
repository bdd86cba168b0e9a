import { describe, expect, it } from 'vitest';
import { staticWebhookSecrets } from '../../../../shared/config/webhook-secrets.js';
import { type IntakeDeps, type IntakeRequest, receiveWebhook } from '../../../../shared/intake/index.js';
import { loadSources } from '../../../../shared/sources/registry.js';
import { RecordingQueue } from '../../../support/recording-queue.js';
import { fixture, squareHeaders } from '../../../../kit/fixture-webhooks.js';

/** Square deliveries through the intake: status codes, what is queued, and the SQS ids. */
const URL_ = 'https://hooks.example.com/webhooks/square';
const KEY = 'square-intake-current';
const OLD_KEY = 'square-intake-previous';

function setup() {
  const queue = new RecordingQueue();
  const deps: IntakeDeps = {
    sources: loadSources(JSON.stringify({ square: { notificationUrl: URL_ } })),
    secrets: staticWebhookSecrets({ square: [KEY, OLD_KEY] }),
    queue,
    // Square's published examples are from 2020: the intake's clock stands just after them (the replay window).
    now: () => Date.parse('2020-11-23T00:00:00Z'),
    maxBodyBytes: 256 * 1024,
  };
  const send = (body: string, headers: Record<string, string>) =>
    receiveWebhook({ source: 'square', method: 'POST', headers, body, isBase64Encoded: false } satisfies IntakeRequest, deps);
  return { queue, send };
}

describe('receiveWebhook: Square', () => {
  it("queues a COMPLETED payment (Square's example) with 202, deduplicated by the body's event_id", async () => {
    const { send, queue } = setup();
    const body = fixture('square/payment-updated.json');
    const response = await send(body, squareHeaders(body, KEY, URL_));
    expect(response).toEqual({
      statusCode: 202,
      eventType: 'purchase',
      answer: { status: 'accepted', eventId: 'square:payment:hYy9pRFVxpDsO1FB05SunFWUe9JZY' },
    });
    expect(queue.messages[0]).toMatchObject({
      deduplicationId: 'square:6a8f5f28-54a1-4eb0-a98a-3111513fd4fc',
      groupId: 'square:order:hYy9pRFVxpDsO1FB05SunFWUe9JZY',
    });
  });

  it('accepts a delivery signed with the previous key during a rotation', async () => {
    const { send } = setup();
    const body = fixture('square/refund-updated.json');
    expect((await send(body, squareHeaders(body, OLD_KEY, URL_))).statusCode).toBe(202);
  });

  it('answers 401 and queues nothing when the signature is over another notification URL', async () => {
    const { send, queue } = setup();
    const body = fixture('square/payment-updated.json');
    const response = await send(body, squareHeaders(body, KEY, 'https://hooks.example.com/other'));
    expect(response.statusCode).toBe(401);
    expect(queue.messages).toHaveLength(0);
  });

  it('answers 200 ignored, queueing nothing, for an APPROVED payment and a PENDING refund', async () => {
    const { send, queue } = setup();
    for (const name of ['square/payment-created.json', 'square/refund-created.json']) {
      const body = fixture(name);
      expect(await send(body, squareHeaders(body, KEY, URL_))).toMatchObject({ statusCode: 200, answer: { status: 'ignored' } });
    }
    expect(queue.messages).toHaveLength(0);
  });

  it('answers 422 with the field path for a payment with a negative amount', async () => {
    const { send } = setup();
    const parsed = JSON.parse(fixture('square/payment-updated.json'));
    parsed.data.object.payment.amount_money.amount = -1;
    const body = JSON.stringify(parsed);
    expect(await send(body, squareHeaders(body, KEY, URL_))).toMatchObject({ statusCode: 422 });
  });
});
