import { join } from 'node:path';
import { loadStageConfig } from '../../infra/config/load.js';
import { createDocumentClient } from '../../shared/ledger/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../../shared/quarantine/index.js';
import { LOCAL_DEFAULTS, resolveLocalConfig } from '../config.js';
import { findRunningStack } from '../connect.js';
import { LOCAL_AWS } from '../dynamodb/index.js';
import { AwsTargetError, readStackOutputs } from './aws.js';
import type { QuarantineTarget } from './quarantine.js';

/** The quarantine of the `npm start` on PORT: its dynalite table, replays posted to its intake. */
export async function localQuarantineTarget(env: NodeJS.ProcessEnv): Promise<QuarantineTarget> {
  const config = await resolveLocalConfig(env);
  const found = await findRunningStack(config);
  if (found.status !== 'up') {
    throw new AwsTargetError(`no local stack answers at ${found.intakeUrl}: start it with npm start (or pass --stage for AWS)`);
  }
  const endpoint = found.info?.dynamodb.url ?? `http://127.0.0.1:${config.ports.dynamodb}`;
  const tableName = found.info?.dynamodb.quarantineTable ?? LOCAL_DEFAULTS.quarantineTable;
  const client = createDocumentClient({ endpoint, ...LOCAL_AWS });
  return {
    store: createQuarantineStore({ client, tableName, clock: Date.now, ttlDays: DEFAULT_QUARANTINE_TTL_DAYS }),
    webhookUrl: (source) => `${found.intakeUrl}/webhooks/${encodeURIComponent(source)}`,
    close: async () => client.destroy(),
  };
}

/**
 * A deployed stage's quarantine: the table named by the stack's QuarantineTableName output (read
 * with the operator's AWS credentials), replays posted to the stage's WebhookUrl-<source>.
 */
export async function awsQuarantineTarget(options: {
  stage: string;
  stack?: string;
  outputsFile?: string;
  infraDir?: string;
}): Promise<QuarantineTarget> {
  const stage = loadStageConfig(options.infraDir ?? join(process.cwd(), 'infra'), options.stage);
  const stackName = options.stack ?? `loyalty-bridge-${stage.stageName}`;
  const outputs = (await readStackOutputs(stackName, stage.region, options.outputsFile)).all ?? {};
  const tableName = outputs.QuarantineTableName;
  if (tableName === undefined) throw new AwsTargetError(`stack ${stackName} has no QuarantineTableName output: deploy this version first`);
  const client = createDocumentClient({ region: stage.region });
  return {
    store: createQuarantineStore({ client, tableName, clock: Date.now, ttlDays: DEFAULT_QUARANTINE_TTL_DAYS }),
    webhookUrl: (source) => outputs[`WebhookUrl-${source}`],
    close: async () => client.destroy(),
  };
}
