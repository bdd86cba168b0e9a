/** Spending points: a linked Shopify customer's points become a single-use discount code, exactly once (docs/redemption.md). */
export { REDEMPTION_STATUS, type RedemptionRefusal, type RedemptionRefusalKind } from './errors.js';
export type { RedemptionDeps } from './protocol.js';
export { handlePointsPage, handleRedeem, type ProxyRequest, type RedemptionProxyDeps } from './proxy.js';
export { type RedeemInput, type RedeemResult, redeem } from './redeem.js';
export { issueRedeemRequest, REQUEST_TTL_SECONDS } from './request-value.js';
export { onceMatched, shopCurrencyProblem } from './shop-check.js';
export { type SweepResult, sweepRedemptions, sweepSummary } from './sweep.js';
export { type UsageDeps, withRedemptionUsage } from './usage.js';
export { redemptionValue } from './value.js';
export { adminClientFromEnv, APP_PROXY_REDEMPTION_ADMIN_ENV, REDEMPTION_ADMIN_ENV, redemptionDepsFromEnv } from './environment.js';
export { createQueuedLegMirror, type QueuedLegMirrorDeps } from './till-mirror-queue.js';
