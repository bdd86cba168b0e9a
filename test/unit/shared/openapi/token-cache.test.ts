import { beforeEach, describe, expect, it } from 'vitest';
import { clearTokenCache, dropToken, getToken, renewAheadMs } from '../../../../shared/openapi/token-cache.js';

describe('token cache', () => {
  beforeEach(() => clearTokenCache());

  it('shares one fetch among concurrent callers', async () => {
    let fetches = 0;
    const fetch = async () => {
      fetches++;
      await new Promise((r) => setTimeout(r, 5));
      return { value: 't1', renewAt: 10_000 };
    };
    const got = await Promise.all(Array.from({ length: 20 }, () => getToken('k', () => 0, fetch)));
    expect(fetches).toBe(1);
    expect(new Set(got.map((t) => t.value))).toEqual(new Set(['t1']));
  });

  it('fetches again once the renewal time is reached', async () => {
    let n = 0;
    const fetch = async () => ({ value: `t${++n}`, renewAt: 1000 });
    expect((await getToken('k', () => 999, fetch)).value).toBe('t1');
    expect((await getToken('k', () => 1000, fetch)).value).toBe('t2');
  });

  it('does not keep a failed fetch: the next caller tries again', async () => {
    let n = 0;
    const fetch = async () => {
      if (++n === 1) throw new Error('down');
      return { value: 'ok', renewAt: 10 };
    };
    await expect(getToken('k', () => 0, fetch)).rejects.toThrow('down');
    expect((await getToken('k', () => 0, fetch)).value).toBe('ok');
  });

  it('drops a refused token but keeps a newer one', async () => {
    let n = 0;
    const fetch = async () => ({ value: `t${++n}`, renewAt: 1000 });
    await getToken('k', () => 0, fetch);
    dropToken('k', 't1');
    expect((await getToken('k', () => 0, fetch)).value).toBe('t2');
    dropToken('k', 't1');
    expect((await getToken('k', () => 0, fetch)).value).toBe('t2');
  });

  it('keeps tokens of different clients apart', async () => {
    const a = await getToken(
      'a',
      () => 0,
      async () => ({ value: 'A', renewAt: 10 }),
    );
    const b = await getToken(
      'b',
      () => 0,
      async () => ({ value: 'B', renewAt: 10 }),
    );
    expect([a.value, b.value]).toEqual(['A', 'B']);
  });

  it('renews a 24-hour token 5 minutes ahead and a short one at 90% of its life', () => {
    expect([renewAheadMs(86_400), renewAheadMs(100)]).toEqual([300_000, 10_000]);
  });
});
