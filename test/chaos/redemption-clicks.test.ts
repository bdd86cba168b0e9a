import { describe, expect, it } from 'vitest';
import { pressEnd, waitBeforePressing } from '../../chaos/redemption-clicks.js';
import { createSimClock } from '../../chaos/sim-clock.js';

/**
 * The chaos customer pressing again (chaos/redemption-clicks.ts): the redemption route runs on real
 * time, so the page's "press again in N s" is waited in real time, not by a jump of the run's clock.
 */

const inDoubt = (retryAfterSeconds: number) => ({
  status: 503,
  body: { error: { kind: 'in_doubt', message: 'still being made', retryAfterSeconds } } as Record<string, unknown>,
});

/** The real waits asked for (none taken: the test runs at once). */
function recorder() {
  const waits: number[] = [];
  return { waits, pause: async (ms: number) => void waits.push(ms), total: () => waits.reduce((a, b) => a + b, 0) };
}

describe('waitBeforePressing', () => {
  it("waits the page's Retry-After in real time after the drain, even though the run's clock can jump", async () => {
    const r = recorder();
    await waitBeforePressing({ clock: createSimClock(), isIdle: () => true }, inDoubt(39), r.pause);
    expect(r.total()).toBeGreaterThanOrEqual(40_000);
  });

  it('waits only a moment while the run is still working (the click is pressed again after the drain)', async () => {
    const r = recorder();
    await waitBeforePressing({ clock: createSimClock(), isIdle: () => false }, inDoubt(39), r.pause);
    expect(r.total()).toBe(100);
  });

  it('waits only a moment after an answer that is not in doubt', async () => {
    const r = recorder();
    await waitBeforePressing(
      { clock: createSimClock(), isIdle: () => true },
      { status: 503, body: { error: { kind: 'unavailable' } } },
      r.pause,
    );
    expect(r.total()).toBe(100);
  });
});

describe('pressEnd', () => {
  it('ends a click whose redemption the sweep found never ran (nothing taken, start a new one) instead of pressing again', () => {
    const answer = { status: 503, body: { error: { kind: 'code_unavailable', returned: false } } as Record<string, unknown> };
    expect(pressEnd(answer)).toBe('not_run');
  });

  it('presses again while the deduction is in doubt', () => {
    expect(pressEnd(inDoubt(39))).toBe('again');
  });

  it('does not take a code that failed after its points were given back for one that never ran', () => {
    const answer = { status: 503, body: { error: { kind: 'code_unavailable', returned: true } } as Record<string, unknown> };
    expect(pressEnd(answer)).toBe('again');
  });
});
