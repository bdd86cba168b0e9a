/**
 * `npm run emulator -- [--port 8787] [--host 127.0.0.1] [--config FILE]`: serves the emulator until
 * interrupted. Without --config it loads the demo configuration.
 * Exit codes: 0 after --help or a clean stop, 2 for a bad option or configuration, 1 when it cannot listen.
 */
import { parseArgs } from 'node:util';
import { ConfigError, DEMO_CONFIG_PATH, type EmulatorConfig, loadConfigFile, startEmulator } from './index.js';
import { UsageError } from './errors.js';

const USAGE = `usage: npm run emulator -- [--port 8787] [--host 127.0.0.1] [--config FILE]
  --port    port to listen on (0: any free port); default 8787
  --host    address to listen on; default 127.0.0.1
  --config  emulator configuration file; default the demo configuration`;

function readOptions(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: '8787' },
        host: { type: 'string', default: '127.0.0.1' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (e) {
    // node's parseArgs errors carry a long hint after the first sentence; the usage says it better.
    throw new UsageError((e as Error).message.replace(/\. [\s\S]*$/, ''));
  }
}

function parse(argv: string[]): { help: boolean; port: number; host: string; config: string | undefined } {
  const values = readOptions(argv);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be 0 to 65535, got "${values.port.slice(0, 20)}"`);
  return { help: values.help, port, host: values.host, config: values.config };
}

async function loadConfig(path: string): Promise<EmulatorConfig> {
  try {
    return await loadConfigFile(path);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const code = (e as { code?: unknown }).code;
    throw new ConfigError(
      code === 'ENOENT' ? `--config ${path}: no such file` : `--config ${path}: cannot read it (${String(code ?? (e as Error).message)})`,
    );
  }
}

/** The exit code when done at once; undefined while serving. */
async function main(): Promise<number | undefined> {
  const options = parse(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const config = await loadConfig(options.config ?? DEMO_CONFIG_PATH);
  const emulator = await startEmulator({ port: options.port, host: options.host, config });
  console.log(`emulator listening on ${emulator.url}`);
  const stop = (): void => {
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return undefined;
}

main().then(
  (code) => {
    if (code !== undefined) process.exit(code);
  },
  (e: unknown) => {
    if (e instanceof UsageError) {
      console.error(`emulator: ${e.message}\n${USAGE}`);
      process.exit(2);
    }
    if (e instanceof ConfigError) {
      console.error(`emulator: ${e.message}`);
      process.exit(2);
    }
    const { code, port, address } = e as { code?: unknown; port?: unknown; address?: unknown };
    if (code === 'EADDRINUSE') {
      console.error(`emulator: ${String(address)}:${String(port)} is already in use; choose another port with --port (0: any free port)`);
      process.exit(1);
    }
    console.error(`emulator failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
