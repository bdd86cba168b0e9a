/**
 * The ledger: the DynamoDB record of each order and refund that makes crediting and debiting happen
 * exactly once, and the one owner of its table: every record kind in it has its store here, with what a
 * privacy redaction does to it (redaction/), and no other module sends a DynamoDB command to the table
 * (test/unit/shared/ledger/table-owner.test.ts). By key prefix:
 *
 * - `order#`, `refund#`: createLedger (orders.ts, refunds.ts); redacted in place (redaction/orders.ts).
 * - `linked#` (a day's link mark): createLedger (link-marks.ts); deleted (redaction/customers.ts).
 * - `customer#` (enrolment), `redacted#` (an erasure's tombstone, a digest): createCustomerRecords (customers.ts),
 *   the tombstone also read by createLedger (isRedacted: a Smaregi erase); the record is deleted
 *   (redaction/customers.ts), the tombstone names nobody.
 * - `redemption#`, `redemption-code#`, `redemption-order#`: createRedemptionLedger (redemptions.ts);
 *   moved to a key naming no customer (redaction/redemptions.ts).
 * - `reversal#`: createReversalLedger (reversals.ts): the audit's reversal of an extra history entry;
 *   member ids and points only.
 * - `privacy#`: createPrivacyRequests (privacy-requests.ts); a data request's report expires in 30 days.
 * - `activity#`: createActivityStore (activity/); names no customer.
 * - `control#pulling`: ledgerPlannedPause (planned-pause.ts); names nobody.
 * - `till-return#`, `till-sale#` (a till's plain return without its sale, and what a member's till sale
 *   held, to match returns with): createTillReturns (till-returns.ts); they name the member, whom an
 *   in-store member's erase removes in place, with a sale's index keys (redaction/till-returns.ts).
 * - `till-mirror#` (a web points change mirrored to a till's point record, its own step): createTillMirrors
 *   (till-mirrors.ts); member and Smaregi customer ids and points only.
 * - `budget#` (an Open API endpoint's calls in one minute): ledgerBudgetStore (upstream-budget.ts); names nobody.
 * - Whole-table reads for operators (audit, reprocess, console, the points report): scans.ts.
 */
export { createDocumentClient } from '../dynamodb/index.js';
export { readTableDate, type TableDateReading } from './table-date.js';
export { createLedger, type Ledger, type LedgerOptions, type SourceCustomer, type UnlinkedQuery } from './ledger.js';
export { type BeforeEarnRefund, NO_MEMBER, pendingEarnKey, type ProvisionalRevision } from './provisional.js';
export type { PurchaseClaimInput, PurchaseResult, ReleaseOrderOptions } from './orders.js';
export {
  BONUS_KEY_PREFIX,
  type BonusClawback,
  type BonusGrant,
  BonusRecord,
  type BonusRef,
  bonusKey,
} from './bonuses.js';
export {
  type AppliedRefund,
  type FoundMember,
  type OperationFields,
  type OrderCampaign,
  orderKey,
  OrderRecord,
  type OrderRef,
  refundKey,
  RefundRecord,
  type RefundRef,
  linkMarkKey,
  unlinkedKey,
} from './records.js';
export type { DebitCorrection, RefundResult } from './refunds.js';
export { ACTIVITY_FIELD, type Clock, type LedgerActivity, type WriteNote } from './store.js';
export { createLedgerReader, type LedgerReader } from './reader.js';
export { createLedgerTable } from './table.js';
export { leaseSendWindow } from './lease-window.js';
export {
  createRedemptionLedger,
  type NewRedemption,
  REDEMPTION_STATES,
  RedemptionRecord,
  type RedemptionLedger,
  type RedemptionLedgerOptions,
  type RedemptionState,
  redemptionCodeKey,
  redemptionKey,
  redemptionOrderKey,
} from './redemptions.js';
export {
  createTillMirrors,
  isUnfinishedTillMirror,
  type NewTillMirror,
  TILL_MIRROR_STATES,
  TillMirrorRecord,
  type TillMirrors,
  type TillMirrorsOptions,
  type TillMirrorState,
  tillMirrorKey,
} from './till-mirrors.js';
export {
  createTillReturns,
  type NewTillReturn,
  type NewTillSale,
  type SalesQuery,
  TILL_RETURN_STATUSES,
  TillLine,
  type TillReturnChange,
  TillReturnRecord,
  type TillReturns,
  type TillReturnsOptions,
  type TillReturnStatus,
  TillSaleRecord,
  tillReturnKey,
  tillSaleKey,
} from './till-returns.js';
export {
  createReversalLedger,
  type NewReversal,
  REVERSAL_KEY_PREFIX,
  REVERSAL_OUTCOMES,
  type ReversalEnd,
  type ReversalLedger,
  type ReversalLedgerOptions,
  ReversalRecord,
  reversalKey,
} from './reversals.js';
export { BUDGET_KEY_PREFIX, budgetKey, ledgerBudgetStore } from './upstream-budget.js';
export { FUNCTION_LEDGER_KEYS, guardLeadingKeys, LEDGER_KEY_PREFIX, leadingKeyPatterns } from './key-prefixes.js';
export { ledgerPlannedPause, PLANNED_PAUSE_KEY, PlannedPause, type PlannedPauseRecords } from './planned-pause.js';
export {
  type CustomerClaim,
  createCustomerRecords,
  CustomerRecord,
  type CustomerRecords,
  type CustomerRecordsOptions,
  type CustomerRef,
  customerKey,
  EnrolOutcomeKind,
  redactedCustomerKey,
} from './customers.js';
export {
  createPrivacyRequests,
  PRIVACY_ACTIONS,
  PrivacyRequestRecord,
  type PrivacyRequests,
  privacyKey,
  REPORT_TTL_DAYS,
} from './privacy-requests.js';
export {
  ACTIVITY_KIND,
  BREAKER_KEY,
  MAX_ORDER_ENTRIES,
  MAX_RUNS,
  MAX_TRANSITIONS,
  orderActivityKey,
  RUNS_KEY,
} from './activity/keys.js';
export { type ActivityStore, type ActivityStoreOptions, createActivityStore } from './activity/store.js';
export {
  POINTS_RECORD_KINDS,
  scanOrdersAndRefunds,
  scanPointsRecords,
  scanRedemptions,
  scanReversals,
  scanTillReturns,
  scanTillSpendShortfalls,
  scanUnheldWithOutcome,
  type TimeRange,
} from './scans.js';
export { createLedgerRedactor, type LedgerRedactor, type RedactionTable } from './redaction/redactor.js';
export { ORDER_PERSONAL } from './redaction/orders.js';
export { REDACTION_DELETED_KEYS } from './redaction/item.js';
export { ERASED_RETURN_DISMISSAL } from './redaction/till-returns.js';
