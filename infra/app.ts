import { App } from 'aws-cdk-lib';
import { buildApp } from './build-app.js';
import { loadDeployment, loadStageConfig } from './config/index.js';
import { INFRA_DIR } from './paths.js';

// `npx cdk synth` synthesises the pipeline and its stages; `-c stage=dev` adds infra/stages/dev.json
// as a stack deployed directly (a sandbox account, no pipeline).
const app = new App();
const standaloneName: unknown = app.node.tryGetContext('stage');
buildApp(app, loadDeployment(INFRA_DIR), {
  standalone: typeof standaloneName === 'string' ? loadStageConfig(INFRA_DIR, standaloneName) : undefined,
});
