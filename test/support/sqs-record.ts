import type { SQSEvent, SQSRecord } from 'aws-lambda';

/** What varies between the records a test hands the worker; the rest is what every record carries. */
export interface RecordFacts {
  /** The message id (also its deduplication id and, prefixed `rh-`, its receipt handle). */
  id: string;
  groupId: string;
  /** SentTimestamp, ms (the retry horizon counts from it). */
  sentAt?: number;
  sequence?: number;
}

/**
 * One SQS FIFO record as Lambda's SQS integration delivers it: SQS itself cannot run here. A body that
 * is not a string is sent as its JSON.
 */
export function sqsRecord(body: object | string, { id, groupId, sentAt = 0, sequence = 1 }: RecordFacts): SQSRecord {
  return {
    messageId: id,
    receiptHandle: `rh-${id}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(sentAt),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: groupId,
      MessageDeduplicationId: id,
      SequenceNumber: String(sequence),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:ap-northeast-1:000000000000:events.fifo',
    awsRegion: 'ap-northeast-1',
  };
}

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });
