import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from '../../../../shared/retry/index.js';

function breaker() {
  let now = 0;
  const b = createCircuitBreaker({ openMs: 30_000, failureThreshold: 3, now: () => now });
  return { b, advance: (ms: number) => (now += ms) };
}
const fail = (kind = 'server') => ({ ok: false as const, errorKind: kind });

describe('the circuit breaker', () => {
  it('lets calls through while the service answers', () => {
    const { b } = breaker();
    b.record(fail());
    b.record(fail());
    b.record({ ok: true });
    b.record(fail());
    expect(b.admit()).toBe('pass');
  });

  it('opens after consecutive outage failures and rejects calls until its first period is over', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail(i === 1 ? 'network' : 'timeout'));
    expect(b.admit()).toBe('reject');
    advance(4_999);
    expect(b.admit()).toBe('reject');
    expect(b.remainingMs()).toBe(1);
  });

  it('probes 5 s after it opens, and doubles the wait after each failed probe up to the open period', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    const waits: number[] = [];
    for (let probe = 0; probe < 5; probe += 1) {
      waits.push(b.remainingMs());
      advance(b.remainingMs());
      expect(b.admit()).toBe('probe');
      b.record(fail());
      b.probeDone();
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 30_000, 30_000]);
  });

  it('starts again at the first period when it opens again after closing', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    for (let probe = 0; probe < 3; probe += 1) {
      advance(b.remainingMs());
      b.admit();
      b.record(fail());
      b.probeDone();
    }
    advance(b.remainingMs());
    b.admit();
    b.record({ ok: true });
    b.probeDone();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    expect(b.remainingMs()).toBe(5_000);
  });

  it('keeps the period when a call already in flight fails while it is open (only a failed probe lengthens it)', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    advance(1_000);
    b.record(fail());
    expect(b.remainingMs()).toBe(5_000);
  });

  it('lets exactly one probe through per period while open', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    advance(30_000);
    expect([b.admit(), b.admit(), b.admit()]).toEqual(['probe', 'reject', 'reject']);
    b.record(fail());
    b.probeDone();
    expect(b.admit()).toBe('reject');
    advance(30_000);
    expect(b.admit()).toBe('probe');
  });

  it('closes when a probe succeeds', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    advance(30_000);
    b.admit();
    b.record({ ok: true });
    b.probeDone();
    expect(b.isOpen()).toBe(false);
    expect(b.admit()).toBe('pass');
  });

  it('counts answers about the request (customer unknown) as the service being up', () => {
    const { b } = breaker();
    b.record(fail());
    b.record(fail());
    b.record(fail('member_not_found'));
    b.record(fail());
    expect(b.admit()).toBe('pass');
  });

  it('neither closes nor counts on a call our own client refused to send (a closed lease window, a bad parameter)', () => {
    const { b } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    b.record(fail('lease_window_closed'));
    b.record(fail('invalid_request'));
    expect(b.isOpen()).toBe(true);
    const closed = breaker();
    closed.b.record(fail());
    closed.b.record(fail());
    closed.b.record(fail('lease_window_closed'));
    closed.b.record(fail());
    expect(closed.b.isOpen()).toBe(true);
  });

  it('reports how long it has been open', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    advance(90_000);
    expect(b.openForMs()).toBe(90_000);
  });
});
