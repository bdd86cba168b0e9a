import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Resolved from this file, not the working directory, so tests and `cdk synth` agree. */
export const INFRA_DIR = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = join(INFRA_DIR, '..');
export const FUNCTION_ENTRIES = {
  receiveWebhook: join(REPO_ROOT, 'functions', 'receive-webhook.ts'),
  processEvents: join(REPO_ROOT, 'functions', 'process-events.ts'),
  auditLedger: join(REPO_ROOT, 'functions', 'audit-ledger.ts'),
  reconcileShopify: join(REPO_ROOT, 'functions', 'reconcile-shopify.ts'),
  shopifyAppProxy: join(REPO_ROOT, 'functions', 'shopify-app-proxy.ts'),
  reconcileSmaregi: join(REPO_ROOT, 'functions', 'reconcile-smaregi.ts'),
  sweepRedemptions: join(REPO_ROOT, 'functions', 'sweep-redemptions.ts'),
  exportPointsReport: join(REPO_ROOT, 'functions', 'export-points-report.ts'),
} as const;

/**
 * Modules each function leaves out of its bundle and takes from the Lambda runtime: the AWS SDK v3 that
 * the Node 24 runtime ships (Node 18+ runtimes resolve it for ESM through NODE_PATH). Both functions use
 * only long-stable SDK surface (SQS SendMessage, Secrets Manager GetSecretValue, DynamoDB
 * Put/Update/Get/Query through lib-dynamodb; conditional failures are recognised by name as well as by
 * class), and leaving the SDK out is most of their cold start: the receiver 480 KB -> 127 KB, the worker
 * 1,429 KB -> ~300 KB with undici and zod's locales gone too (bench/bundles.ts, figures and the pinned vs
 * runtime trade-off in bench/results.md and docs/deploy.md). The ledger takes its SDK with require()
 * (shared/ledger/sdk.ts, faster than an ESM import of the runtime's CommonJS packages): to bundle the
 * pinned SDK into the worker again, that file must import it instead.
 */
export const FUNCTION_EXTERNAL_MODULES = {
  receiveWebhook: ['@aws-sdk/*'],
  processEvents: ['@aws-sdk/*'],
  auditLedger: [],
  reconcileShopify: [],
  shopifyAppProxy: ['@aws-sdk/*'],
  reconcileSmaregi: [],
  sweepRedemptions: [],
  exportPointsReport: [],
} as const satisfies Record<keyof typeof FUNCTION_ENTRIES, readonly string[]>;
