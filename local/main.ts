/**
 * `npm start`: the whole system in one process (emulator, dynalite, intake behind a local API Gateway,
 * the FIFO queue, the worker and the shop-side stand-ins) on PORT / EMULATOR_PORT / DYNAMODB_PORT /
 * SHOPIFY_ADMIN_PORT / SQUARE_ORDERS_PORT / SMAREGI_PORT, until Ctrl-C.
 */
import { ConfigurationError } from '../shared/config/index.js';
import { DEMO_CONFIG_PATH } from '../stand-ins/openapi/index.js';
import { bannerLines } from './banner.js';
import { type LocalPorts, resolveLocalConfig, takenPortMessage } from '../kit/local-stack/config.js';
import { startLocalStack } from './stack.js';
import { standInBanner } from '../stand-ins/registry.js';
import { formatJst } from '../shared/time/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The log is read by a person: Japan time with its offset, as every time shown (shared/time).
const time = () => formatJst(Date.now());
const log = (line: string) => console.log(`${time()} ${line}`);

/** The ports asked for, once read: a taken one is reported by its variable. */
let ports: LocalPorts | undefined;

async function main(): Promise<void> {
  const config = await resolveLocalConfig(process.env);
  ports = config.ports;
  const stack = await startLocalStack({
    ports: config.ports,
    emulatorConfig: config.emulatorConfig,
    emulatorConfigPath: config.emulatorConfigPath,
    webhookSecrets: config.webhookSecrets,
    smaregi: config.smaregi,
    ...(config.squareNotificationUrl ? { squareNotificationUrl: config.squareNotificationUrl } : {}),
    tableName: config.tableName,
    env: process.env,
    handlerLogs: config.logs,
    log,
  });
  for (const line of bannerLines({
    ...config,
    urls: stack.urls,
    standIns: standInBanner(stack.standIns),
    squareNotificationUrl: stack.squareNotificationUrl,
    demoEmulatorConfig: config.emulatorConfigPath === DEMO_CONFIG_PATH,
  })) {
    console.log(line);
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log('stopping now');
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: stopping (waiting for the running batch)`);
    stack.close().then(
      () => process.exit(0),
      (e: unknown) => {
        console.error(`stop failed: ${e instanceof Error ? e.message : String(e)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => {
  // A setting to fix (a ConfigurationError: local settings, SOURCES_CONFIG, ...): the message names it.
  if (e instanceof ConfigurationError) console.error(`npm start: ${e.message}`);
  else if ((e as { code?: unknown }).code === 'EADDRINUSE' && ports !== undefined) {
    console.error(`npm start: ${takenPortMessage(e as Error & { port?: unknown }, ports)}`);
  } else console.error('npm start failed:', e);
  process.exit(1);
});
