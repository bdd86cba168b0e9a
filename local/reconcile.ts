/**
 * `npm run reconcile -- --source shopify --since <ISO date> [--until …] [--dry-run] [--stage S]`:
 * queues what Shopify holds but the ledger never saw (undelivered webhooks); a backfill is the same
 * command over a longer window. Progress on stderr; the last line is `reconcile: scanned=N missing=M enqueued=E`.
 */
import { reconcileCommand } from './cli/reconcile-command.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

reconcileCommand(process.argv.slice(2), process.env).then((code) => process.exit(code));
