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
