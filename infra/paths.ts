import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Resolved from this file, not the working directory, so tests and `cdk synth` agree. */
export const INFRA_DIR = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = join(INFRA_DIR, '..');
export const FUNCTION_ENTRIES = {
  receiveWebhook: join(REPO_ROOT, 'functions', 'receive-webhook.ts'),
  processEvents: join(REPO_ROOT, 'functions', 'process-events.ts'),
  reconcileShopify: join(REPO_ROOT, 'functions', 'reconcile-shopify.ts'),
} as const;

/**
 * Modules each function leaves out of its bundle and takes from the Lambda runtime. The receiver answers
 * Shopify within seconds, cold starts included, and makes two simple SDK calls (SQS SendMessage, Secrets
 * Manager GetSecretValue): it takes the runtime's SDK v3 (Node 18+ runtimes resolve it for ESM through
 * NODE_PATH) instead of bundling ~350 KB of it (bench/bundles.ts: 480 KB -> 127 KB, about half the load
 * time). The worker, whose ledger writes are the exactly-once guarantee, bundles the pinned, tested SDK.
 */
export const FUNCTION_EXTERNAL_MODULES = {
  receiveWebhook: ['@aws-sdk/*'],
  processEvents: [],
  reconcileShopify: [],
} as const satisfies Record<keyof typeof FUNCTION_ENTRIES, readonly string[]>;
