import { describe, expect, it } from 'vitest';
import { createSimClock } from '../../chaos/sim-clock.js';

describe('the chaos run’s simulated clock', () => {
  it('fires the timers a jump passes, in due order, and moves now by the jump', () => {
    const clock = createSimClock();
    const fired: string[] = [];
    const start = clock.now();
    clock.setTimeout(() => fired.push('late'), 60_000);
    clock.setTimeout(() => fired.push('early'), 30_000);
    clock.setTimeout(() => fired.push('never'), 3_600_000);
    clock.jump(90_000);
    expect(fired).toEqual(['early', 'late']);
    expect(clock.now() - start).toBeGreaterThanOrEqual(90_000);
    expect(clock.jumpedMs()).toBe(90_000);
  });

  it('does not fire a cleared timer', () => {
    const clock = createSimClock();
    let fired = false;
    const handle = clock.setTimeout(() => {
      fired = true;
    }, 1000);
    clock.clearTimeout(handle);
    clock.jump(2000);
    expect(fired).toBe(false);
  });
});

describe('the simulated clock’s jump limit', () => {
  it('caps a jump at the limit and says how far it moved', () => {
    const clock = createSimClock();
    const start = clock.now();
    clock.setJumpLimit(() => start + 10_000);
    expect(clock.jump(60_000)).toBeLessThanOrEqual(10_000);
    expect(clock.now()).toBeLessThan(start + 11_000);
    clock.setJumpLimit(undefined);
    expect(clock.jump(60_000)).toBe(60_000);
  });

  it('tells the simulated time at a past real moment, jumps included', () => {
    const clock = createSimClock();
    const before = Date.now();
    clock.jump(90_000);
    expect(clock.simAt(before - 1)).toBe(before - 1);
    const now = Date.now();
    expect(clock.simAt(now)).toBe(now + 90_000);
  });
});
