/** Settings and secrets: the environment's names, how values are read from it, and the checks they pass. */
export { ConfigurationError } from './configuration-error.js';
export { envInteger, envList } from './env-values.js';
export { ENV, LEDGER_TABLE_SCHEMA } from './environment.js';
export { ProcessingSettings, processingSettingsFromEnv } from './processing-settings.js';
export { createSecretsManagerReader, SecretReadError, type SecretReader } from './secret-reader.js';
export { minWebhookSecretChars } from './secret-strength.js';
export {
  checkedTiming,
  deferralSeconds,
  deriveTiming,
  POISON_BACKOFF_BASE_SECONDS,
  poisonDeferralSeconds,
  poisonToDeadLetterSeconds,
  type Timing,
  type TimingInputs,
  TimingInvalid,
  timingProblems,
  VISIBILITY_TIMEOUT_FACTOR,
} from './timing.js';
export { staticWebhookSecrets, type WebhookSecrets } from './webhook-secrets.js';
