/** A cache that runs one load per key at a time, and forgets a failed load (tokens, secrets); and the one token cache built on it. */
export { createSingleFlightCache, type SingleFlightCache } from './single-flight-cache.js';
export { type CachedToken, createRenewingToken, createTokenCache, type RenewingToken, type TokenCache } from './token-cache.js';
