/**
 * `npm run emulator -- [--port 8787] [--host 127.0.0.1] [--config FILE]`: serves the emulator until
 * interrupted. Without --config it loads the demo configuration.
 */
import { parseArgs } from 'node:util';
import { ConfigError, DEMO_CONFIG_PATH, loadConfigFile, startEmulator } from './index.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      host: { type: 'string', default: '127.0.0.1' },
      config: { type: 'string' },
    },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port must be 0 to 65535, got ${values.port}`);
  const config = await loadConfigFile(values.config ?? DEMO_CONFIG_PATH);
  const emulator = await startEmulator({ port, host: values.host, config });
  console.log(`emulator listening on ${emulator.url}`);
  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => {
  console.error(e instanceof ConfigError ? e.message : e);
  process.exit(1);
});
