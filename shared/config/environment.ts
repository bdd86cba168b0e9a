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
  /** DynamoDB table keeping authentic deliveries intake could not read; unset: they are refused (4xx). */
  QUARANTINE_TABLE: 'QUARANTINE_TABLE',
  /** Days a quarantined delivery is kept (DynamoDB TTL); default 90. */
  QUARANTINE_TTL_DAYS: 'QUARANTINE_TTL_DAYS',

  // process-events
  LEDGER_TABLE: 'LEDGER_TABLE',
  /** SSM parameter holding the worker's event source mapping id: it pauses pulling while the Open API is down. */
  PULL_MAPPING_PARAMETER: 'PULL_MAPPING_PARAMETER',
  /** Secrets Manager secret holding {"base_url","client_id","client_secret"}. */
  OPENAPI_SECRET_ARN: 'OPENAPI_SECRET_ARN',
  /** Local alternative to OPENAPI_SECRET_ARN. */
  OPENAPI_BASE_URL: 'OPENAPI_BASE_URL',
  OPENAPI_CLIENT_ID: 'OPENAPI_CLIENT_ID',
  OPENAPI_CLIENT_SECRET: 'OPENAPI_CLIENT_SECRET',
  /**
   * Open API requests per minute per endpoint for the whole deployment, every function and container
   * together (the shared budget: shared/upstream); the one rate setting.
   */
  UPSTREAM_BUDGET_PER_MINUTE: 'UPSTREAM_BUDGET_PER_MINUTE',
  /** The table holding the budget's minute counters (the ledger table, keys `budget#...`); unset: a per-container limiter. */
  UPSTREAM_BUDGET_TABLE: 'UPSTREAM_BUDGET_TABLE',
  /** `clamp` (default) or `park`. */
  INSUFFICIENT_POINTS_POLICY: 'INSUFFICIENT_POINTS_POLICY',
  /** How long a refund that arrived before its purchase keeps being retried before it is parked. */
  REFUND_WAIT_SECONDS: 'REFUND_WAIT_SECONDS',
  LEDGER_TTL_DAYS: 'LEDGER_TTL_DAYS',
  LEASE_SECONDS: 'LEASE_SECONDS',
  /** The in-doubt horizon: no points call whose ending proved nothing is sent again before it (shared/points/engine). */
  IN_DOUBT_SECONDS: 'IN_DOUBT_SECONDS',
  /** The campaign rules, a JSON array (shared/campaigns; the stage's `campaigns`). */
  CAMPAIGNS_CONFIG: 'CAMPAIGNS_CONFIG',
  // audit-ledger (the scheduled audit; also LEDGER_TABLE, OPENAPI_SECRET_ARN, UPSTREAM_BUDGET_PER_MINUTE)
  /** Days back the scheduled audit looks: ledger records created in them are checked. */
  AUDIT_DAYS: 'AUDIT_DAYS',

  /** Deferral of an event that is waiting (not failing): base x 2^(receive-1), capped, jittered (shared/config/timing.ts). */
  RETRY_BACKOFF_BASE_SECONDS: 'RETRY_BACKOFF_BASE_SECONDS',
  RETRY_BACKOFF_CAP_SECONDS: 'RETRY_BACKOFF_CAP_SECONDS',
  /** How long an event may keep waiting before it is let fail towards the DLQ. */
  RETRY_HORIZON_SECONDS: 'RETRY_HORIZON_SECONDS',
  /** How long the per-container circuit breaker stays open before one probe. */
  CIRCUIT_OPEN_SECONDS: 'CIRCUIT_OPEN_SECONDS',

  // reconcile-shopify
  /**
   * JSON {source: {shopDomain, accessTokenSecretArn, lookbackHours, settleMinutes}}: the Shopify sources the
   * scheduled reconciliation reads; the secret holds {"access_token": "..."}.
   */
  RECONCILE_SOURCES: 'RECONCILE_SOURCES',
  /**
   * Redemptions (shopify-app-proxy, sweep-redemptions): the shop's Admin API, JSON {shopDomain,
   * accessTokenSecretArn, apiVersion?} (the reconciliation's token secret); locally {shopDomain, origin, accessToken}.
   */
  REDEMPTION_SHOPIFY_ADMIN: 'REDEMPTION_SHOPIFY_ADMIN',
  /**
   * The table the activity record (shared/activity: deliveries, receives, calls, runs, the breaker's state)
   * is written to: the ledger table. Unset: nothing is recorded.
   */
  ACTIVITY_TABLE: 'ACTIVITY_TABLE',
  /** export-points-report: the bucket the monthly points report's CSV is written to (its own KMS key). */
  POINTS_REPORT_BUCKET: 'POINTS_REPORT_BUCKET',
  /** Only for local runs: DynamoDB endpoint (dynalite). */
  DYNAMODB_ENDPOINT: 'DYNAMODB_ENDPOINT',
} as const;

/** The ledger table's key schema, shared by the CDK stack, the ledger module and the local stack. */
export const LEDGER_TABLE_SCHEMA = {
  partitionKey: 'pk',
  ttlAttribute: 'ttl',
  /**
   * Orders that ended `customer_not_found`, by source customer and purchase time: a sparse index (only
   * those orders carry its keys), read when the customer is linked or enrolled to credit them late.
   */
  unlinkedIndex: { name: 'byUnlinkedCustomer', partitionKey: 'unlinkedCustomer', sortKey: 'purchasedAt' },
} as const;
