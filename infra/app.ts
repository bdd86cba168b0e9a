import { App } from 'aws-cdk-lib';
import { ConfigurationError } from '../shared/config/index.js';
import { buildApp } from './build-app.js';
import { loadDeployment, loadStageConfig } from './config/index.js';
import { INFRA_DIR } from './paths.js';

// `npx cdk synth` synthesises the pipeline and its stages; `-c stage=dev` adds infra/stages/dev.json
// as a stack deployed directly (a sandbox account, no pipeline).
const app = new App();
const standaloneName: unknown = app.node.tryGetContext('stage');
try {
  buildApp(app, loadDeployment(INFRA_DIR), {
    standalone: typeof standaloneName === 'string' ? loadStageConfig(INFRA_DIR, standaloneName) : undefined,
  });
} catch (e) {
  // A ConfigurationError (a stage file's, SOURCES_CONFIG's, the timing's) is the user's to fix: the
  // message names the file and field, a stack trace adds nothing. Anything else is a bug: show its stack.
  if (!(e instanceof ConfigurationError)) throw e;
  console.error(`infra: ${e.message}`);
  process.exit(1);
}
