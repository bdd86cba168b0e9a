import { describe, expect, it } from 'vitest';
import { createSingleFlightCache } from '../../../../shared/cache/single-flight-cache.js';

const always = () => true;
const never = () => false;

describe('single-flight cache', () => {
  it('hands the load in flight to every caller, even one that would accept the stored value', async () => {
    const cache = createSingleFlightCache<{ v: number }>();
    await cache.get('k', always, async () => ({ v: 1 }));
    const refreshing = cache.get('k', never, async () => ({ v: 2 }));
    const meanwhile = cache.get('k', always, async () => ({ v: 3 }));
    expect([(await refreshing).v, (await meanwhile).v]).toEqual([2, 2]);
    expect(cache.peek('k')).toEqual({ v: 2 });
  });

  it('keeps the previous value when a load fails, and loads again on the next call', async () => {
    const cache = createSingleFlightCache<{ v: number }>();
    await cache.get('k', always, async () => ({ v: 1 }));
    await expect(cache.get('k', never, async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.peek('k')).toEqual({ v: 1 });
    expect((await cache.get('k', never, async () => ({ v: 2 }))).v).toBe(2);
  });

  it('answers a load in flight during clear() but does not store its value', async () => {
    const cache = createSingleFlightCache<{ v: number }>();
    let finish!: (value: { v: number }) => void;
    const pending = cache.get('k', always, () => new Promise((resolve) => (finish = resolve)));
    cache.clear();
    finish({ v: 1 });
    expect((await pending).v).toBe(1);
    expect(cache.peek('k')).toBeUndefined();
  });
});
