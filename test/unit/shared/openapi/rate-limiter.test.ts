import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../../../../shared/openapi/rate-limiter.js';

/** A fake clock whose sleep advances it: the limiter's decisions, without waiting. */
function fakeTime() {
  let t = 1_000_000;
  const sends: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
    sends,
  };
}

describe('rate limiter', () => {
  it('lets a burst up to the budget through without delay', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ perMinute: 5, now: time.now, sleep: time.sleep });
    for (let i = 0; i < 5; i++) await limiter.acquire('GET /a');
    expect(time.now()).toBe(1_000_000);
  });

  it('delays the request over budget until the window has room', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ perMinute: 5, now: time.now, sleep: time.sleep });
    for (let i = 0; i < 6; i++) await limiter.acquire('GET /a');
    expect(time.now()).toBe(1_060_000);
  });

  it('never lets more than the budget through in any 60-second window', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ perMinute: 7, now: time.now, sleep: time.sleep });
    const sent: number[] = [];
    for (let i = 0; i < 40; i++) {
      await limiter.acquire('GET /a');
      sent.push(time.now());
      await time.sleep(Math.floor((i * 7919) % 5000)); // irregular gaps
    }
    const worst = Math.max(...sent.map((s) => sent.filter((x) => x >= s && x < s + 60_000).length));
    expect(worst).toBe(7);
  });

  it('keeps a separate budget per endpoint', async () => {
    const time = fakeTime();
    const limiter = createRateLimiter({ perMinute: 1, now: time.now, sleep: time.sleep });
    await limiter.acquire('GET /a');
    await limiter.acquire('POST /b');
    expect(time.now()).toBe(1_000_000);
  });

  it('queues concurrent callers in order instead of refusing them', async () => {
    const time = { t: 0 };
    const waits: number[] = [];
    const limiter = createRateLimiter({
      perMinute: 2,
      now: () => time.t,
      sleep: async (ms) => void waits.push(ms),
    });
    await Promise.all([1, 2, 3, 4, 5].map(() => limiter.acquire('GET /a')));
    expect(waits).toEqual([60_000, 60_000, 120_000]);
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => createRateLimiter({ perMinute: 0, now: Date.now })).toThrow(/positive integer/);
  });
});
