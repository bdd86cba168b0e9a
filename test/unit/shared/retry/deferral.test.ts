import { describe, expect, it } from 'vitest';
import { deferralFor } from '../../../../shared/retry/index.js';

const settings = { backoffBaseSeconds: 2, backoffCapSeconds: 900, retryHorizonSeconds: 86_400, leaseSeconds: 45 };
const young = { receive: 3, ageMs: 60_000 };

describe('which failures wait and which fail', () => {
  it.each(['lease_held', 'refund_waiting', 'upstream_error', 'lease_lost', 'circuit_open'] as const)(
    'defers %s with the backoff',
    (kind) => {
      expect(deferralFor(kind, young, settings, () => 0)).toEqual({ defer: true, seconds: 8 });
    },
  );

  it('defers an unknown outcome at least until its lease has run out', () => {
    expect(deferralFor('outcome_unknown', young, settings, () => 0)).toEqual({ defer: true, seconds: 45 });
  });

  it.each(['invalid_event', 'configuration_error'] as const)('lets %s fail towards the DLQ', (kind) => {
    expect(deferralFor(kind, young, settings)).toEqual({ defer: false, why: 'not_waiting' });
  });

  it('stops deferring once the event is older than the horizon', () => {
    expect(deferralFor('upstream_error', { receive: 120, ageMs: 86_400_000 }, settings)).toEqual({ defer: false, why: 'horizon_passed' });
  });

  it('waits at least the floor it is given (the open breaker)', () => {
    expect(deferralFor('circuit_open', young, settings, () => 0, 29.2)).toEqual({ defer: true, seconds: 30 });
  });
});
