import { describe, expect, it } from 'vitest';
import { redemptionMarker, redemptionReturnMarker } from '../../shared/points/index.js';
import { handleRedeem } from '../../shared/redemption/index.js';
import { ALICE, asJson, BOB, type Harness, withRedemptionHarness } from '../integration/shared/redemption/harness.js';
import { createRandom } from '../../chaos/prng.js';

/**
 * Redemptions under the chaos run's faults, on their own (the main runner is left as it is): seeded
 * clicks of two customers, some sent twice at once, each under a fault drawn at random (the
 * deduction's answer lost, the service failing before it runs, the code's creation failing for a while
 * or for good, its answer lost), then every click pressed once more with no fault, as a customer does
 * after an error. The model: each request deducts its points at most once, gives them back at most
 * once, and the balance is the seed less the points of the redemptions that hold a code.
 */

let h: Harness;
withRedemptionHarness((made) => {
  h = made;
});

const SEED_POINTS = 1000;
const customers = [
  { id: '1001', member: ALICE },
  { id: '1002', member: BOB },
];
type Fault = 'none' | 'deduction_lost' | 'service_500' | 'code_503_once' | 'code_503_long' | 'code_refused' | 'code_lost';
const FAULTS: Fault[] = ['none', 'deduction_lost', 'service_500', 'code_503_once', 'code_503_long', 'code_refused', 'code_lost'];

async function inject(fault: Fault): Promise<void> {
  const points = '^/api/ext/users/[^/]+/points$';
  if (fault === 'deduction_lost') await h.emulator.addFault({ method: 'POST', path: points, fault: 'reset_after_commit', times: 1 });
  if (fault === 'service_500') await h.emulator.addFault({ method: 'POST', path: points, fault: 'error_500', times: 1 });
  if (fault === 'code_503_once') h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'http_503', times: 1 });
  // Three attempts fail: the deduction is kept and the code made on the next press (a crash between the two steps).
  if (fault === 'code_503_long') h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'http_503', times: 3 });
  if (fault === 'code_refused') h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'user_error', times: 1 });
  if (fault === 'code_lost') h.shop.addFault({ field: 'discountCodeBasicCreate', fault: 'reset_after_commit', times: 1 });
}

const press = (customerId: string, points: number, request: string) =>
  handleRedeem(
    { method: 'POST', rawQuery: h.signed(customerId), accept: undefined, body: h.form(customerId, `points=${points}&request=${request}`) },
    h.deps(),
  ).then(asJson);

describe('redemptions under faults (seeded)', () => {
  it('deducts each request at most once, gives back at most once, and leaves each balance as the model says', async () => {
    const random = createRandom(20261127);
    const clicks: { customer: (typeof customers)[number]; points: number; request: string }[] = [];
    for (let i = 0; i < 24; i++) {
      const customer = random.pick(customers);
      const click = { customer, points: random.int(1, 3) * 100, request: `chaos-${i}-${random.digits(8)}` };
      clicks.push(click);
      await inject(random.pick(FAULTS));
      const twice = random.chance(0.3);
      await Promise.all([
        press(customer.id, click.points, click.request),
        ...(twice ? [press(customer.id, click.points, click.request)] : []),
      ]);
      await h.emulator.clearFaults();
      h.shop.clearFaults();
    }
    // Every click pressed once more, with no fault: what was left half-way finishes.
    for (const c of clicks) await press(c.customer.id, c.points, c.request);

    for (const customer of customers) {
      const mine = clicks.filter((c) => c.customer === customer);
      const records = await h.ledger.list(customer.id);
      const history = (await h.openapi.listPoints(customer.member, { perPage: 1000 })).points;
      let held = 0;
      for (const c of mine) {
        const deducted = history.filter((p) => p.remarks === redemptionMarker('shopify', customer.id, c.request));
        const returned = history.filter((p) => p.remarks === redemptionReturnMarker('shopify', customer.id, c.request));
        expect(deducted.length, `${c.request} deducted`).toBeLessThanOrEqual(1);
        expect(returned.length, `${c.request} returned`).toBeLessThanOrEqual(1);
        const record = records.find((r) => r.requestId === c.request);
        if (record?.state === 'redeemed') {
          held += record.points;
          expect(deducted).toHaveLength(1);
          expect(returned).toHaveLength(0);
          expect(h.shop.discounts.byCode(record.code)).toBeDefined();
        } else {
          // Refused or failed: whatever was taken came back.
          expect(deducted.length - returned.length, `${c.request} (${record?.state}) net`).toBe(0);
        }
      }
      expect(await h.balance(customer.member)).toBe(SEED_POINTS - held);
    }
  }, 120_000);
});
