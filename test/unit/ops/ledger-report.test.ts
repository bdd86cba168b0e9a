import { describe, expect, it } from 'vitest';
import { recordLines } from '../../../ops/ledger-report.js';

describe('npm run ledger: a record for the operator', () => {
  it("prints the record's times in Japan time, nested ones too, and the epoch numbers with their time", () => {
    const lines = recordLines({
      orderId: '8100000000000000001',
      createdAt: '2026-12-01T00:30:00.000Z',
      refunds: { r1: { amount: 3000, at: '2026-12-01T15:00:00.000Z' } },
      leaseUntil: Date.parse('2026-12-01T00:31:00.000Z'),
      ttl: Date.parse('2027-03-01T00:00:00.000Z') / 1000,
    });
    expect(lines).toEqual([
      '    orderId: 8100000000000000001',
      '    createdAt: 2026-12-01 09:30:00 JST (+09:00)',
      '    refunds: {"r1":{"amount":3000,"at":"2026-12-02 00:00:00 JST (+09:00)"}}',
      `    leaseUntil: ${Date.parse('2026-12-01T00:31:00.000Z')} (2026-12-01 09:31:00 JST (+09:00))`,
      `    ttl: ${Date.parse('2027-03-01T00:00:00.000Z') / 1000} (2027-03-01 09:00:00 JST (+09:00))`,
    ]);
  });
});
