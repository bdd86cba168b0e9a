/** Processing: crediting purchases and debiting refunds in the membership service exactly once, and reporting each outcome. */
export { type OrderBook, refundShare } from './debit.js';
export type { Checkpoint, CheckpointStep, PointsApi, ProcessorDeps } from './deps.js';
export { instrumentPointsApi, POINTS_API_OPERATIONS } from './instrument.js';
export { isOurMarkerPrefix, parseMarker, purchaseMarker, refundMarker } from './markers.js';
export { OUTCOME_KINDS, OutcomeKind, type ProcessOutcome } from './outcome.js';
export { createProcessor, type Processor } from './processor.js';
export { eventIds, type MetricsSink, outcomeFields, recordOutcomeMetrics } from './report.js';
