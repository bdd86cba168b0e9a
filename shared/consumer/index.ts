/** The queue consumer: SQS batches to the points processor; waiting set aside, failing deferred towards the DLQ. */
export { type BatchHandler, batchHandler } from './batch.js';
export { CircuitOpen, NotYet, PullSwitchError, RetryLater } from './errors.js';
export { type OutagePause, type PullSwitch, pauseOnOutage } from './pull.js';
export { createEventSourceMappingSwitch, pullMappingParameterName } from './event-source-mapping.js';
export { openApiProbe } from './probe.js';
export {
  ledgerPlannedPause,
  PLANNED_PAUSE_KEY,
  PlannedPause,
  type PlannedPauseRecords,
  pausePulling,
  pullingStatus,
  type PullingStatus,
  resumePulling,
} from './planned-pause.js';
export {
  isRecoveryTick,
  probeWaitMs,
  RECOVERY_FIRST_PROBE_MS,
  RECOVERY_TICK,
  type RecoveryResult,
  resumeWhenUp,
  type UpstreamProbe,
} from './recovery.js';
export type { ConsumerDeps } from './types.js';
