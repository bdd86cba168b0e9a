/**
 * Operator commands, against the local stack (`npm start` on PORT) or a deployed stage (`--stage`):
 *   npm run ledger -- <source> <order id> [--stage S [--stack NAME] [--outputs FILE]]
 *   npm run redrive -- [--dry-run] [--stage S [--stack NAME] [--outputs FILE]]
 *   npm run audit -- [--since DATE|3d] [--until DATE] [--json] [--stage S [--stack NAME] [--outputs FILE]]
 *   npx tsx local/cli/main.ts dlq [--stage S [--stack NAME] [--outputs FILE]]   (the dead letters, each with its reason)
 */
import { cliCommand } from './index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

cliCommand(process.argv.slice(2), process.env).then((code) => process.exit(code));
