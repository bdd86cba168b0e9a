/**
 * The canonical events: the contract between intake (which turns each sender's payload into them) and
 * processing (which credits and debits from them). Nothing else crosses the queue.
 */
export {
  AmountBasis,
  AmountTerms,
  CustomerEvent,
  CustomerRef,
  Delivery,
  EarnAfter,
  ExactAmount,
  LineQuantity,
  MAX_LINES,
  PointsEvent,
  PrivacyEvent,
  TillMirrorEvent,
  PurchaseEvent,
  QueuedEvent,
  RefundEvent,
  RefundParts,
} from './events.js';
export {
  type EarlierPurchases,
  type FollowUp,
  joinNextSteps,
  type NextSteps,
  OUTCOME_KINDS,
  type PrivacyFigures,
  type OutcomeKind,
  type ProcessOutcome,
  type SkipReason,
  withNextSteps,
} from './outcome.js';
