import type { SQSClient, SQSClientConfig } from '@aws-sdk/client-sqs';
import { VisibilityChangeError } from './errors.js';

/** One message's new visibility: it comes back `seconds` from now (SQS ChangeMessageVisibility). */
export interface VisibilityChange {
  receiptHandle: string;
  /** The record's eventSourceARN: which queue it came from. */
  eventSourceARN: string;
  seconds: number;
  /** Only waiting (not failing): the local queue tells the two apart in its figures; SQS ignores it. */
  waiting?: boolean;
}

/** How the worker defers a waiting message: SQS in AWS, the in-process queue under `npm start`. */
export interface MessageVisibility {
  changeVisibility(changes: VisibilityChange[]): Promise<void>;
}

/** arn:aws:sqs:<region>:<account>:<name> -> the queue URL the SDK expects. */
export function queueUrlOfArn(arn: string): string {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[2] !== 'sqs') throw new Error(`not an SQS queue ARN: ${arn.slice(0, 120)}`);
  const [, partition, , region, account, name] = parts;
  const domain = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${domain}/${account}/${name}`;
}

/** ChangeMessageVisibilityBatch, 10 entries a call; the SDK is loaded on first use (cold start). */
export function createSqsVisibility(opts: { client?: SQSClient; clientConfig?: SQSClientConfig } = {}): MessageVisibility {
  let ready: Promise<{ client: SQSClient; sdk: typeof import('@aws-sdk/client-sqs') }> | undefined;
  const load = () =>
    (ready ??= import('@aws-sdk/client-sqs').then((sdk) => ({ client: opts.client ?? new sdk.SQSClient(opts.clientConfig ?? {}), sdk })));
  return {
    async changeVisibility(changes) {
      if (changes.length === 0) return;
      const { client, sdk } = await load();
      const byQueue = new Map<string, VisibilityChange[]>();
      for (const c of changes) byQueue.set(c.eventSourceARN, [...(byQueue.get(c.eventSourceARN) ?? []), c]);
      let failed = 0;
      for (const [arn, list] of byQueue) {
        for (let i = 0; i < list.length; i += 10) {
          const entries = list
            .slice(i, i + 10)
            .map((c, n) => ({ Id: `m${n}`, ReceiptHandle: c.receiptHandle, VisibilityTimeout: c.seconds }));
          const answer = await client.send(new sdk.ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrlOfArn(arn), Entries: entries }));
          failed += answer.Failed?.length ?? 0;
        }
      }
      if (failed > 0) throw new VisibilityChangeError(failed);
    },
  };
}
