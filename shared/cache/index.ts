/** Caching shared by the capabilities: the public face of shared/cache. */
export { createSingleFlightCache, type SingleFlightCache } from './single-flight-cache.js';
