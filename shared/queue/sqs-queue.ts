import type { SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import type { EventQueue } from './types.js';
import { QueueSendError } from './errors.js';

export interface SqsQueueOptions {
  /** URL of the FIFO queue. */
  queueUrl: string;
  /** A ready client (tests point one at a local endpoint); default: one built from `clientConfig`. */
  client?: SQSClient;
  clientConfig?: SQSClientConfig;
}

/**
 * The EventQueue in AWS: one SendMessage per event on the FIFO queue. The SDK module is loaded on
 * the first send, not at import: requests refused before queueing (and unit tests) never load it,
 * and the function module itself loads fast.
 */
export function createSqsQueue(opts: SqsQueueOptions): EventQueue {
  let ready: Promise<{ client: SQSClient; Command: typeof import('@aws-sdk/client-sqs').SendMessageCommand }> | undefined;
  const load = () =>
    (ready ??= import('@aws-sdk/client-sqs').then((sdk) => ({
      client: opts.client ?? new sdk.SQSClient(opts.clientConfig ?? {}),
      Command: sdk.SendMessageCommand,
    })));
  return {
    async send(message) {
      const { client, Command } = await load();
      try {
        await client.send(
          new Command({
            QueueUrl: opts.queueUrl,
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
          }),
        );
      } catch (e) {
        throw new QueueSendError(e);
      }
    },
  };
}
