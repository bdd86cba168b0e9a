import { join } from 'node:path';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadStageConfig, smaregiCredentialsSecretName, sourcesConfig } from '../infra/config/index.js';
import { createSecretsManagerReader } from '../shared/config/index.js';
import { createSqsQueue } from '../shared/queue/index.js';
import { smaregiFromEnv } from '../shared/sources/smaregi/index.js';
import { SmaregiSettings } from '../shared/sources/index.js';
import { connectToStage } from './aws.js';
import { OpsError } from './errors.js';
import type { SmaregiReconcileTarget } from './reconcile-smaregi.js';

/**
 * `npm run reconcile -- --source <smaregi source> --stage <name>`: the stage's ledger and FIFO queue (the
 * stack's outputs), the source's settings from the stage file, and the Smaregi app's credentials from
 * the secret the stack made for it (`<secretPrefix>/smaregi-app/<source>`): what the scheduled
 * reconcile-smaregi reads, over the window the operator names. Needs AWS credentials and a deployed stage.
 */
export async function smaregiStageTarget(options: {
  stage: string;
  source: string;
  stack?: string;
  outputsFile?: string;
  /** Another origin than Smaregi's hosts for both the API and the token (the tests' stand-in). */
  smaregiOrigin?: string;
}): Promise<SmaregiReconcileTarget> {
  const stage = loadStageConfig(join(process.cwd(), 'infra'), options.stage);
  const configured = sourcesConfig(stage.sources)[options.source];
  const entry = typeof configured === 'object' && configured !== null ? configured : undefined;
  if (entry === undefined || (entry.kind ?? options.source) !== 'smaregi')
    throw new OpsError(
      'aws_target',
      `${options.source} is not a Smaregi source of stage ${options.stage} (infra/stages/${options.stage}.json)`,
    );
  const { kind: _, ...settingsEntry } = entry;
  const settings = SmaregiSettings.parse(settingsEntry);
  const aws = await connectToStage({
    stage: options.stage,
    ...(options.stack ? { stack: options.stack } : {}),
    ...(options.outputsFile ? { outputsFile: options.outputsFile } : {}),
  });
  const origin = options.smaregiOrigin ? { apiOrigin: options.smaregiOrigin, idOrigin: options.smaregiOrigin } : {};
  const access = {
    [options.source]: {
      contractId: settings.contractId,
      hosts: settings.hosts,
      credentialsSecretArn: smaregiCredentialsSecretName(stage, options.source),
      ...origin,
    },
  };
  const reader = createSecretsManagerReader({ client: new SecretsManagerClient({ region: stage.region }) });
  const clients = smaregiFromEnv(JSON.stringify(access), () => reader);
  const client = clients?.(options.source);
  if (!client) throw new OpsError('aws_target', `no Smaregi access for ${options.source}`);
  return {
    client,
    ledger: aws.ledger,
    queue: createSqsQueue({ queueUrl: aws.outputs.QueueUrl, client: aws.sqs }),
    settings,
    async close() {
      await client.close();
      await aws.close();
    },
  };
}
