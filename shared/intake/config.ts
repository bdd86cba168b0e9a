import {
  ConfigurationError,
  DEFAULT_LEDGER_TTL_DAYS,
  ENV,
  envInteger,
  MAX_LEDGER_TTL_DAYS,
  MIN_LEDGER_TTL_DAYS,
  REPLAY_MARGIN_DAYS,
  requiredSetting,
} from '../config/index.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';

/** MAX_BODY_BYTES, default 256 KiB. */
export function maxBodyBytesFromEnv(env: NodeJS.ProcessEnv): number {
  return envInteger(
    env,
    ENV.MAX_BODY_BYTES,
    { fallback: DEFAULT_MAX_BODY_BYTES, min: 1 },
    () => new ConfigurationError('invalid_configuration', `${ENV.MAX_BODY_BYTES} must be a positive integer`),
  );
}

/** QUEUE_URL, required unless a queue is passed in. */
export function queueUrlFromEnv(env: NodeJS.ProcessEnv): string {
  return requiredSetting(env, ENV.QUEUE_URL);
}

/** Days an event stays acceptable: the ledger retention less a margin (at most half the retention). */
export function replayWindowDays(ledgerTtlDays: number): number {
  return ledgerTtlDays - Math.min(REPLAY_MARGIN_DAYS, Math.floor(ledgerTtlDays / 2));
}

/** The replay window from LEDGER_TTL_DAYS, the same setting that sets the ledger's retention. */
export function replayWindowDaysFromEnv(env: NodeJS.ProcessEnv): number {
  const days = envInteger(
    env,
    ENV.LEDGER_TTL_DAYS,
    { fallback: DEFAULT_LEDGER_TTL_DAYS, min: MIN_LEDGER_TTL_DAYS, max: MAX_LEDGER_TTL_DAYS },
    () =>
      new ConfigurationError(
        'invalid_configuration',
        `${ENV.LEDGER_TTL_DAYS} must be an integer from ${MIN_LEDGER_TTL_DAYS} to ${MAX_LEDGER_TTL_DAYS}`,
      ),
  );
  return replayWindowDays(days);
}
