/** A cache that runs one load per key at a time, and forgets a failed load (tokens, secrets). */
export { createSingleFlightCache, type SingleFlightCache } from './single-flight-cache.js';
