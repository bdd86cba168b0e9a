import { beforeEach, describe, expect, it } from 'vitest';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { parseDecimal } from '../../../../shared/money/index.js';
import { type EarnsEvent, runEarns } from '../../../../shared/points/index.js';
import type { Checkpoint, CheckpointStep } from '../../../../shared/points/index.js';
import { emulatorConfig, SimulatedCrash, useHarness } from './harness.js';

/**
 * The points core reaching "this order now earns X" with no sender: the canonical `earns` event, the
 * ledger's chain of the order, the processor's own protocol (real emulator, dynalite).
 */
const h = useHarness();
const GOLD = 'member-gold';
const MEMBERS = [{ id: GOLD, login_id: 'gold', password: 'pass1234', rank: 'gold', external_ids: { members: 'm-gold' } }];

beforeEach(async () => {
  await h.emulator.reset(emulatorConfig({ members: MEMBERS, external_keys: ['members'] }));
});

let orders = 0;
const newOrder = () => `earns-${process.pid}-${++orders}`;

function earns(orderId: string, amount: string, cancelled = false): EarnsEvent {
  const purchase: PurchaseEvent = {
    type: 'purchase',
    eventId: `shop:transaction:${orderId}`,
    source: 'shop',
    orderId,
    customer: { externalKey: 'members', externalId: 'm-gold' },
    currency: 'JPY',
    occurredAt: '2026-01-15T10:00:00+09:00',
    pointTitle: `Purchase ${orderId}`,
    test: false,
    delivery: { id: `d-${orderId}`, topic: 'sale' },
    eligibleAmount: Number.parseInt(amount, 10),
    eligibleExact: amount,
    expiryDays: 365,
  };
  return {
    type: 'earns',
    source: 'shop',
    orderId,
    purchase,
    cancelled,
    refunds: {
      occurredAt: '2026-01-15T11:00:00+09:00',
      delivery: { id: `d-${orderId}-change`, topic: 'change' },
      test: false,
      title: 'Refund {order}',
      amount: parseDecimal(amount) ?? { units: 0n, scale: 0 },
    },
    currency: 'JPY',
    rule: 'major_floor',
  };
}

const reach = (event: EarnsEvent) => runEarns(event, h.ledger, h.processor().canonical);
const refundIds = async (orderId: string) => (await h.ledger.getOrder({ source: 'shop', orderId }))?.refundIds ?? [];

describe('an order now earns X: the points core reaches it (gold: 5%)', () => {
  it('credited 1000 (50), now earns 700: a refund of 300 (15 back); repeated: nothing new', async () => {
    const id = newOrder();
    expect(await reach(earns(id, '1000'))).toMatchObject({ kind: 'credited', points: 50 });
    const lowered = await reach(earns(id, '700'));
    expect(lowered).toMatchObject({ kind: 'duplicate', followUps: [{ refundId: 'adj-300', kind: 'debited', points: 15 }] });
    expect(await h.balance(GOLD)).toBe(35);
    expect(await refundIds(id)).toEqual(['adj-300']);
    await reach(earns(id, '700'));
    expect(await h.balance(GOLD)).toBe(35);
    expect(await refundIds(id)).toEqual(['adj-300']);
  });

  it('credited 1000, now earns 1200: the supplement /up-1 (60), the sale superseded (50 back); repeated: nothing new', async () => {
    const id = newOrder();
    await reach(earns(id, '1000'));
    const raised = await reach(earns(id, '1200'));
    expect(raised).toMatchObject({
      kind: 'duplicate',
      followUps: [
        { refundId: `${id}/up-1`, kind: 'credited', points: 60 },
        { refundId: 'superseded', kind: 'debited', points: 50 },
      ],
    });
    expect(await h.balance(GOLD)).toBe(60);
    expect(await h.ledger.getOrder({ source: 'shop', orderId: `${id}/up-1` })).toMatchObject({
      outcome: 'credited',
      eligibleExact: '1200',
    });
    expect(await refundIds(id)).toEqual(['superseded']);
    await reach(earns(id, '1200'));
    expect(await h.balance(GOLD)).toBe(60);
    expect(await h.ledger.getOrder({ source: 'shop', orderId: `${id}/up-2` })).toBeUndefined();
  });

  it('now earns nothing (cancelled): every credit of the chain taken back', async () => {
    const id = newOrder();
    await reach(earns(id, '1000'));
    await reach(earns(id, '1200'));
    await reach(earns(id, '1200', true));
    expect(await h.balance(GOLD)).toBe(0);
    expect(await refundIds(`${id}/up-1`)).toEqual(['cancel']);
  });

  describe('exactly once across a crash (the worker dies at a line, the message comes back after the lease)', () => {
    const crashAt =
      (step: CheckpointStep): Checkpoint =>
      (s) => {
        if (s === step) throw new SimulatedCrash(`crash at ${s}`);
      };
    const crashing = (event: EarnsEvent, step: CheckpointStep) =>
      runEarns(event, h.ledger, h.processor({ checkpoint: crashAt(step) }).canonical);

    it('a lowering refund granted but never booked: sent again, it debits once (35 left)', async () => {
      const id = newOrder();
      await reach(earns(id, '1000'));
      await expect(crashing(earns(id, '700'), 'refund:granted')).rejects.toThrow(SimulatedCrash);
      h.expireLeases();
      await reach(earns(id, '700'));
      await reach(earns(id, '700'));
      expect(await h.balance(GOLD)).toBe(35);
      expect(await refundIds(id)).toEqual(['adj-300']);
    });

    it('a lowering refund booked on the order but its record never finished: sent again, finished from the book (debited once, 35)', async () => {
      const id = newOrder();
      await reach(earns(id, '1000'));
      await expect(crashing(earns(id, '700'), 'refund:applied')).rejects.toThrow(SimulatedCrash);
      const ref = { source: 'shop', orderId: id, refundId: 'adj-300' };
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'pending' });
      h.expireLeases();
      const again = await reach(earns(id, '700'));
      expect(again).toMatchObject({ kind: 'duplicate', followUps: [{ refundId: 'adj-300', kind: 'debited', points: 15 }] });
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'done', outcome: 'debited', pointsDebited: 15 });
      await reach(earns(id, '700'));
      expect(await h.balance(GOLD)).toBe(35);
      expect(await refundIds(id)).toEqual(['adj-300']);
      expect(Object.keys((await h.ledger.getOrder({ source: 'shop', orderId: id }))?.refunds ?? {})).toEqual(['adj-300']);
    });

    it('a superseded refund booked but its record never finished: sent again, finished from the book (60)', async () => {
      const id = newOrder();
      await reach(earns(id, '1000'));
      await expect(crashing(earns(id, '1200'), 'refund:applied')).rejects.toThrow(SimulatedCrash);
      const ref = { source: 'shop', orderId: id, refundId: 'superseded' };
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'pending' });
      h.expireLeases();
      await reach(earns(id, '1200'));
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'done', outcome: 'debited', pointsDebited: 50 });
      await reach(earns(id, '1200'));
      expect(await h.balance(GOLD)).toBe(60);
      expect(await h.ledger.getOrder({ source: 'shop', orderId: `${id}/up-2` })).toBeUndefined();
    });

    it('a detached or cancel refund booked but its record never finished: sent again, finished from the book (0)', async () => {
      for (const [refundId, next] of [
        [
          'detached',
          (id: string) => ({ ...earns(id, '1000'), purchase: { ...(earns(id, '1000').purchase as PurchaseEvent), customer: null } }),
        ],
        ['cancel', (id: string) => earns(id, '1000', true)],
      ] as const) {
        const id = newOrder();
        await reach(earns(id, '1000'));
        await expect(crashing(next(id), 'refund:applied')).rejects.toThrow(SimulatedCrash);
        const ref = { source: 'shop', orderId: id, refundId };
        expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'pending' });
        h.expireLeases();
        await reach(next(id));
        expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'done', outcome: 'debited', pointsDebited: 50 });
        await reach(next(id));
        expect(await h.balance(GOLD)).toBe(0);
      }
    });

    it('a supplement granted but never recorded: found by its marker, credited once, then the sale superseded (60)', async () => {
      const id = newOrder();
      await reach(earns(id, '1000'));
      await expect(crashing(earns(id, '1200'), 'purchase:granted')).rejects.toThrow(SimulatedCrash);
      h.expireLeases();
      await reach(earns(id, '1200'));
      await reach(earns(id, '1200'));
      expect(await h.balance(GOLD)).toBe(60);
      expect(await h.ledger.getOrder({ source: 'shop', orderId: `${id}/up-1` })).toMatchObject({ outcome: 'credited' });
      expect(await h.ledger.getOrder({ source: 'shop', orderId: `${id}/up-2` })).toBeUndefined();
    });
  });
});
