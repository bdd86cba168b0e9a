import { describe, expect, it } from 'vitest';
import {
  checkedTiming,
  deferralSeconds,
  deriveTiming,
  receivesWithinHorizon,
  TIMING_DEFAULTS,
  timingProblems,
  TimingInvalid,
} from '../../../../shared/config/timing.js';

describe('the one timing derivation', () => {
  it('derives the lease, visibility timeout and receive budget from the worker timeout and the horizon', () => {
    expect(deriveTiming({ workerTimeoutSeconds: 30 })).toMatchObject({
      leaseSeconds: 45,
      visibilityTimeoutSeconds: 180,
      refundWaitSeconds: 120,
      retryHorizonSeconds: 86_400,
      maxReceiveCount: receivesWithinHorizon(deriveTiming()) + TIMING_DEFAULTS.poisonReceives,
    });
  });

  it('accepts its own defaults', () => {
    expect(timingProblems(deriveTiming())).toEqual([]);
  });

  it("refuses npm start's old queue (10 s visibility, 5 receives) under a 120 s lease", () => {
    const problems = timingProblems(deriveTiming({ leaseSeconds: 120, visibilityTimeoutSeconds: 10, maxReceiveCount: 5 }));
    expect(problems.map((p) => p.field).sort()).toEqual(['maxReceiveCount', 'visibilityTimeoutSeconds']);
  });

  it('refuses a lease that does not outlive the worker timeout by the margin', () => {
    expect(() => checkedTiming({ workerTimeoutSeconds: 60, leaseSeconds: 60 })).toThrow(TimingInvalid);
  });

  it('refuses a refund wait longer than the horizon', () => {
    const problems = timingProblems(deriveTiming({ retryHorizonSeconds: 3600, refundWaitSeconds: 3601 }));
    expect(problems.map((p) => p.field)).toEqual(['refundWaitSeconds']);
  });

  it('refuses a horizon that lets a message expire from the queue before it reaches the DLQ', () => {
    const problems = timingProblems(deriveTiming({ retryHorizonSeconds: 4 * 86_400 }));
    expect(problems.map((p) => p.field)).toContain('retryHorizonSeconds');
  });

  it('gives a waiting event enough receives to wait out the whole horizon at the shortest jittered backoff', () => {
    const t = deriveTiming();
    let waited = 0;
    let receives = 0;
    // random() = 1: every deferral at its floor (80 %), the most receives a horizon can take.
    while (waited < t.retryHorizonSeconds * 1000) {
      receives += 1;
      waited += deferralSeconds(receives, t, () => 1) * 1000;
    }
    expect(receives + 1).toBeLessThan(t.maxReceiveCount);
  });
});

describe('deferral backoff', () => {
  const t = { backoffBaseSeconds: 2, backoffCapSeconds: 900 };

  it('doubles with each receive from the base', () => {
    expect([1, 2, 3, 4].map((n) => deferralSeconds(n, t, () => 0))).toEqual([2, 4, 8, 16]);
  });

  it('stops growing at the cap', () => {
    expect(deferralSeconds(40, t, () => 0)).toBe(900);
  });

  it('jitters down by at most a fifth', () => {
    expect(deferralSeconds(20, t, () => 1)).toBe(720);
    expect(deferralSeconds(20, t, () => 0.5)).toBe(810);
  });

  it('waits at least the floor it is given (a lease end)', () => {
    expect(deferralSeconds(1, t, () => 0, 45)).toBe(45);
  });
});
