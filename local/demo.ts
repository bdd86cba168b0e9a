/**
 * `npm run demo`: signed webhooks against the local stack, a table per customer, exit code 1 when any
 * event did not do what it should. Uses the `npm start` on PORT when one answers /healthz; otherwise
 * starts its own stack on free ports for the length of the run.
 */
import { LocalConfigError, resolveLocalConfig } from './config.js';
import { connectToRunningStack, handleOf, type LocalStackHandle, probeHealth } from './connect.js';
import { runDemo } from './demo/index.js';
import { startLocalStack } from './stack.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

async function main(): Promise<number> {
  const config = await resolveLocalConfig(process.env);
  const intakeUrl = `http://127.0.0.1:${config.ports.intake}`;
  let health = config.ports.intake === 0 ? 'down' : await probeHealth(intakeUrl);
  for (let i = 0; health === 'starting' && i < 60; i++) {
    await new Promise((r) => setTimeout(r, 500));
    health = await probeHealth(intakeUrl);
  }

  let handle: LocalStackHandle;
  let stopStack = async () => {};
  if (health === 'up') {
    console.log(`demo: using the local stack at ${intakeUrl} (npm start)`);
    handle = connectToRunningStack(config);
  } else {
    console.log('demo: no local stack answers on PORT; starting one on free ports for this run');
    const stack = await startLocalStack({
      emulatorConfig: config.emulatorConfig,
      webhookSecrets: config.webhookSecrets,
      tableName: config.tableName,
      env: process.env,
    });
    handle = handleOf(stack);
    stopStack = () => stack.close();
  }

  try {
    const result = await runDemo({
      intakeUrl: handle.intakeUrl,
      openapi: handle.openapi,
      ledger: handle.ledger,
      emulatorConfig: config.emulatorConfig,
      secrets: { shopify: config.webhookSecrets.shopify[0]!, pos: config.webhookSecrets.pos[0]! },
      queueStats: () => handle.queueStats(),
      waitForIdle: () => handle.waitForIdle(),
    });
    return result.ok ? 0 : 1;
  } finally {
    await handle.close();
    await stopStack();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`demo failed: ${e instanceof LocalConfigError || e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  },
);
