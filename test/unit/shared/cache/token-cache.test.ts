import { describe, expect, it } from 'vitest';
import { createRenewingToken, createTokenCache } from '../../../../shared/cache/index.js';

/** The one token cache of the Open API, Shopify Admin and Smaregi clients. */
describe('token cache', () => {
  it('peeks a token only before its renewal time', async () => {
    const cache = createTokenCache();
    await cache.get(
      'k',
      () => 0,
      async () => ({ value: 't1', renewAt: 1000 }),
    );
    expect(cache.peek('k', 999)?.value).toBe('t1');
    expect(cache.peek('k', 1000)).toBeUndefined();
  });

  it('says whether a refused token was dropped: not when a newer one is cached', async () => {
    const cache = createTokenCache();
    let n = 0;
    const fetch = async () => ({ value: `t${++n}`, renewAt: 1000 });
    await cache.get('k', () => 0, fetch);
    expect(cache.drop('k', 't1')).toBe(true);
    await cache.get('k', () => 0, fetch);
    expect(cache.drop('k', 't1')).toBe(false);
    expect(cache.peek('k', 0)?.value).toBe('t2');
  });
});

describe('renewing token', () => {
  it('fetches once for concurrent callers, and again once the renewal time is reached', async () => {
    let clock = 0;
    let fetches = 0;
    const token = createRenewingToken(
      async () => {
        fetches++;
        await new Promise((r) => setTimeout(r, 5));
        return { value: `t${fetches}`, renewAt: 1000 + clock };
      },
      () => clock,
    );
    const first = await Promise.all(Array.from({ length: 10 }, () => token.get()));
    expect(new Set(first)).toEqual(new Set(['t1']));
    clock = 999;
    expect(await token.get()).toBe('t1');
    clock = 1000;
    expect(await token.get()).toBe('t2');
    expect(fetches).toBe(2);
  });

  it('keeps the last good token when a fetch fails, and tries again on the next call', async () => {
    let clock = 0;
    let n = 0;
    const token = createRenewingToken(
      async () => {
        n++;
        if (n === 2) throw new Error('down');
        return { value: `t${n}`, renewAt: clock + 10 };
      },
      () => clock,
    );
    expect(await token.get()).toBe('t1');
    clock = 10;
    await expect(token.get()).rejects.toThrow('down');
    expect(await token.get()).toBe('t3');
  });

  it('fetches a new token after a refusal, but keeps one renewed since', async () => {
    let n = 0;
    const token = createRenewingToken(
      async () => ({ value: `t${++n}`, renewAt: Number.POSITIVE_INFINITY }),
      () => 0,
    );
    expect(await token.get()).toBe('t1');
    expect(token.refused('t1')).toBe(true);
    expect(await token.get()).toBe('t2');
    expect(token.refused('t1')).toBe(false);
    expect(await token.get()).toBe('t2');
  });
});
