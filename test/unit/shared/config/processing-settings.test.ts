import { describe, expect, it } from 'vitest';
import { processingSettingsFromEnv } from '../../../../shared/config/processing-settings.js';

describe('processing settings', () => {
  it('defaults: clamp, 400 days of ledger, the derived 30 s lease, 2000 requests per minute, 24 h of deferral', () => {
    expect(processingSettingsFromEnv({})).toEqual({
      insufficientPointsPolicy: 'clamp',
      refundWaitSeconds: 120,
      ledgerTtlDays: 400,
      leaseSeconds: 30,
      upstreamBudgetPerMinute: 1800,
      historyPages: 5,
      inDoubtSeconds: 120,
      backoffBaseSeconds: 2,
      backoffCapSeconds: 900,
      retryHorizonSeconds: 86_400,
      circuitOpenSeconds: 30,
    });
  });

  it('reads the deferral settings, naming the variable of a bad one', () => {
    expect(processingSettingsFromEnv({ RETRY_BACKOFF_BASE_SECONDS: '5', RETRY_HORIZON_SECONDS: '3600' })).toMatchObject({
      backoffBaseSeconds: 5,
      retryHorizonSeconds: 3600,
    });
    expect(() => processingSettingsFromEnv({ CIRCUIT_OPEN_SECONDS: 'never' })).toThrow(/CIRCUIT_OPEN_SECONDS/);
  });

  it('reads every variable', () => {
    const s = processingSettingsFromEnv({
      INSUFFICIENT_POINTS_POLICY: 'park',
      REFUND_WAIT_SECONDS: '30',
      LEDGER_TTL_DAYS: '30',
      LEASE_SECONDS: '90',
      UPSTREAM_BUDGET_PER_MINUTE: '500',
    });
    expect(s).toMatchObject({
      insufficientPointsPolicy: 'park',
      refundWaitSeconds: 30,
      ledgerTtlDays: 30,
      leaseSeconds: 90,
      upstreamBudgetPerMinute: 500,
    });
  });

  it('rejects a rate budget above the spec ceiling, naming the variable', () => {
    expect(() => processingSettingsFromEnv({ UPSTREAM_BUDGET_PER_MINUTE: '5000' })).toThrow(/UPSTREAM_BUDGET_PER_MINUTE/);
  });
});
