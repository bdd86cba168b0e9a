import { OUTPUT_KEYS, webhookUrlOutputKey } from '../infra/outputs.js';
import { createDocumentClient } from '../shared/ledger/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../shared/quarantine/index.js';
import { LOCAL_DEFAULTS, resolveLocalConfig } from '../kit/local-stack/config.js';
import { requireRunningStack } from '../kit/local-stack/connect.js';
import { LOCAL_AWS } from '../kit/local-stack/info.js';
import { type StageOptions, stageStack } from './aws.js';
import { OpsError } from './errors.js';
import type { QuarantineTarget } from './quarantine.js';

/** The quarantine of the `npm start` on PORT: its dynalite table, replays posted to its intake. */
export async function localQuarantineTarget(env: NodeJS.ProcessEnv): Promise<QuarantineTarget> {
  const config = await resolveLocalConfig(env);
  const found = await requireRunningStack(config);
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
 * with the operator's AWS credentials), replays posted to the stage's WebhookUrl<source> output (infra/outputs.ts).
 */
export async function awsQuarantineTarget(options: StageOptions): Promise<QuarantineTarget> {
  const { stage, stackName, outputs: stackOutputs } = await stageStack(options);
  const outputs = stackOutputs.all ?? {};
  const tableName = outputs[OUTPUT_KEYS.quarantineTable];
  if (tableName === undefined)
    throw new OpsError('aws_target', `stack ${stackName} has no QuarantineTableName output: deploy this version first`);
  const client = createDocumentClient({ region: stage.region });
  return {
    store: createQuarantineStore({ client, tableName, clock: Date.now, ttlDays: DEFAULT_QUARANTINE_TTL_DAYS }),
    webhookUrl: (source) => outputs[webhookUrlOutputKey(source)],
    close: async () => client.destroy(),
  };
}
