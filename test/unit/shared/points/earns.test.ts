import { describe, expect, it } from 'vitest';
import type { PurchaseEvent } from '../../../../shared/events/index.js';
import { parseDecimal } from '../../../../shared/money/index.js';
import { type EarnsEvent, type OrderFacts, reachEarns, type SaleChain } from '../../../../shared/points/index.js';

// A sender-neutral order: no sender's code, only the canonical `earns` event and the ledger's chain.
const SOURCE = 'shop';
const ORDER = 'o-1';

function earns(amount: string, overrides: Partial<EarnsEvent> = {}): EarnsEvent {
  const purchase: PurchaseEvent = {
    type: 'purchase',
    eventId: `${SOURCE}:transaction:${ORDER}`,
    source: SOURCE,
    orderId: ORDER,
    customer: { externalKey: 'members', externalId: 'm-1' },
    currency: 'JPY',
    occurredAt: '2026-01-15T10:00:00+09:00',
    pointTitle: 'Purchase',
    test: false,
    delivery: { id: 'd-1', topic: 'sale' },
    eligibleAmount: Number.parseInt(amount, 10),
    eligibleExact: amount,
    expiryDays: 365,
  };
  return {
    type: 'earns',
    source: SOURCE,
    orderId: ORDER,
    purchase,
    cancelled: false,
    refunds: {
      occurredAt: '2026-01-16T10:00:00+09:00',
      delivery: { id: 'd-2', topic: 'change' },
      test: false,
      title: 'Refund {order}',
      amount: parseDecimal(amount) ?? { units: 0n, scale: 0 },
    },
    currency: 'JPY',
    rule: 'major_floor',
    ...overrides,
  };
}

const credited = (orderId: string, eligibleExact: string, more: Partial<OrderFacts> = {}): OrderFacts => ({
  orderId,
  state: 'done',
  outcome: 'credited',
  eligibleExact,
  externalId: 'm-1',
  refundIds: [],
  booked: [],
  ...more,
});

const chainOf = (sale: OrderFacts | undefined, ...supplements: OrderFacts[]): SaleChain => ({ sale, supplements });
const ids = (events: { eventId: string }[]) => events.map((e) => e.eventId);

describe('reachEarns: an order now earns X (no sender)', () => {
  it('never seen: its purchase on X', () => {
    expect(ids(reachEarns(earns('1000'), chainOf(undefined)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('credited 1000, now earns 700: the refund adj-300 adding 300, on the live purchase', () => {
    const reach = reachEarns(earns('700'), chainOf(credited(ORDER, '1000')));
    expect(ids(reach.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:adj-300']);
    expect(reach.events[1]).toMatchObject({ refundAmount: 300, refundExact: '300', refundsRemainder: false, pointTitle: 'Refund o-1' });
    expect(reach.again).toBeUndefined();
  });

  it('the adjustment booked, the same X again: nothing new (the same ids only)', () => {
    const sale = credited(ORDER, '1000', { refundIds: ['adj-300'], booked: ['adj-300'] });
    expect(ids(reachEarns(earns('700'), chainOf(sale)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('now earns 1200: the supplement /up-1 on the whole 1200, then (once credited) the superseded refund', () => {
    const first = reachEarns(earns('1200'), chainOf(credited(ORDER, '1000')));
    expect(ids(first.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-1']);
    expect(first.events[1]).toMatchObject({ orderId: 'o-1/up-1', eligibleAmount: 1200, eligibleExact: '1200' });
    expect(first.again).toBe(true);
    const second = reachEarns(earns('1200'), chainOf(credited(ORDER, '1000'), credited('o-1/up-1', '1200')));
    expect(ids(second.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:superseded']);
    expect(second.events[1]).toMatchObject({ refundsRemainder: true, refundId: 'superseded' });
    const done = chainOf(credited(ORDER, '1000', { refundIds: ['superseded'], booked: ['superseded'] }), credited('o-1/up-1', '1200'));
    expect(ids(reachEarns(earns('1200'), done).events)).toEqual(['shop:transaction:o-1']);
  });

  it('cancelled: the purchase, then cancel of the sale and of every supplement', () => {
    const reach = reachEarns(earns('0', { cancelled: true }), chainOf(credited(ORDER, '1000'), credited('o-1/up-1', '1200')));
    expect(ids(reach.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:cancel', 'shop:refund:o-1/up-1:cancel']);
  });

  it('the member taken off: the refund detached of every credited purchase', () => {
    const e = earns('1000');
    const reach = reachEarns({ ...e, purchase: { ...(e.purchase as PurchaseEvent), customer: null } }, chainOf(credited(ORDER, '1000')));
    expect(ids(reach.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:detached']);
  });

  it('another member now: the supplement /up-1 credited to them, then (once credited) the superseded refund of the first member’s', () => {
    const e = earns('1000');
    const moved = { ...e, purchase: { ...(e.purchase as PurchaseEvent), customer: { externalKey: 'members', externalId: 'm-2' } } };
    const first = reachEarns(moved, chainOf(credited(ORDER, '1000')));
    expect(ids(first.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-1']);
    expect(first.events[1]).toMatchObject({ customer: { externalId: 'm-2' }, eligibleExact: '1000' });
    const second = reachEarns(moved, chainOf(credited(ORDER, '1000'), credited('o-1/up-1', '1000', { externalId: 'm-2' })));
    expect(ids(second.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:superseded']);
  });

  it('another customer the supplement could not credit (no member holds the code): the refund detached of the first member’s credits, then nothing more', () => {
    const e = earns('1000');
    const moved = { ...e, purchase: { ...(e.purchase as PurchaseEvent), customer: { externalKey: 'members', externalId: 'nobody' } } };
    const failed = credited('o-1/up-1', '1000', { outcome: 'customer_not_found', externalId: 'nobody' });
    const reach = reachEarns(moved, chainOf(credited(ORDER, '1000'), failed));
    expect(ids(reach.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:detached']);
    expect(reach.events[1]).toMatchObject({ refundsRemainder: true, refundId: 'detached' });
    const detached = credited(ORDER, '1000', { refundIds: ['detached'], booked: ['detached'] });
    expect(ids(reachEarns(moved, chainOf(detached, failed)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('a raise for the same member whose supplement could not credit (the member withdrew): the member keeps the earlier credit', () => {
    const failed = credited('o-1/up-1', '1200', { outcome: 'member_withdrawn' });
    expect(ids(reachEarns(earns('1200'), chainOf(credited(ORDER, '1000'), failed)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('a chain refund booked but its record unfinished: sent again after the purchase (once, before what the order asks for now)', () => {
    const sale = credited(ORDER, '1000', { refundIds: ['adj-300'], booked: ['adj-300'], unfinishedRefunds: ['adj-300'] });
    const same = reachEarns(earns('700'), chainOf(sale));
    expect(ids(same.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1:adj-300']);
    expect(same.events[1]).toMatchObject({ refundId: 'adj-300', refundExact: '300', refundsRemainder: false });
    expect(ids(reachEarns(earns('600'), chainOf(sale)).events)).toEqual([
      'shop:transaction:o-1',
      'shop:refund:o-1:adj-300',
      'shop:refund:o-1:adj-400',
    ]);
    const superseded = credited(ORDER, '1000', { refundIds: ['superseded'], booked: ['superseded'], unfinishedRefunds: ['superseded'] });
    expect(ids(reachEarns(earns('1200'), chainOf(superseded, credited('o-1/up-1', '1200'))).events)).toEqual([
      'shop:transaction:o-1',
      'shop:refund:o-1:superseded',
    ]);
    const cancelled = credited(ORDER, '1000', { refundIds: ['cancel'], booked: ['cancel'], unfinishedRefunds: ['cancel'] });
    expect(ids(reachEarns(earns('0', { cancelled: true }), chainOf(cancelled)).events)).toEqual([
      'shop:transaction:o-1',
      'shop:refund:o-1:cancel',
    ]);
  });

  it('a sale waiting for its customer’s link, named again for the same amount: its purchase only (no supplement)', () => {
    const waiting = credited(ORDER, '1000', { outcome: 'customer_not_found', externalId: 'm-1' });
    expect(ids(reachEarns(earns('1000'), chainOf(waiting)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('a sale waiting for its customer’s link, now naming another member: the supplement /up-1 credited to them, then nothing to take back', () => {
    const waiting = credited(ORDER, '1000', { outcome: 'customer_not_found', externalId: 'nobody' });
    const first = reachEarns(earns('1000'), chainOf(waiting));
    expect(ids(first.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-1']);
    expect(first.events[1]).toMatchObject({ customer: { externalId: 'm-1' }, eligibleExact: '1000' });
    expect(ids(reachEarns(earns('1000'), chainOf(waiting, credited('o-1/up-1', '1000'))).events)).toEqual(['shop:transaction:o-1']);
  });
  it('a sale waiting for its customer’s link, now naming nobody: its purchase, then /up-1 recording that (no customer, no window), and nothing more once recorded', () => {
    const waiting = credited(ORDER, '1000', { outcome: 'customer_not_found', externalId: 'nobody' });
    const none = earns('1000');
    const nobody = { ...none, purchase: { ...(none.purchase as PurchaseEvent), customer: null, customerMatchWindowSeconds: 60 } };
    const first = reachEarns(nobody, chainOf(waiting));
    expect(ids(first.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-1']);
    expect(first.events[1]).toMatchObject({ customer: null });
    expect(first.events[1]).not.toHaveProperty('customerMatchWindowSeconds');
    const recorded = credited('o-1/up-1', '1000', { outcome: 'skipped', reason: 'no_customer', externalId: undefined });
    expect(ids(reachEarns(nobody, chainOf(waiting, recorded)).events)).toEqual(['shop:transaction:o-1']);
  });

  it('a sale waiting for its customer’s link, lowered to 0: /up-1 on 0 for that customer, so the link credits nobody', () => {
    const waiting = credited(ORDER, '1000', { outcome: 'customer_not_found' });
    const reach = reachEarns(earns('0'), chainOf(waiting));
    expect(ids(reach.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-1']);
    expect(reach.events[1]).toMatchObject({ customer: { externalId: 'm-1' }, eligibleAmount: 0 });
  });

  it('a sale its customer’s link skipped (sale_moved), naming that customer again: the next supplement credited to them, then the other member’s taken back', () => {
    const skipped = credited(ORDER, '1000', { outcome: 'skipped', reason: 'sale_moved' });
    const other = credited('o-1/up-1', '1000', { externalId: 'm-2' });
    const first = reachEarns(earns('1000'), chainOf(skipped, other));
    expect(ids(first.events)).toEqual(['shop:transaction:o-1', 'shop:transaction:o-1/up-2']);
    const after = reachEarns(earns('1000'), chainOf(skipped, other, credited('o-1/up-2', '1000')));
    expect(ids(after.events)).toEqual(['shop:transaction:o-1', 'shop:refund:o-1/up-1:superseded']);
  });

  it('a sale its customer’s link skipped, then voided: cancel of the sale and of every supplement', () => {
    const skipped = credited(ORDER, '1000', { outcome: 'skipped', reason: 'sale_moved' });
    expect(ids(reachEarns(earns('0', { cancelled: true }), chainOf(skipped, credited('o-1/up-1', '1000'))).events)).toEqual([
      'shop:transaction:o-1',
      'shop:refund:o-1:cancel',
      'shop:refund:o-1/up-1:cancel',
    ]);
  });
});
