import * as z from 'zod';
import { beforeEach, describe, expect, it } from 'vitest';
import { PurchaseEvent } from '../../../../shared/events/index.js';
import { parseDecimal } from '../../../../shared/money/index.js';
import type { EarnsEvent } from '../../../../shared/points/index.js';
import { type SenderResolution, withSenderResolution } from '../../../../shared/sources/resolution.js';
import { emulatorConfig, useHarness } from '../points/harness.js';

/**
 * A sender that tells the current truth of a sale (a made-up one, `shop`, whose thin event carries the
 * amount its sale earns now) hands the points core the canonical `earns` event through its resolution's
 * `run.earns`: the core reads the order's chain and reaches the amount (real ledger, real Open API client).
 */
type ShopThin = PurchaseEvent & { truthFrom: { kind: 'shop_truth'; amount: string; cancelled: boolean } };

const shop: SenderResolution<undefined, ShopThin> = {
  sender: 'shop',
  key: 'truthFrom',
  kind: 'shop_truth',
  thinEvent: () =>
    PurchaseEvent.extend({
      truthFrom: z.object({ kind: z.literal('shop_truth'), amount: z.string(), cancelled: z.boolean() }),
    }) as unknown as z.ZodType<ShopThin>,
  clientsFromEnv: () => undefined,
  resolve: async (thin, { run }) => ({ outcome: await run.earns(earnsOf(thin)) }),
};

function earnsOf(thin: ShopThin): EarnsEvent {
  const { truthFrom, ...purchase } = thin;
  const amount = parseDecimal(truthFrom.amount) ?? { units: 0n, scale: 0 };
  return {
    type: 'earns',
    source: thin.source,
    orderId: thin.orderId,
    purchase: { ...purchase, eligibleAmount: Number.parseInt(truthFrom.amount, 10), eligibleExact: truthFrom.amount },
    cancelled: truthFrom.cancelled,
    refunds: { occurredAt: thin.occurredAt, delivery: thin.delivery, test: false, title: 'Refund {order}', amount },
    currency: thin.currency,
    rule: 'major_floor',
  };
}

const h = useHarness();
const GOLD = 'member-gold';
beforeEach(async () => {
  const members = [{ id: GOLD, login_id: 'gold', password: 'pass1234', rank: 'gold', external_ids: { members: 'm-gold' } }];
  await h.emulator.reset(emulatorConfig({ members, external_keys: ['members'] }));
});

const processor = () => withSenderResolution(h.processor(), { resolutions: [shop], clients: {} }, { ledger: h.ledger, openapi: h.api });

function thin(orderId: string, amount: string, cancelled = false): ShopThin {
  return {
    type: 'purchase',
    eventId: `shop:transaction:${orderId}`,
    source: 'shop',
    orderId,
    customer: { externalKey: 'members', externalId: 'm-gold' },
    currency: 'JPY',
    occurredAt: '2026-01-15T10:00:00+09:00',
    pointTitle: `Purchase ${orderId}`,
    test: false,
    delivery: { id: `d-${orderId}-${amount}`, topic: 'changed' },
    eligibleAmount: 0,
    expiryDays: 365,
    truthFrom: { kind: 'shop_truth', amount, cancelled },
  };
}

describe('a sender resolving its thin event into "this order now earns X"', () => {
  it('credits, lowers, raises and cancels the order through the core, each repeat changing nothing', async () => {
    const id = `truth-${process.pid}`;
    expect(await processor().process(thin(id, '1000'))).toMatchObject({ kind: 'credited', points: 50 });
    expect(await processor().process(thin(id, '700'))).toMatchObject({ followUps: [{ refundId: 'adj-300', kind: 'debited', points: 15 }] });
    await processor().process(thin(id, '700'));
    expect(await h.balance(GOLD)).toBe(35);
    const raised = await processor().process(thin(id, '1200'));
    expect(raised).toMatchObject({
      followUps: [
        { refundId: `${id}/up-1`, kind: 'credited' },
        { refundId: 'superseded', kind: 'debited' },
      ],
    });
    await processor().process(thin(id, '1200'));
    expect(await h.balance(GOLD)).toBe(60);
    await processor().process(thin(id, '1200', true));
    await processor().process(thin(id, '1200', true));
    expect(await h.balance(GOLD)).toBe(0);
  });
});
