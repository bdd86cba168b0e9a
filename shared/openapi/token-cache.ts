/**
 * Access tokens, cached at module scope so they survive warm Lambda invocations and are shared by
 * every client in the container. Keyed by base URL + client id. The project's one token cache
 * (shared/cache): single-flight, concurrent callers share one token request.
 */
import { type CachedToken, createTokenCache } from '../cache/index.js';

export type { CachedToken };

const cache = createTokenCache();

export function tokenCacheKey(baseUrl: string, clientId: string): string {
  return `${baseUrl}\u0000${clientId}`;
}

/** Renew this long before the announced expiry: 10% of the lifetime, at most 5 minutes. */
export function renewAheadMs(expiresInSeconds: number): number {
  return Math.min(300_000, expiresInSeconds * 100);
}

/** The cached token when it is still good: the hot path, without a promise. */
export function peekToken(key: string, now: number): CachedToken | undefined {
  return cache.peek(key, now);
}

/**
 * The cached token for `key`, or the result of `fetch` (one call however many callers wait).
 * `fetch` gets the time at which it started, from which expiry is counted.
 */
export async function getToken(key: string, now: () => number, fetch: () => Promise<CachedToken>): Promise<CachedToken> {
  return cache.get(key, now, fetch);
}

/** Drops `value` if it is still the cached token (a newer one fetched meanwhile is kept). */
export function dropToken(key: string, value: string): void {
  cache.drop(key, value);
}

/** Forgets every cached token (tests, or after the credentials are known to be revoked). */
export function clearTokenCache(): void {
  cache.clear();
}
