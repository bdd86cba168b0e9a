/** Processing: crediting purchases and debiting refunds in the membership service exactly once, and reporting each outcome. */
export { type OrderBook, refundShare } from './debit.js';
export type { Checkpoint, CheckpointStep, PointsApi, ProcessorDeps } from './deps.js';
export { instrumentPointsApi, POINTS_API_OPERATIONS } from './instrument.js';
// The protocol engine: every state-changing points call goes through it.
export {
  act,
  checkDoubt,
  type Doubt,
  type DoubtCheck,
  doubtOf,
  type EngineDeps,
  type HorizonSettings,
  type Operation,
  type OperationResult,
  runOperation,
  searchHistory,
} from './engine/index.js';
export { engineOf } from './engine-deps.js';
export {
  bonusMarker,
  bonusReturnMarker,
  isOurMarkerPrefix,
  type ParsedMarker,
  parseMarker,
  purchaseMarker,
  redemptionClawbackMarker,
  redemptionMarker,
  redemptionReturnMarker,
  refundMarker,
  reversalMarker,
} from './markers.js';
// The outcome vocabulary lives in shared/events; processing's callers keep reading it here too.
export { OUTCOME_KINDS, type ProcessOutcome } from '../events/index.js';
export {
  type AfterDueEarn,
  type CanonicalRunners,
  createProcessor,
  type DueEarns,
  type ProcessContext,
  type Processor,
} from './processor.js';
export { findMember } from './find-member.js';
export { createMemberMemo, type MemberMemo } from './member-memo.js';
export { invalidEvent } from './invalid-event.js';
export { type TypedEvents, withTypedEvents } from './typed-events.js';
export { eventIds, type MetricsSink, outcomeFields, recordOutcomeMetrics } from './report.js';
// "This order now earns X": the order's chain in the ledger, the events reaching X, and their run.
export {
  type ChainOrder,
  type ChainReader,
  chainState,
  type ChainState,
  DETACHED_REFUND_ID,
  MAX_SUPPLEMENTS,
  type ChainLedger,
  type OrderFacts,
  orderFacts,
  type RefundStateReader,
  readChain,
  remainderOf,
  type SaleChain,
  SUPERSEDED_REFUND_ID,
  supplementId,
  supplementOf,
  takenOff,
  unbookedAdjustment,
} from './chain.js';
export { CANCEL_REFUND_ID, type EarnsEvent, earnsRefund, earnsUnits, type Reach, reachEarns } from './earns.js';
export {
  addFollowUps,
  type EarnsRunners,
  followUpOf,
  MAX_REACH_ROUNDS,
  type Reached,
  runEarns,
  runInOrder,
  runRounds,
} from './earns-run.js';
export { SUPERSEDED_SHARE, shareOrderId, shippedUnits } from './shares.js';
