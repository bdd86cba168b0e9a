export { createCircuitBreaker, OUTAGE_ERROR_KINDS, type Admission, type CircuitBreaker, type CircuitBreakerOptions } from './breaker.js';
export { deferralFor, type DeferralSettings, type Verdict } from './deferral.js';
