export { createLedger } from './ledger.js';
export type {
  ApplyRefundInput,
  Claim,
  Clock,
  Ledger,
  LedgerOptions,
  OrderRef,
  PurchaseClaimInput,
  PurchaseResult,
  RefundRef,
  RefundResult,
} from './ledger.js';
export {
  AppliedRefund,
  OrderOutcome,
  OrderRecord,
  OrderState,
  RefundOutcome,
  RefundRecord,
  RefundState,
  orderKey,
  refundKey,
} from './records.js';
export { createLedgerTable } from './table.js';
export { createDocumentClient } from './client.js';
