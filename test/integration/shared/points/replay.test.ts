/**
 * Defence in depth behind intake's replay window: the worker itself refuses an event older than
 * the ledger's retention (its record may be gone), before it claims anything or calls anyone.
 */
import { describe, expect, it } from 'vitest';
import { purchaseMarker } from '../../../../shared/points/index.js';
import { purchase, refund, useHarness } from './harness.js';

const h = useHarness();
// The harness clock starts at 2026-01-15T01:00Z; the ledger keeps finished records 400 days by default.
const LONG_AGO = '2024-12-01T10:00:00+09:00';

describe('events older than the ledger retention', () => {
  it('a purchase earns nothing: skipped as too_old, no call, no ledger record', async () => {
    const event = purchase({ occurredAt: LONG_AGO });
    const outcome = await h.processor().process(event);
    expect(outcome).toEqual({ kind: 'skipped', action: 'ack', reason: 'too_old' });
    expect(await h.ledger.getOrder(event)).toBeUndefined();
    expect(await h.entries('member-gold', purchaseMarker(event.source, event.orderId))).toEqual([]);
    expect(await h.calls('GET /api/ext/users/external_id/{external_key}/{external_id}')).toBe(0);
  });

  it('a refund takes nothing', async () => {
    const event = refund(purchase(), 'r1', 1000, { occurredAt: LONG_AGO });
    expect(await h.processor().process(event)).toEqual({ kind: 'skipped', action: 'ack', reason: 'too_old' });
  });

  it('a purchase just inside the retention is processed as usual', async () => {
    const event = purchase({ occurredAt: '2025-01-01T00:00:00Z', expiryDays: null });
    expect(await h.processor().process(event)).toMatchObject({ kind: 'credited' });
  });
});
