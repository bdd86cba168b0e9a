/**
 * `npm run console -- --stage S [--stack NAME] [--outputs FILE] [--port N]`: the operator console for
 * a deployed stage, served on 127.0.0.1 and read with the operator's own AWS credentials. Locally the
 * console needs no command: `npm start` serves it at /__local/console/.
 */
import { parseArgs } from 'node:util';
import { ConfigurationError } from '../shared/config/index.js';
import { startConsoleServer } from './server.js';
import { stageConsoleSource } from './stage.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = 'usage: npm run console -- --stage <stage> [--stack <name>] [--outputs <cdk outputs file>] [--port <port, default 3100>]';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string' },
      stack: { type: 'string' },
      outputs: { type: 'string' },
      port: { type: 'string', default: '3100' },
    },
  });
  if (values.stage === undefined) {
    console.error(`${USAGE}\n(the local stack's console is served by npm start at http://127.0.0.1:$PORT/__local/console/)`);
    return 2;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not ${values.port}`);
    return 2;
  }
  const source = await stageConsoleSource({
    stage: values.stage,
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.outputs ? { outputsFile: values.outputs } : {}),
  });
  const server = await startConsoleServer(source, port);
  console.log(`console for stage ${values.stage}: ${server.url} (Ctrl-C to stop)`);
  const stop = () => {
    server
      .close()
      .then(() => source.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return new Promise<number>(() => {});
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(
      e instanceof ConfigurationError
        ? `npm run console: ${e.message}`
        : `npm run console failed: ${e instanceof Error ? e.message : String(e)}`,
    );
    process.exit(2);
  },
);
