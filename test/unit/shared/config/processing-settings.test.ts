import { describe, expect, it } from 'vitest';
import { processingSettingsFromEnv } from '../../../../shared/config/processing-settings.js';

describe('processing settings', () => {
  it('defaults: clamp, 400 days of ledger, a 120 s lease, 2000 requests per minute', () => {
    expect(processingSettingsFromEnv({})).toEqual({
      insufficientPointsPolicy: 'clamp',
      refundWaitSeconds: 120,
      ledgerTtlDays: 400,
      leaseSeconds: 120,
      rateBudgetPerMinute: 2000,
      historyPages: 5,
    });
  });

  it('reads every variable', () => {
    const s = processingSettingsFromEnv({
      INSUFFICIENT_POINTS_POLICY: 'park',
      REFUND_WAIT_SECONDS: '30',
      LEDGER_TTL_DAYS: '30',
      LEASE_SECONDS: '90',
      RATE_BUDGET_PER_MINUTE: '500',
    });
    expect(s).toMatchObject({ insufficientPointsPolicy: 'park', refundWaitSeconds: 30, ledgerTtlDays: 30, leaseSeconds: 90, rateBudgetPerMinute: 500 });
  });

  it('rejects a rate budget above the spec ceiling, naming the variable', () => {
    expect(() => processingSettingsFromEnv({ RATE_BUDGET_PER_MINUTE: '5000' })).toThrow(/RATE_BUDGET_PER_MINUTE/);
  });
});
