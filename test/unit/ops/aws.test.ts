import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { redriveDeadLetters } from '../../../ops/aws.js';

const outputs = { QueueUrl: 'https://sqs/queue.fifo', DeadLetterQueueUrl: 'https://sqs/dlq.fifo' };

/**
 * A stand-in for the SQS service: the real one cannot run here (this is the boundary the standards
 * allow to stub). It answers receives from a list of dead letters, in batches, and records the calls.
 */
function fakeSqs(dead: Message[], batch = 2) {
  const calls: { op: string; input: Record<string, unknown> }[] = [];
  let cursor = 0;
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof ReceiveMessageCommand) {
      calls.push({ op: 'receive', input: { ...command.input } });
      const messages = dead.slice(cursor, cursor + batch);
      cursor += messages.length;
      return { Messages: messages };
    }
    if (command instanceof SendMessageCommand) {
      calls.push({ op: 'send', input: { ...command.input } });
      return { MessageId: 'new' };
    }
    if (command instanceof DeleteMessageCommand) {
      calls.push({ op: 'delete', input: { ...command.input } });
      return {};
    }
    throw new Error('unexpected command');
  };
  return { sqs: { send } as never, calls };
}

const letter = (n: number, group: string): Message => ({
  MessageId: `m${n}`,
  ReceiptHandle: `rh${n}`,
  Body: `{"n":${n}}`,
  Attributes: { MessageGroupId: group, MessageDeduplicationId: `shopify:w${n}` },
});

describe('redrive against AWS', () => {
  it('sends every dead letter back to the queue in its group, then deletes it from the dead-letter queue', async () => {
    const { sqs, calls } = fakeSqs([letter(1, 'shopify:a'), letter(2, 'shopify:a'), letter(3, 'pos:b')]);
    const moved = await redriveDeadLetters(sqs, outputs);
    expect(moved).toBe(3);
    const writes = calls.filter((c) => c.op !== 'receive');
    expect(writes.map((c) => `${c.op} ${String(c.input.MessageGroupId ?? c.input.ReceiptHandle)}`)).toEqual([
      'send shopify:a',
      'delete rh1',
      'send shopify:a',
      'delete rh2',
      'send pos:b',
      'delete rh3',
    ]);
    expect(
      calls.filter((c) => c.op === 'send').every((c) => c.input.QueueUrl === outputs.QueueUrl && typeof c.input.MessageBody === 'string'),
    ).toBe(true);
  });

  it('gives each resend a new deduplication id, since SQS would drop the original one within five minutes', async () => {
    const { sqs, calls } = fakeSqs([letter(1, 'g'), letter(2, 'g')]);
    await redriveDeadLetters(sqs, outputs, { now: () => 1 });
    const ids = calls.filter((c) => c.op === 'send').map((c) => c.input.MessageDeduplicationId as string);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids.some((id) => id.startsWith('shopify:w'))).toBe(false);
    expect(ids.every((id) => id.length <= 128)).toBe(true);
  });

  it('moves nothing in a dry run, and counts and names what it would move with its reason', async () => {
    const { sqs, calls } = fakeSqs([letter(1, 'g')]);
    const printed: string[] = [];
    const reason = async (body: string) => `reason of ${body}`;
    expect(await redriveDeadLetters(sqs, outputs, { dryRun: true, print: (l) => printed.push(l), reason })).toBe(1);
    expect(calls.filter((c) => c.op !== 'receive')).toEqual([]);
    expect(printed).toEqual(['would move m1 (group g, ? receives, last error: reason of {"n":1})']);
  });
});
