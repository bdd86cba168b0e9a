export { ConfigurationError } from './configuration-error.js';
export { ENV, LEDGER_TABLE_SCHEMA } from './environment.js';
export {
  createSecretsManagerReader,
  SecretReadError,
  type SecretReader,
  type SecretsManagerReaderOptions,
  type SecretValueSender,
} from './secret-reader.js';
export {
  secretsManagerWebhookSecrets,
  staticWebhookSecrets,
  webhookSecretsFromEnvironment,
  WebhookSecretsError,
  type WebhookSecrets,
} from './webhook-secrets.js';
export { ProcessingSettings, ProcessingSettingsInvalid, processingSettingsFromEnv } from './processing-settings.js';
export {
  BACKOFF_JITTER,
  checkedTiming,
  deferralSeconds,
  deriveTiming,
  LEASE_MARGIN_SECONDS,
  receivesWithinHorizon,
  TIMING_DEFAULTS,
  timingProblems,
  TimingInvalid,
  VISIBILITY_TIMEOUT_FACTOR,
  type Timing,
  type TimingInputs,
  type TimingProblem,
} from './timing.js';
