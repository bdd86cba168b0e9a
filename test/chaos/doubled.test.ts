import { describe, expect, it } from 'vitest';
import { createMessageTrail, doubledEvidence, doubledMarkers } from '../../chaos/doubled.js';
import type { ObservedCustomer } from '../../chaos/compare.js';
import type { Scenario } from '../../chaos/scenario.js';
import type { Ledger } from '../../shared/ledger/index.js';
import { ASIDE_ATTRIBUTES } from '../../shared/queue/index.js';
import { withLocalLedger } from '../support/ledger.js';

/** Chaos seed 10's odd doubled marker: a whole-order credit of a provisional order, sent twice within the horizon. */
const ORDER = '549610205994866912';
const MARKER = `lp1:shopify-later:order:${ORDER}`;
const entry = (id: string, point: number, remarks: string) => ({ id, point, title: null, remarks, created_at: '2026-12-02 14:10:00' });

const scenario: Scenario = {
  seed: 10,
  customers: [],
  events: [
    { kind: 'purchase', key: `shopify-later:${ORDER}`, source: 'shopify-later', orderId: ORDER, customer: 0, amount: 166, test: false },
  ],
  deliveries: [
    { event: 0, deliveryId: 'd-1', copies: 1, kind: 'first' },
    { event: 0, deliveryId: 'f-1', copies: 1, kind: 'first', fulfilment: true },
  ],
  counts: { purchases: 1, refunds: 0, cancellations: 0, orphanRefunds: 0, duplicates: 0, concurrentDuplicates: 0, reordered: 0 },
};

let ledger: Ledger;
let now = Date.parse('2026-12-02T14:10:00Z');
withLocalLedger({ clock: () => now, leaseSeconds: 30 }, (made) => {
  ledger = made.ledger;
});

describe('doubled markers in the final histories', () => {
  it("lists each marker of ours found more than once in a customer's history, but not the audit's reversals nor entries of 0", () => {
    const observed: ObservedCustomer[] = [
      {
        index: 0,
        balance: 4,
        history: [
          entry('6113', 4, MARKER),
          entry('6093', 4, MARKER),
          entry('7001', -4, 'lp1:shopify-later:reversal:6113'),
          entry('7002', -4, 'lp1:shopify-later:reversal:6113'),
          entry('5000', 0, 'lp1:pos:order:400000000000000001'),
          entry('5001', 0, 'lp1:pos:order:400000000000000001'),
        ],
      },
    ];
    expect(doubledMarkers(observed).map((d) => [d.customer, d.marker, d.entries.map((e) => e.id)])).toEqual([
      [0, MARKER, ['6113', '6093']],
    ]);
  });

  it('prints for a doubled marker its entries, its deliveries, its ledger record and what the queue did with each of its messages', async () => {
    await ledger.claimPurchase({ source: 'shopify-later', orderId: ORDER, owner: 'w1', eligibleAmount: 166, currency: 'USD' });
    const trail = createMessageTrail(() => now);
    const body = (eventId: string) => JSON.stringify({ type: 'purchase', source: 'shopify-later', orderId: ORDER, eventId });
    trail.queued({ body: body('paid') });
    trail.queued({ body: body('fulfilled') });
    trail.direct({ body: body('fulfilled') });
    now += 1500;
    trail.setAside({
      body: body('fulfilled'),
      attributes: { [ASIDE_ATTRIBUTES.reason]: 'outcome_unknown', [ASIDE_ATTRIBUTES.wakeAt]: String(now + 120_000) },
    });
    const observed: ObservedCustomer[] = [{ index: 0, balance: 8, history: [entry('6113', 4, MARKER), entry('6093', 4, MARKER)] }];
    const lines = await doubledEvidence(doubledMarkers(observed), { scenario, observed, ledger, trail });
    expect(lines[0]).toBe(`doubled ${MARKER}, customer 0: 4 (entry 6113, 2026-12-02 14:10:00), 4 (entry 6093, 2026-12-02 14:10:00)`);
    expect(lines).toContain('    deliveries 0:purchase/first 1:purchase(fulfilled)/first');
    expect(lines.find((l) => l.startsWith('    ledger order '))).toContain('"state":"pending","leaseOwner":"w1"');
    expect(lines.filter((l) => l.startsWith('    queue '))).toEqual([
      '    queue 0.0 s paid: queued by intake',
      '    queue 0.0 s fulfilled: queued by intake',
      '    queue 0.0 s fulfilled: also delivered at once to a second worker',
      '    queue 1.5 s fulfilled: set aside (outcome_unknown) for 120 s',
    ]);
  });
});
