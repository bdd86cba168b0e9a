/**
 * Names of the environment variables the functions read. The CDK stack sets them, `npm start` sets
 * them for the same handlers locally; nothing else reads process.env directly.
 */
export const ENV = {
  // receive-webhook
  QUEUE_URL: 'QUEUE_URL',
  /** JSON: per-source settings (external key, amount rule, point title, expiry, ...). */
  SOURCES_CONFIG: 'SOURCES_CONFIG',
  /** JSON map {source: secret ARN}; each secret holds {"secrets": ["current", "previous", ...]}. */
  WEBHOOK_SECRET_ARNS: 'WEBHOOK_SECRET_ARNS',
  /** Local alternative to WEBHOOK_SECRET_ARNS: secrets given directly (comma-separated allowed). */
  SHOPIFY_WEBHOOK_SECRET: 'SHOPIFY_WEBHOOK_SECRET',
  POS_WEBHOOK_SECRETS: 'POS_WEBHOOK_SECRETS',
  MAX_BODY_BYTES: 'MAX_BODY_BYTES',

  // process-events
  LEDGER_TABLE: 'LEDGER_TABLE',
  /** Secrets Manager secret holding {"base_url","client_id","client_secret"}. */
  OPENAPI_SECRET_ARN: 'OPENAPI_SECRET_ARN',
  /** Local alternative to OPENAPI_SECRET_ARN. */
  OPENAPI_BASE_URL: 'OPENAPI_BASE_URL',
  OPENAPI_CLIENT_ID: 'OPENAPI_CLIENT_ID',
  OPENAPI_CLIENT_SECRET: 'OPENAPI_CLIENT_SECRET',
  /** Requests per minute per endpoint that one container may send (client-side limiter). */
  RATE_BUDGET_PER_MINUTE: 'RATE_BUDGET_PER_MINUTE',
  /** `clamp` (default) or `park`. */
  INSUFFICIENT_POINTS_POLICY: 'INSUFFICIENT_POINTS_POLICY',
  /** How long a refund that arrived before its purchase keeps being retried before it is parked. */
  REFUND_WAIT_SECONDS: 'REFUND_WAIT_SECONDS',
  LEDGER_TTL_DAYS: 'LEDGER_TTL_DAYS',
  LEASE_SECONDS: 'LEASE_SECONDS',
  // reconcile-shopify
  /**
   * JSON {source: {shopDomain, accessTokenSecretArn, lookbackHours, settleMinutes}}: the Shopify sources the
   * scheduled reconciliation reads; the secret holds {"access_token": "..."}.
   */
  RECONCILE_SOURCES: 'RECONCILE_SOURCES',
  /** Only for local runs: DynamoDB endpoint (dynalite). */
  DYNAMODB_ENDPOINT: 'DYNAMODB_ENDPOINT',
} as const;

/** The ledger table's key schema, shared by the CDK stack, the ledger module and the local stack. */
export const LEDGER_TABLE_SCHEMA = {
  partitionKey: 'pk',
  ttlAttribute: 'ttl',
} as const;
