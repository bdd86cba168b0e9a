/** Privacy: Shopify's compliance requests on what the bridge holds (docs/privacy.md). */
export { type LedgerRedaction, redactCustomerRecords, redactShopRecords } from './ledger.js';
export { type QuarantineScope, quarantinedEntriesOf } from './quarantine.js';
export { describeCustomerData, type HeldData, type HeldOrder } from './report.js';
export { createPrivacyRequests, type PrivacyRequestRecord, type PrivacyRequests, REPORT_TTL_DAYS } from '../ledger/index.js';
export { type PrivacyDeps, processPrivacyEvent, withPrivacyEvents } from './worker.js';
export {
  describeMemberData,
  eraseMember,
  type HeldMemberData,
  type HeldMemberOrder,
  type HeldTillReturn,
  type HeldTillSale,
  type MemberErasure,
  type MemberPrivacyDeps,
  type MemberRef,
} from './member.js';
