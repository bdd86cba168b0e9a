import { describe, expect, it } from 'vitest';
import { SENDER_RESOLUTIONS, withSenderResolution } from '../../../../../shared/sources/resolution.entry.js';
import { purchase, useHarness } from '../../points/harness.js';

const GOLD = 'member-gold';

/** A purchase that earns on its Square order without tax, when the order cannot be read. */
describe("a purchase whose amount is its Square order's", () => {
  const h = useHarness();
  const fromOrder = (orderId: string) =>
    purchase({
      source: 'square',
      amountFrom: { kind: 'square_order', orderId, paymentMinor: 11_000, rule: 'major_floor' },
      eligibleAmount: 11_000,
    });
  // The worker's processor: thin events resolved by their sender first; this one has no Square access.
  const processor = () =>
    withSenderResolution(h.processor(), { resolutions: SENDER_RESOLUTIONS, clients: {} }, { ledger: h.ledger, openapi: h.api });

  it('waits as a configuration error, recording and granting nothing, when the worker has no Square access', async () => {
    const event = fromOrder('O-NOACCESS');
    const outcome = await processor().process(event);
    expect(outcome).toMatchObject({ kind: 'configuration_error', action: 'retry', errorKind: 'square_orders_not_configured' });
    expect(await h.ledger.getOrder({ source: 'square', orderId: event.orderId })).toBeUndefined();
    expect(await h.balance(GOLD)).toBe(0);
  });
});
