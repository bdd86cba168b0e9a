import { createHash, randomBytes } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describeError, failedIds } from './batch-result.js';
import { remove } from './groups.js';
import type { QueueState } from './state.js';
import type { QueueConsumer, StoredMessage } from './types.js';
import { heldByDeferral } from './visibility.js';

/** Handing a received batch to the consumer, as the event source mapping does, and deleting what it did. */

/** Receives the batch: a fresh receipt handle per message, counted, invisible for the visibility timeout. */
export function markReceived(q: QueueState, batch: StoredMessage[], now: number): Map<string, string> {
  const handles = new Map<string, string>();
  const { onFirstReceived } = q.options;
  for (const m of batch) {
    const handle = randomBytes(24).toString('base64url');
    m.receiveCount += 1;
    if (m.firstReceivedAt === undefined && onFirstReceived) {
      const { groupId, body, sentAt } = m;
      onFirstReceived({ groupId, body, sentAt, receivedAt: now, heldByDeferralMs: heldByDeferral(q, m, now) });
    }
    m.firstReceivedAt ??= now;
    m.receipt = { handle, visibleAt: now + q.settings.visibilityTimeoutMs };
    q.received.add(m);
    m.inRun += 1;
    handles.set(m.messageId, handle);
    q.counters.received += 1;
  }
  return handles;
}

/** Runs the consumer on the received batch and deletes the messages it did not report as failed. */
export async function runBatch(q: QueueState, batch: StoredMessage[], handles: Map<string, string>, handler: QueueConsumer): Promise<void> {
  // Every message of the batch was given a receipt handle when it was received (receive()).
  const event: SQSEvent = { Records: batch.map((m) => toRecord(q, m, handles.get(m.messageId) ?? '')) };

  let failed: Set<string>;
  try {
    const response = await handler(event);
    failed = failedIds(response, batch);
  } catch (error) {
    // A thrown handler fails the whole batch: every message returns after its visibility timeout.
    const text = describeError(error);
    for (const m of batch) m.lastError = text;
    failed = new Set(batch.map((m) => m.messageId));
  }

  for (const m of batch) {
    m.inRun -= 1;
    // A receive whose visibility ran out is stale: its delete is refused, the message stays.
    if (m.receipt?.handle !== handles.get(m.messageId)) continue;
    if (!failed.has(m.messageId)) remove(q, m);
  }
}

/** The message as a record of the SQS event Lambda receives. */
function toRecord(q: QueueState, m: StoredMessage, receiptHandle: string): SQSRecord {
  return {
    messageId: m.messageId,
    receiptHandle,
    body: m.body,
    attributes: {
      ApproximateReceiveCount: String(m.receiveCount),
      SentTimestamp: String(m.sentAt),
      SenderId: 'AIDALOCALQUEUE000000',
      ApproximateFirstReceiveTimestamp: String(m.firstReceivedAt ?? m.sentAt),
      SequenceNumber: m.sequenceNumber,
      MessageGroupId: m.groupId,
      MessageDeduplicationId: m.deduplicationId,
    },
    messageAttributes: Object.fromEntries(
      Object.entries(m.attributes).map(([k, v]) => [k, { stringValue: v, dataType: 'String', stringListValues: [], binaryListValues: [] }]),
    ),
    md5OfBody: createHash('md5').update(m.body, 'utf8').digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: q.settings.arn,
    awsRegion: q.settings.region,
  };
}
