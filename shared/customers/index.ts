/** Customers: enrolling shop customers as members, linking them through the Shopify App Proxy, exactly once. */
export { APP_PROXY_MAX_SKEW_SECONDS, appProxyMessage, signAppProxyQuery, verifyAppProxy } from './app-proxy.js';
export { type EnrolApi, type EnrolDeps, type EnrolInput, type EnrolResult, enrolCustomer } from './enrol.js';
export { LINK_STATUS, type LinkRefusal, type LinkRefusalKind } from './errors.js';
export { type LinkApi, type LinkInput, type LinkResult, linkCustomer } from './link.js';
export { linkedEvent } from './link-event.js';
export { countEarlier, creditEarlierPurchases, type EarlierCredits, type RetroDeps, type RetroInput } from './retro.js';
export { type CustomerEventDeps, processCustomerEvent, withCustomerEvents } from './worker.js';
export { handleProxyLink, type ProxyAnswer, proxyRequestOf, type ProxyLinkDeps, type ProxyLinkRequest } from './proxy.js';
export { asksForJson, type ProxyCustomerQuery, readProxyCustomer } from './proxy-query.js';
export { escapeHtml, pageStart } from './proxy-page.js';
export { isBoundValue, makeBoundValue } from './confirmation.js';
export { APP_PROXY_HEADERS, LIQUID } from './proxy.js';
export {
  createCustomerRecords,
  type CustomerRecord,
  type CustomerRecords,
  type CustomerRecordsOptions,
  customerKey,
  EnrolOutcomeKind,
} from '../ledger/index.js';
