import type { SendMessageBatchCommandOutput, SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import type { BatchEntryFailure, EventQueue, QueueMessage } from './types.js';
import { QueueSendError } from './errors.js';

export interface SqsQueueOptions {
  /** URL of the FIFO queue. */
  queueUrl: string;
  /** A ready client (tests point one at a local endpoint); default: one built from `clientConfig`. */
  client?: SQSClient;
  clientConfig?: SQSClientConfig;
}

type Sdk = typeof import('@aws-sdk/client-sqs');

/** A message's fields as both SendMessage and a SendMessageBatch entry name them. */
const fieldsOf = (message: QueueMessage) => ({
  MessageBody: message.body,
  MessageGroupId: message.groupId,
  MessageDeduplicationId: message.deduplicationId,
  ...(message.attributes
    ? {
        MessageAttributes: Object.fromEntries(
          Object.entries(message.attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]),
        ),
      }
    : {}),
});

/**
 * The EventQueue in AWS: SendMessage per event, SendMessageBatch for up to 10 (a Smaregi delivery's
 * fan-out; shared/queue/send-all.ts retries the entries a batch reports failed). The SDK module is
 * loaded on the first send, not at import: requests refused before queueing (and unit tests) never
 * load it, and the function module itself loads fast.
 */
export function createSqsQueue(opts: SqsQueueOptions): EventQueue {
  let ready: Promise<{ client: SQSClient; sdk: Sdk }> | undefined;
  const load = () =>
    (ready ??= import('@aws-sdk/client-sqs').then((sdk) => ({ client: opts.client ?? new sdk.SQSClient(opts.clientConfig ?? {}), sdk })));
  return {
    async send(message) {
      const { client, sdk } = await load();
      try {
        await client.send(new sdk.SendMessageCommand({ QueueUrl: opts.queueUrl, ...fieldsOf(message) }));
      } catch (e) {
        throw new QueueSendError(e);
      }
    },
    async sendBatch(messages): Promise<BatchEntryFailure[]> {
      const { client, sdk } = await load();
      let out: SendMessageBatchCommandOutput;
      try {
        out = await client.send(
          new sdk.SendMessageBatchCommand({
            QueueUrl: opts.queueUrl,
            // Entry ids are the positions: unique within the call, as SQS requires.
            Entries: messages.map((m, i) => ({ Id: String(i), ...fieldsOf(m) })),
          }),
        );
      } catch (e) {
        throw new QueueSendError(e);
      }
      return (out.Failed ?? []).map((f) => ({ index: Number(f.Id), code: f.Code ?? 'unknown', senderFault: f.SenderFault === true }));
    },
  };
}
