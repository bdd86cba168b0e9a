export { createProcessor, type ProcessContext, type Processor } from './processor.js';
export {
  CHECKPOINTS,
  type Checkpoint,
  type CheckpointStep,
  type PointsApi,
  type ProcessorDeps,
  type ProcessorLogger,
} from './deps.js';
export { FollowUp, OUTCOME_KINDS, OutcomeKind, ProcessOutcome, SkipReason } from './outcome.js';
export { isOurMarkerPrefix, parseMarker, purchaseMarker, refundMarker, type ParsedMarker } from './markers.js';
export { refundShare, type OrderBook, type RefundShare } from './debit.js';
export { instrumentPointsApi, POINTS_API_OPERATIONS, type ApiCallObserver } from './instrument.js';
export { eventIds, outcomeFields, recordOutcomeMetrics, type MetricsSink } from './report.js';
