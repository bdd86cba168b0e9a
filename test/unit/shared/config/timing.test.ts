import { describe, expect, it } from 'vitest';
import {
  checkedTiming,
  deferralSeconds,
  deriveTiming,
  poisonToDeadLetterSeconds,
  TIMING_DEFAULTS,
  timingProblems,
} from '../../../../shared/config/timing.js';

describe('the one timing derivation', () => {
  it('derives the visibility timeout and receive budget from the worker timeout and the horizon, and a 30 s lease', () => {
    expect(deriveTiming({ workerTimeoutSeconds: 30 })).toMatchObject({
      leaseSeconds: 30,
      visibilityTimeoutSeconds: 180,
      refundWaitSeconds: 120,
      retryHorizonSeconds: 86_400,
      maxReceiveCount: TIMING_DEFAULTS.poisonReceives + 1,
    });
  });

  it('accepts its own defaults', () => {
    expect(timingProblems(deriveTiming())).toEqual([]);
  });

  it('refuses a visibility timeout shorter than a 120 s lease, and a single receive a set-aside copy cannot run in', () => {
    const problems = timingProblems(deriveTiming({ leaseSeconds: 120, visibilityTimeoutSeconds: 10, maxReceiveCount: 1 }));
    expect(problems.map((p) => p.field).sort()).toEqual(['maxReceiveCount', 'visibilityTimeoutSeconds']);
  });

  it('keeps the default lease whatever the worker timeout: the send window, not the invocation, bounds its calls', () => {
    expect(deriveTiming({ workerTimeoutSeconds: 120 }).leaseSeconds).toBe(30);
  });

  it('refuses a lease that leaves less than 5 s to send after its 15 s margin', () => {
    expect(timingProblems(deriveTiming({ leaseSeconds: 20 }))).toEqual([]);
    expect(() => checkedTiming({ leaseSeconds: 19 })).toThrow(expect.objectContaining({ kind: 'invalid_timing' }));
    expect(timingProblems(deriveTiming({ leaseSeconds: 19 })).map((p) => p.field)).toEqual(['leaseSeconds']);
  });

  it('keeps a 120-s in-doubt horizon by default and refuses one shorter than the lease margin', () => {
    expect(deriveTiming().inDoubtSeconds).toBe(120);
    expect(timingProblems(deriveTiming({ inDoubtSeconds: 15 }))).toEqual([]);
    expect(timingProblems(deriveTiming({ inDoubtSeconds: 14 })).map((p) => p.field)).toEqual(['inDoubtSeconds']);
  });

  it('refuses a refund wait longer than the horizon', () => {
    const problems = timingProblems(deriveTiming({ retryHorizonSeconds: 3600, refundWaitSeconds: 3601 }));
    expect(problems.map((p) => p.field)).toEqual(['refundWaitSeconds']);
  });

  it('refuses a horizon that lets a message expire from the queue before it reaches the DLQ', () => {
    const problems = timingProblems(deriveTiming({ retryHorizonSeconds: 4 * 86_400 }));
    expect(problems.map((p) => p.field)).toContain('retryHorizonSeconds');
  });

  it('sends poison to the DLQ within minutes: every receive failing, the default receives take under 6 minutes', () => {
    expect(poisonToDeadLetterSeconds(deriveTiming().maxReceiveCount)).toBeLessThan(6 * 60);
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
