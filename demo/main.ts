/**
 * `npm run demo`: signed webhooks against the local stack, a table per customer, exit code 1 when any
 * event did not do what it should (2 when it could not run). Uses the `npm start` on PORT when one
 * answers /healthz; otherwise starts its own stack on free ports for the length of the run.
 */
import { demoCommand } from './index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

demoCommand(process.env).then((code) => process.exit(code));
