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

  it('opens after consecutive outage failures and rejects calls until the period is over', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail(i === 1 ? 'network' : 'timeout'));
    expect(b.admit()).toBe('reject');
    advance(29_999);
    expect(b.admit()).toBe('reject');
    expect(b.remainingMs()).toBe(1);
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

  it('reports how long it has been open', () => {
    const { b, advance } = breaker();
    for (let i = 0; i < 3; i += 1) b.record(fail());
    advance(90_000);
    expect(b.openForMs()).toBe(90_000);
  });
});
