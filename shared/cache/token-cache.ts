/**
 * Access tokens by key (one per client), single-flight and renewed ahead of expiry: the one token cache
 * of the Open API, Shopify Admin and Smaregi clients. Each says when its token is renewed (`renewAt`,
 * from its own renew-ahead margin); the cache fetches once however many callers wait, keeps the last
 * good token when a fetch fails, and drops a token the API refused unless a newer one came meanwhile.
 */
import { createSingleFlightCache } from './single-flight-cache.js';

export interface CachedToken {
  value: string;
  /** Client clock (ms) from which the token is no longer used: a new one is fetched. */
  renewAt: number;
}

export interface TokenCache {
  /** The cached token of `key` when it is still good at `now`: the hot path, without a promise. */
  peek(key: string, now: number): CachedToken | undefined;
  /** The cached token of `key`, or the result of `fetch` (one call however many callers wait). */
  get(key: string, now: () => number, fetch: () => Promise<CachedToken>): Promise<CachedToken>;
  /** Drops `value` if it is still the cached token of `key` (a newer one is kept); says whether it did. */
  drop(key: string, value: string): boolean;
  /** Forgets every token. */
  clear(): void;
}

export function createTokenCache(): TokenCache {
  const cache = createSingleFlightCache<CachedToken>();
  return {
    peek(key, now) {
      const token = cache.peek(key);
      return token && now < token.renewAt ? token : undefined;
    },
    get: (key, now, fetch) => cache.get(key, (token) => now() < token.renewAt, fetch),
    drop(key, value) {
      if (cache.peek(key)?.value !== value) return false;
      cache.drop(key, (token) => token.value === value);
      return true;
    },
    clear: () => cache.clear(),
  };
}

/** One client's token: fetched by `fetch`, renewed at its `renewAt`. */
export interface RenewingToken {
  get(): Promise<string>;
  /** The API refused `value`: the next get() fetches a new one, unless a newer one came meanwhile (then false). */
  refused(value: string): boolean;
}

export function createRenewingToken(fetch: () => Promise<CachedToken>, now: () => number = Date.now): RenewingToken {
  const cache = createTokenCache();
  const KEY = 'token';
  return {
    get() {
      const token = cache.peek(KEY, now());
      if (token) return Promise.resolve(token.value);
      return cache.get(KEY, now, fetch).then((t) => t.value);
    },
    refused: (value) => cache.drop(KEY, value),
  };
}
