import { ConfigurationError, ENV, envInteger } from '../config/index.js';

/** Days of ledger records the scheduled audit checks when AUDIT_DAYS does not say. */
export const DEFAULT_AUDIT_DAYS = 3;

/** AUDIT_DAYS: a whole number of days, 1..400 (the ledger keeps records 400 days by default). */
export function auditDaysFromEnv(env: NodeJS.ProcessEnv): number {
  return envInteger(
    env,
    ENV.AUDIT_DAYS,
    { fallback: DEFAULT_AUDIT_DAYS, min: 1, max: 400 },
    (raw) => new ConfigurationError('invalid_audit_days', `${ENV.AUDIT_DAYS} must be a whole number of days from 1 to 400, got "${raw}"`),
  );
}
