import { GetQueueAttributesCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { connectToStage, redriveDeadLetters, type StageOptions } from '../ops/aws.js';
import { deadLetterReason } from '../ops/dead-letter-reason.js';
import { awsQuarantineTarget } from '../ops/quarantine-targets.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { pullingStatus } from '../shared/consumer/index.js';
import type { PullingTarget } from '../ops/pulling.js';
import { message } from './messages.js';
import type { Backlog, ConsoleDeadLetter, ConsoleSource } from './source.js';

/** At most this many dead letters are shown (ten receives of ten): the page is a view, not an export. */
const DLQ_PEEK_RECEIVES = 10;

/**
 * Peeks at the dead-letter queue: receives with a visibility timeout of 0, so every message stays
 * where it is for the redrive (a DLQ has no redrive policy of its own: its receive count is harmless).
 * Not `listDeadLetters` of the CLI: that one hides each message for 60 s, which a page polling every
 * 2 s would turn into an empty list and a redrive that finds nothing.
 */
async function peekDeadLetters(
  sqs: Pick<SQSClient, 'send'>,
  dlqUrl: string,
): Promise<{ messageId: string; receiveCount: number; sentAt: string | null; body: string }[]> {
  const seen = new Map<string, { messageId: string; receiveCount: number; sentAt: string | null; body: string }>();
  for (let i = 0; i < DLQ_PEEK_RECEIVES; i++) {
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: dlqUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount'],
      }),
    );
    const messages = received.Messages ?? [];
    let fresh = 0;
    for (const m of messages) {
      if (m.MessageId === undefined || seen.has(m.MessageId)) continue;
      fresh++;
      const sent = Number(m.Attributes?.SentTimestamp);
      seen.set(m.MessageId, {
        messageId: m.MessageId,
        receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 0),
        sentAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : null,
        body: m.Body ?? '',
      });
    }
    if (fresh === 0) break;
  }
  return [...seen.values()];
}

interface QueueCounts {
  ready: number;
  'in flight or deferred': number;
  delayed: number;
}

async function queueCounts(sqs: Pick<SQSClient, 'send'>, url: string): Promise<QueueCounts> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const n = (k: keyof typeof Attributes) => Number(Attributes[k] ?? 0);
  return {
    ready: n('ApproximateNumberOfMessages'),
    'in flight or deferred': n('ApproximateNumberOfMessagesNotVisible'),
    delayed: n('ApproximateNumberOfMessagesDelayed'),
  };
}

/**
 * The console's view of a deployed stage, read with the operator's own AWS credentials: the same
 * stage connection, quarantine target and redrive as `npm run ledger|quarantine|redrive -- --stage`.
 */
export async function stageConsoleSource(options: StageOptions): Promise<ConsoleSource & { close(): Promise<void> }> {
  const aws = await connectToStage(options);
  let pulling: Promise<PullingTarget> | undefined;
  const quarantine = await awsQuarantineTarget(options).catch(async (e: unknown) => {
    await aws.close();
    throw e;
  });
  const { QueueUrl, DeadLetterQueueUrl, LedgerTableName } = aws.outputs;
  return {
    label: message('where.stage', { stage: options.stage }),
    ledger: { client: aws.documentClient, tableName: LedgerTableName, records: aws.ledger },
    openapi: aws.openapi,
    quarantine,
    async deadLetters(): Promise<ConsoleDeadLetter[]> {
      const out: ConsoleDeadLetter[] = [];
      for (const m of await peekDeadLetters(aws.sqs, DeadLetterQueueUrl)) {
        const listed = {
          messageId: m.messageId,
          receiveCount: m.receiveCount,
          sentAt: m.sentAt,
          lastError: null,
          event: parseJsonOrUndefined(m.body) ?? m.body,
        };
        out.push({ ...listed, lastError: await deadLetterReason(aws.ledger, listed.event) });
      }
      return out;
    },
    redrive: () => redriveDeadLetters(aws.sqs, aws.outputs),
    async backlog(): Promise<Backlog> {
      const [queue, dlq] = await Promise.all([queueCounts(aws.sqs, QueueUrl), queueCounts(aws.sqs, DeadLetterQueueUrl)]);
      return { ...queue, 'dead-lettered': dlq.ready + dlq['in flight or deferred'] };
    },
    async pulling() {
      // Made once (its SDK clients and the mapping id it reads), not on every 2-second poll.
      pulling ??= import('../ops/pulling.js').then(({ stagePulling }) => stagePulling(options, aws));
      return pullingStatus(
        await pulling.catch((e: unknown) => {
          pulling = undefined; // try again on the next poll
          throw e;
        }),
      );
    },
    async close() {
      await quarantine.close();
      await aws.close();
    },
  };
}
