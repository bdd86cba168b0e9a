import { describe, expect, it } from 'vitest';
import { deferralFor, retryReason } from '../../../../shared/retry/index.js';

const settings = { backoffBaseSeconds: 2, backoffCapSeconds: 900, retryHorizonSeconds: 86_400, leaseSeconds: 45 };
const young = { receive: 3, ageMs: 60_000 };

describe('which failures wait and which fail', () => {
  it.each(['lease_held', 'refund_waiting', 'upstream_error', 'lease_lost'] as const)('defers %s with the backoff', (kind) => {
    expect(deferralFor({ kind }, young, settings, () => 0)).toEqual({ defer: true, seconds: 8 });
  });

  it('defers an open breaker with the backoff', () => {
    expect(deferralFor('circuit_open', young, settings, () => 0)).toEqual({ defer: true, seconds: 8 });
  });

  it('defers an unknown outcome whose request may still land until its lease has run out', () => {
    expect(deferralFor({ kind: 'outcome_unknown', leaseKept: true }, young, settings, () => 0)).toEqual({ defer: true, seconds: 45 });
  });

  it('defers an unknown outcome whose lease was released only by the backoff: the next attempt may reconcile now', () => {
    expect(deferralFor({ kind: 'outcome_unknown', leaseKept: false }, { receive: 1, ageMs: 0 }, settings, () => 0)).toEqual({
      defer: true,
      seconds: 2,
    });
  });

  it.each(['invalid_event', 'configuration_error'] as const)('lets %s fail towards the DLQ', (kind) => {
    expect(deferralFor({ kind }, young, settings)).toEqual({ defer: false, why: 'not_waiting' });
  });

  it('stops deferring once the event is older than the horizon', () => {
    expect(deferralFor({ kind: 'upstream_error' }, { receive: 120, ageMs: 86_400_000 }, settings)).toEqual({
      defer: false,
      why: 'horizon_passed',
    });
  });

  it('waits at least the floor it is given (the open breaker)', () => {
    expect(deferralFor('circuit_open', young, settings, () => 0, 29.2)).toEqual({ defer: true, seconds: 30 });
  });

  it('defers a credited purchase kept for a pending follow-up as that follow-up waits, not to the visibility timeout', () => {
    const credited = { kind: 'credited' as const, followUps: [{ kind: 'upstream_error', action: 'retry' }] };
    expect(retryReason(credited)).toBe('upstream_error');
    expect(deferralFor(credited, { receive: 1, ageMs: 0 }, settings, () => 0)).toEqual({ defer: true, seconds: 2 });
  });

  it('defers a customer event retried for an earlier purchase as that purchase waits, without spending the dead-letter budget', () => {
    const linked = { kind: 'linked' as const, earlier: { pendingKind: 'lease_held' } };
    expect(retryReason(linked)).toBe('lease_held');
    expect(deferralFor(linked, { receive: 1, ageMs: 0 }, settings, () => 0)).toEqual({ defer: true, seconds: 2 });
  });

  it('defers a redaction that ran out of time (it goes on where it stopped), without spending the dead-letter budget', () => {
    expect(deferralFor({ kind: 'redaction_continues' }, { receive: 1, ageMs: 0 }, settings, () => 0)).toEqual({ defer: true, seconds: 2 });
  });

  it('lets a customer event fail towards the DLQ when its earlier purchase cannot be read', () => {
    const linked = { kind: 'linked' as const, earlier: { pendingKind: 'invalid_event' } };
    expect(deferralFor(linked, { receive: 1, ageMs: 0 }, settings, () => 0)).toEqual({ defer: false, why: 'not_waiting' });
  });
});

describe('a lease held by another attempt', () => {
  it('is retried with the backoff while that is shorter than the lease', () => {
    expect(deferralFor({ kind: 'lease_held', until: 45_000 }, { receive: 1, ageMs: 0, nowMs: 0 }, settings, () => 0)).toEqual({
      defer: true,
      seconds: 2,
    });
  });

  it('waits seconds for a lease taken a moment ago, however often it waited for other leases before', () => {
    // Taken 1 s ago (leases run 45 s): a live holder, likely done within seconds; the old policy slept to its end (45 s).
    const fresh = { kind: 'lease_held' as const, until: 100_000 + 44_000 };
    expect(deferralFor(fresh, { receive: 7, ageMs: 90_000, nowMs: 100_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 2 });
    const linked = { kind: 'linked' as const, earlier: { pendingKind: 'lease_held', pendingUntil: 100_000 + 44_000 } };
    expect(deferralFor(linked, { receive: 9, ageMs: 90_000, nowMs: 100_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 2 });
  });

  it('waits about as long as a lease has been held, never longer than the backoff would, nor past its end', () => {
    const heldTen = { kind: 'lease_held' as const, until: 100_000 + 35_000 };
    expect(deferralFor(heldTen, { receive: 6, ageMs: 90_000, nowMs: 100_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 10 });
    expect(deferralFor(heldTen, { receive: 2, ageMs: 90_000, nowMs: 100_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 4 });
    const heldForty = { kind: 'lease_held' as const, until: 100_000 + 5_000 };
    expect(deferralFor(heldForty, { receive: 6, ageMs: 90_000, nowMs: 100_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 6 });
  });

  it('never waits past the lease’s end, when a crashed holder’s lease can be taken over', () => {
    expect(deferralFor({ kind: 'lease_held', until: 45_000 }, { receive: 5, ageMs: 30_000, nowMs: 30_000 }, settings, () => 0)).toEqual({
      defer: true,
      seconds: 16,
    });
  });
});

describe('a customer event waiting for an earlier purchase held by another attempt', () => {
  it('never waits past the end of that lease, however often it waited before', () => {
    const linked = { kind: 'linked' as const, earlier: { pendingKind: 'lease_held', pendingUntil: 45_000 } };
    expect(deferralFor(linked, { receive: 9, ageMs: 30_000, nowMs: 30_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 16 });
  });
});

describe('a refund waiting for its purchase', () => {
  it('is not kept waiting past the moment it is parked', () => {
    expect(
      deferralFor({ kind: 'refund_waiting', until: 120_000 }, { receive: 7, ageMs: 110_000, nowMs: 110_000 }, settings, () => 0),
    ).toEqual({
      defer: true,
      seconds: 11,
    });
  });
});

describe('a call the shared budget refused', () => {
  const refused = (retryAfterSeconds: number) => ({ kind: 'upstream_error' as const, errorKind: 'budget_spent', retryAfterSeconds });

  it('waits for the minute a slot is expected in, not the backoff of the times it waited before', () => {
    expect(deferralFor(refused(37), { receive: 8, ageMs: 600_000 }, settings, () => 0)).toEqual({ defer: true, seconds: 37 });
  });

  it('comes back at a point spread across that minute, not all at its start', () => {
    expect(deferralFor(refused(37), young, settings, () => 0.5)).toEqual({ defer: true, seconds: 67 });
    expect(deferralFor(refused(37), young, settings, () => 0.999)).toEqual({ defer: true, seconds: 96 });
  });
});
