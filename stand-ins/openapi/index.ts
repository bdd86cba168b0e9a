/**
 * The Open API emulator's public face: start it in-process (tests, `npm start`) on a port, with a
 * configuration (stand-ins/openapi/README.md). `npm run emulator` is the same from the command line (cli.ts).
 */
import { loadConfigFile, parseConfig, DEMO_CONFIG_PATH, type EmulatorConfig } from './config.js';
import { serve } from '../http/index.js';
import { buildServer } from './server.js';
import { EmulatorState } from './state.js';

export { ConfigError, EmulatorError } from './errors.js';
export { loadConfigFile, parseConfig, DEMO_CONFIG_PATH, type EmulatorConfig, type ClientConfig } from './config.js';

export interface StartEmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the admin API has no authentication. */
  host?: string;
  /** A configuration object (validated, defaults applied); default: the demo configuration. */
  config?: unknown;
}

export interface RunningEmulator {
  /** Base URL, e.g. http://127.0.0.1:41234 (the Open API's {base_url}). */
  url: string;
  close(): Promise<void>;
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const config: EmulatorConfig = options.config === undefined ? await loadConfigFile(DEMO_CONFIG_PATH) : parseConfig(options.config);
  const app = buildServer({ state: new EmulatorState(config) });
  const { url, close } = await serve(app, options);
  return { url, close };
}
