/** Settings and secrets: the environment's names, how values are read from it, and the checks they pass. */
export { ConfigModuleError, ConfigurationError, SecretReadError } from './errors.js';
export { envInteger, envList, requiredSetting } from './env-values.js';
export { ENV, LEDGER_TABLE_SCHEMA } from './environment.js';
export {
  bulkCapAt,
  bulkShare,
  CALLS_PER_PURCHASE,
  DEFAULT_UPSTREAM_BUDGET_PER_MINUTE,
  DEFAULT_UPSTREAM_LATENCY_MS,
  MAX_WORKER_CONCURRENCY,
  MIN_UPSTREAM_BUDGET_PER_MINUTE,
  MIN_WORKER_CONCURRENCY,
  STOREFRONT_RESERVE_LENT_FROM_MS,
  STOREFRONT_RESERVED_SHARE,
  UPSTREAM_CEILING_PER_MINUTE,
  workerConcurrency,
} from './throughput.js';
export { DEFAULT_LEDGER_TTL_DAYS, MAX_LEDGER_TTL_DAYS, MIN_LEDGER_TTL_DAYS, REPLAY_MARGIN_DAYS } from './ledger-retention.js';
export { ProcessingSettings, processingSettingsFromEnv } from './processing-settings.js';
export { createSecretsManagerReader, SECRET_CACHE_TTL_MS, type SecretReader } from './secret-reader.js';
export { perSourceClients, readJsonSecret } from './shop-api-access.js';
export { minWebhookSecretChars } from './secret-strength.js';
export {
  CIRCUIT_FIRST_PROBE_SECONDS,
  checkedTiming,
  deferralSeconds,
  DEFAULT_IN_DOUBT_SECONDS,
  deriveTiming,
  LEASE_MARGIN_SECONDS,
  LEASE_SEND_WINDOW_SECONDS,
  POISON_BACKOFF_BASE_SECONDS,
  poisonDeferralSeconds,
  SQS_MAX_VISIBILITY_SECONDS,
  poisonToDeadLetterSeconds,
  type Timing,
  type TimingInputs,
  timingProblems,
  VISIBILITY_TIMEOUT_FACTOR,
} from './timing.js';
export { staticWebhookSecrets, type WebhookSecrets, webhookSecretsFromEnv } from './webhook-secrets.js';
