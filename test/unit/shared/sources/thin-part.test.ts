import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import type { PointsEvent } from '../../../../shared/events/index.js';
import { configureSource } from '../../../../shared/sources/registry.js';
import { SmaregiStateFrom } from '../../../../shared/sources/smaregi/thin.js';
import { ok, type WebhookSource } from '../../../../shared/sources/types.js';

/** The intake checks a sender's own part of its events against the sender's schema: nothing off-contract is queued. */
const event = (stateFrom: unknown): PointsEvent =>
  ({
    type: 'purchase',
    eventId: 'acme:transaction:1',
    source: 'acme',
    orderId: '1',
    customer: null,
    currency: 'JPY',
    occurredAt: '2026-01-15T10:00:00+09:00',
    pointTitle: 'Purchase',
    test: false,
    delivery: { id: 'd-1', topic: 'pos:transactions/created' },
    eligibleAmount: 0,
    expiryDays: null,
    stateFrom,
  }) as PointsEvent;

const source = (part: unknown): WebhookSource<object, object> => ({
  kind: 'acme',
  settingsSchema: z.object({}),
  verify: () => null,
  parse: () => ok({}),
  normalise: () => ok(event(part)),
  thinPart: { key: 'stateFrom', kind: 'smaregi_transaction', schema: SmaregiStateFrom },
});
const request = { rawBody: Buffer.from('{}'), headers: {} };

describe("a sender's part of its events at intake", () => {
  it('is refused with the field it gets wrong when off the sender’s schema', () => {
    const read = configureSource(source({ kind: 'smaregi_transaction', transactionHeadId: 'x' }), 'acme', {}).readMany(request);
    expect(read).toMatchObject({ status: 'rejected', error: { kind: 'invalid_payload', path: 'event.stateFrom.transactionHeadId' } });
  });

  it('is queued as the sender made it when on its schema', () => {
    const part = {
      kind: 'smaregi_transaction',
      transactionHeadId: '1',
      externalKey: 'smaregi',
      customerField: 'customerCode',
      pointsSpent: 'discount',
      rule: 'major_floor',
      pointTitle: 'Purchase {order}',
      refundTitle: 'Refund {order}',
    };
    expect(configureSource(source(part), 'acme', {}).read(request)).toEqual({ status: 'ok', value: event(part) });
  });
});
