import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Resolved from this file, not the working directory, so tests and `cdk synth` agree. */
export const INFRA_DIR = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = join(INFRA_DIR, '..');
export const FUNCTION_ENTRIES = {
  receiveWebhook: join(REPO_ROOT, 'functions', 'receive-webhook.ts'),
  processEvents: join(REPO_ROOT, 'functions', 'process-events.ts'),
} as const;
