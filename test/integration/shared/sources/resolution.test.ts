import { describe, expect, it } from 'vitest';
import { SmaregiSettings, smaregiThinEvent } from '../../../../shared/sources/index.js';
import { SENDER_RESOLUTIONS, withSenderResolution } from '../../../../shared/sources/resolution.entry.js';
import { DAY_MS } from '../../../../shared/time/index.js';
import { purchase, useHarness } from '../points/harness.js';

/**
 * Thin events resolved by their sender before the points protocol (shared/sources/resolution.ts), on the
 * real ledger and Open API client: checked against the sender's schema and admitted first, as any event.
 */
describe('a thin event before its sender resolves it', () => {
  const h = useHarness();
  const processor = (ledgerTtlDays?: number) =>
    withSenderResolution(
      h.processor(ledgerTtlDays === undefined ? {} : { settings: { ledgerTtlDays } }),
      { resolutions: SENDER_RESOLUTIONS, clients: {} },
      { ledger: h.ledger, openapi: h.api },
    );
  const thin = (id: string, atMs: number) => smaregiThinEvent(id, 'smaregi', SmaregiSettings.parse({ contractId: 'c1' }), atMs, 'created');

  it('is refused as an invalid event, recording nothing, when its part is off its sender’s schema', async () => {
    const event = {
      ...purchase({ source: 'square' }),
      amountFrom: { kind: 'square_order', orderId: 'bad id!', paymentMinor: 1, rule: 'minor' },
    };
    const outcome = await processor().process(event);
    expect(outcome).toMatchObject({ kind: 'invalid_event', action: 'retry', reason: expect.stringContaining('amountFrom.orderId') });
    expect(await h.ledger.getOrder({ source: 'square', orderId: event.orderId })).toBeUndefined();
  });

  it('is skipped as too old before its sender is asked, as any event past the ledger’s retention', async () => {
    const outcome = await processor(30).process(thin('7001', h.clock() - 31 * DAY_MS));
    expect(outcome).toEqual({ kind: 'skipped', action: 'ack', reason: 'too_old' });
  });

  it('waits as a configuration error when the worker has no access to its sender', async () => {
    const outcome = await processor().process(thin('7002', h.clock()));
    expect(outcome).toMatchObject({ kind: 'configuration_error', action: 'retry', errorKind: 'smaregi_not_configured' });
  });
});
