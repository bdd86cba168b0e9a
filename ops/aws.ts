import { execFile } from 'node:child_process';
import { OpsError } from './errors.js';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { loadStageConfig } from '../infra/config/load.js';
import { stageProcessingSettings, stageSources } from '../infra/config/derived.js';
import type { SourceSet } from '../shared/sources/index.js';
import { OUTPUT_KEYS } from '../infra/outputs.js';
import { createSecretsManagerReader, type ProcessingSettings } from '../shared/config/index.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createLedger, type Ledger } from '../shared/ledger/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { createOpenApiClient, type OpenApiClient, secretsManagerCredentials } from '../shared/openapi/index.js';
import { upstreamBudgetOn } from '../shared/upstream/index.js';

/**
 * The CLI against a deployed stage. Nothing here can run on a machine without AWS credentials and a
 * deployed stack; it is the same ledger module and Open API client as locally, plus the SQS calls.
 */

export interface StackOutputs {
  LedgerTableName: string;
  QueueUrl: string;
  DeadLetterQueueUrl: string;
  /** Every output of the stack by key (QuarantineTableName, WebhookUrl<source>, ...: infra/outputs.ts). */
  all?: Readonly<Record<string, string>>;
}

/** The outputs every stage command needs, by their keys in the stack (infra/outputs.ts). */
const REQUIRED = {
  LedgerTableName: OUTPUT_KEYS.ledgerTable,
  QueueUrl: OUTPUT_KEYS.queueUrl,
  DeadLetterQueueUrl: OUTPUT_KEYS.deadLetterQueueUrl,
} as const;

function pickOutputs(values: Record<string, string>, where: string): StackOutputs {
  const LedgerTableName = values[REQUIRED.LedgerTableName];
  const QueueUrl = values[REQUIRED.QueueUrl];
  const DeadLetterQueueUrl = values[REQUIRED.DeadLetterQueueUrl];
  if (LedgerTableName === undefined || QueueUrl === undefined || DeadLetterQueueUrl === undefined) {
    const missing = Object.values(REQUIRED).filter((k) => typeof values[k] !== 'string');
    throw new OpsError('aws_target', `${where} lacks the output(s) ${missing.join(', ')}`);
  }
  return { LedgerTableName, QueueUrl, DeadLetterQueueUrl, all: values };
}

/**
 * The stack's outputs: from the file `cdk deploy --outputs-file` wrote when given, else from
 * `aws cloudformation describe-stacks` (the AWS CLI; no CloudFormation SDK client is a dependency).
 */
export async function readStackOutputs(stackName: string, region: string, outputsFile?: string): Promise<StackOutputs> {
  if (outputsFile !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(outputsFile, 'utf8'));
    } catch (e) {
      throw new OpsError('aws_target', `cannot read ${outputsFile}: ${e instanceof Error ? e.message : String(e)}`);
    }
    const stack = (parsed as Record<string, Record<string, string> | undefined>)[stackName];
    if (stack === undefined) throw new OpsError('aws_target', `${outputsFile} has no stack ${stackName}`);
    return pickOutputs(stack, `${outputsFile} (${stackName})`);
  }
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('aws', [
      'cloudformation',
      'describe-stacks',
      '--region',
      region,
      '--stack-name',
      stackName,
      '--query',
      'Stacks[0].Outputs',
      '--output',
      'json',
    ]));
  } catch (e) {
    throw new OpsError(
      'aws_target',
      `could not read the outputs of stack ${stackName} with the AWS CLI (${e instanceof Error ? e.message.split('\n')[0] : 'failed'}); ` +
        'pass --outputs <file written by cdk deploy --outputs-file>',
    );
  }
  const list = JSON.parse(stdout) as { OutputKey: string; OutputValue: string }[] | null;
  return pickOutputs(Object.fromEntries((list ?? []).map((o) => [o.OutputKey, o.OutputValue])), `stack ${stackName}`);
}

export interface AwsTarget {
  ledger: Ledger;
  /** The ledger table's client and name, for whole-table reads (the audit, privacy requests). */
  documentClient: DynamoDBDocumentClient;
  tableName: string;
  /** The settings the stage's worker processes with (from the stage file, as the stack derives them). */
  processing: ProcessingSettings;
  /** The stage's sources as its functions read them (names, external keys, linking), from the stage file. */
  sources: SourceSet;
  /** A Smaregi source's till-points mode, as the stage file sets it. */
  tillPoints(source: string): 'ignore' | 'membership' | undefined;
  openapi: OpenApiClient;
  outputs: StackOutputs;
  sqs: SQSClient;
  close(): Promise<void>;
}

/** Which deployed stage a command acts on (`--stage`, `--stack`, `--outputs`). */
export interface StageOptions {
  stage: string;
  stack?: string;
  outputsFile?: string;
  infraDir?: string;
}

/** A stage's configuration (infra/stages/<stage>.json), its stack's name and the stack's outputs. */
export async function stageStack(options: StageOptions) {
  const stage = loadStageConfig(options.infraDir ?? join(process.cwd(), 'infra'), options.stage);
  const stackName = options.stack ?? `loyalty-bridge-${stage.stageName}`;
  return { stage, stackName, outputs: await readStackOutputs(stackName, stage.region, options.outputsFile) };
}

/** Connects to a deployed stage: region and secret name from infra/stages/<stage>.json, the rest from the stack. */
export async function connectToStage(options: StageOptions): Promise<AwsTarget> {
  const { stage, outputs } = await stageStack(options);
  const documentClient = createDocumentClient({ region: stage.region });
  const processing = stageProcessingSettings(stage);
  const sources = stageSources(stage);
  const ledger = createLedger({
    client: documentClient,
    tableName: outputs.LedgerTableName,
    clock: Date.now,
    ttlDays: processing.ledgerTtlDays,
    leaseSeconds: processing.leaseSeconds,
  });
  const reader = createSecretsManagerReader({ client: new SecretsManagerClient({ region: stage.region }) });
  // The stage's one budget, counted in its ledger table: the CLI draws from it beside the workers.
  const openapi = createOpenApiClient({
    credentials: secretsManagerCredentials(stage.openApiSecretName, reader),
    ...upstreamBudgetOn({ client: documentClient, tableName: outputs.LedgerTableName }, stage.rate.upstreamPerMinute),
  });
  const sqs = new SQSClient({ region: stage.region });
  return {
    ledger,
    documentClient,
    tableName: outputs.LedgerTableName,
    processing,
    sources,
    tillPoints: (source) => (stage.sources as Record<string, { tillPoints?: 'ignore' | 'membership' } | undefined>)[source]?.tillPoints,
    openapi,
    outputs,
    sqs,
    async close() {
      await openapi.close();
      documentClient.destroy();
      sqs.destroy();
    },
  };
}

/** A deduplication id for the resend: the original one would be dropped inside SQS's 5-minute window. */
function redriveDeduplicationId(message: Message, now: number): string {
  const original = message.Attributes?.MessageDeduplicationId ?? message.MessageId ?? '';
  return createHash('sha256').update(`${original}\0redrive\0${now}`).digest('hex');
}

/** One receive of up to ten dead letters; each stays invisible for a minute, so a listing sees each once. */
async function receiveDeadLetters(sqs: Pick<SQSClient, 'send'>, deadLetterQueueUrl: string): Promise<Message[]> {
  const received = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId', 'ApproximateReceiveCount'],
    }),
  );
  return received.Messages ?? [];
}

/** Why a dead letter failed, from its body (the ledger keeps the reason: dead-letter-reason.ts). */
export type DeadLetterReason = (body: string) => Promise<string>;

const describeLetter = async (m: Message, groupId: string, reason: DeadLetterReason | undefined) =>
  `${m.MessageId} (group ${groupId}, ${m.Attributes?.ApproximateReceiveCount ?? '?'} receives, last error: ${
    reason && m.Body !== undefined ? await reason(m.Body) : '-'
  })`;

/**
 * The stage's dead letters, each with its reason from the ledger (`npm run dlq -- --stage`). Reading
 * hides them for a minute (SQS has no peek); nothing consumes a DLQ, so nothing is held up.
 */
export async function listDeadLetters(
  sqs: Pick<SQSClient, 'send'>,
  outputs: Pick<StackOutputs, 'DeadLetterQueueUrl'>,
  reason: DeadLetterReason,
): Promise<{ messageId: string; groupId: string; receiveCount: number; lastError: string; event: unknown }[]> {
  const listed = [];
  for (;;) {
    const messages = await receiveDeadLetters(sqs, outputs.DeadLetterQueueUrl);
    if (messages.length === 0) return listed;
    for (const m of messages) {
      const body = m.Body ?? '';
      listed.push({
        messageId: m.MessageId ?? '?',
        groupId: m.Attributes?.MessageGroupId ?? '?',
        receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
        lastError: await reason(body),
        event: parseJsonOrUndefined(body) ?? body,
      });
    }
  }
}

/**
 * Moves every message of the FIFO dead-letter queue back to the queue, keeping its message group (so
 * its customer's order holds), then deletes it from the DLQ. Returns how many moved (a dry run: how
 * many would, each printed with its reason).
 */
export async function redriveDeadLetters(
  sqs: Pick<SQSClient, 'send'>,
  outputs: Pick<StackOutputs, 'QueueUrl' | 'DeadLetterQueueUrl'>,
  options: { dryRun?: boolean; print?: (line: string) => void; now?: () => number; reason?: DeadLetterReason } = {},
): Promise<number> {
  const print = options.print ?? (() => {});
  const now = options.now ?? Date.now;
  let moved = 0;
  for (;;) {
    const messages = await receiveDeadLetters(sqs, outputs.DeadLetterQueueUrl);
    if (messages.length === 0) return moved;
    for (const m of messages) {
      const groupId = m.Attributes?.MessageGroupId;
      if (m.Body === undefined || groupId === undefined || m.ReceiptHandle === undefined) continue;
      print(`${options.dryRun ? 'would move' : 'moving'} ${await describeLetter(m, groupId, options.reason)}`);
      if (options.dryRun) {
        moved += 1;
        continue;
      }
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: outputs.QueueUrl,
          MessageBody: m.Body,
          MessageGroupId: groupId,
          MessageDeduplicationId: redriveDeduplicationId(m, now()),
        }),
      );
      await sqs.send(new DeleteMessageCommand({ QueueUrl: outputs.DeadLetterQueueUrl, ReceiptHandle: m.ReceiptHandle }));
      moved += 1;
    }
    // A dry run sees each message once: they stay invisible for the receive's visibility timeout.
  }
}
