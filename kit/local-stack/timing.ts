import { checkedTiming, ConfigurationError, ENV, envInteger, type Timing, type TimingInputs } from '../../shared/config/index.js';

/**
 * `npm start`'s timing settings: the environment's values fed into the one derivation the CDK stack
 * uses too (shared/config/timing.ts), with the same invariants. A combination that could dead-letter a
 * waiting event (say a 10 s visibility timeout under a 30 s lease) refuses to start.
 */
export const LOCAL_TIMING_ENV = {
  QUEUE_VISIBILITY_TIMEOUT_SECONDS: 'QUEUE_VISIBILITY_TIMEOUT_SECONDS',
  QUEUE_MAX_RECEIVE_COUNT: 'QUEUE_MAX_RECEIVE_COUNT',
} as const;

function optionalInt(env: NodeJS.ProcessEnv, name: string): number | undefined {
  return envInteger(
    env,
    name,
    { fallback: undefined, min: 0 },
    (raw) =>
      new ConfigurationError('invalid_local_config', `${name} must be a whole number of seconds or receives, got "${raw.slice(0, 20)}"`),
  );
}

/** The variables each timing setting is read from (for error messages). */
const SOURCES: Record<keyof Timing, string> = {
  workerTimeoutSeconds: 'the local worker timeout',
  leaseSeconds: ENV.LEASE_SECONDS,
  visibilityTimeoutSeconds: LOCAL_TIMING_ENV.QUEUE_VISIBILITY_TIMEOUT_SECONDS,
  maxReceiveCount: LOCAL_TIMING_ENV.QUEUE_MAX_RECEIVE_COUNT,
  refundWaitSeconds: ENV.REFUND_WAIT_SECONDS,
  backoffBaseSeconds: ENV.RETRY_BACKOFF_BASE_SECONDS,
  backoffCapSeconds: ENV.RETRY_BACKOFF_CAP_SECONDS,
  retryHorizonSeconds: ENV.RETRY_HORIZON_SECONDS,
  retentionSeconds: 'the queue retention',
  circuitOpenSeconds: ENV.CIRCUIT_OPEN_SECONDS,
  inDoubtSeconds: ENV.IN_DOUBT_SECONDS,
};

export function localTimingInputs(env: NodeJS.ProcessEnv): TimingInputs {
  return {
    leaseSeconds: optionalInt(env, ENV.LEASE_SECONDS),
    visibilityTimeoutSeconds: optionalInt(env, LOCAL_TIMING_ENV.QUEUE_VISIBILITY_TIMEOUT_SECONDS),
    maxReceiveCount: optionalInt(env, LOCAL_TIMING_ENV.QUEUE_MAX_RECEIVE_COUNT),
    refundWaitSeconds: optionalInt(env, ENV.REFUND_WAIT_SECONDS),
    backoffBaseSeconds: optionalInt(env, ENV.RETRY_BACKOFF_BASE_SECONDS),
    backoffCapSeconds: optionalInt(env, ENV.RETRY_BACKOFF_CAP_SECONDS),
    retryHorizonSeconds: optionalInt(env, ENV.RETRY_HORIZON_SECONDS),
    circuitOpenSeconds: optionalInt(env, ENV.CIRCUIT_OPEN_SECONDS),
    inDoubtSeconds: optionalInt(env, ENV.IN_DOUBT_SECONDS),
  };
}

/** Every timing setting for the local stack, checked; a ConfigurationError (invalid_local_config) names the variable to change. */
export function localTiming(env: NodeJS.ProcessEnv): Timing {
  return checkedTiming(localTimingInputs(env), { kind: 'invalid_local_config', setting: (field) => SOURCES[field] });
}

/** The handlers' environment for these settings (the worker reads them like in Lambda). */
export function timingEnvironment(t: Timing): Record<string, string> {
  return {
    [ENV.LEASE_SECONDS]: String(t.leaseSeconds),
    [ENV.REFUND_WAIT_SECONDS]: String(t.refundWaitSeconds),
    [ENV.RETRY_BACKOFF_BASE_SECONDS]: String(t.backoffBaseSeconds),
    [ENV.RETRY_BACKOFF_CAP_SECONDS]: String(t.backoffCapSeconds),
    [ENV.RETRY_HORIZON_SECONDS]: String(t.retryHorizonSeconds),
    [ENV.CIRCUIT_OPEN_SECONDS]: String(t.circuitOpenSeconds),
    [ENV.IN_DOUBT_SECONDS]: String(t.inDoubtSeconds),
  };
}
