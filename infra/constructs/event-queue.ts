import { Duration } from 'aws-cdk-lib';
import { DeduplicationScope, FifoThroughputLimit, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE_RETENTION_DAYS } from '../config/schema.js';

export type EventQueueProps = {
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  dlqRetentionDays: number;
};

/**
 * The FIFO queue between intake and processing, and its FIFO dead-letter queue. The receiver sets
 * group ids (source + customer) and deduplication ids (source + delivery id), so content-based
 * deduplication is off and high-throughput mode (deduplication and throughput per message group) fits.
 */
export class EventQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: EventQueueProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      fifo: true,
      contentBasedDeduplication: false,
      retentionPeriod: Duration.days(props.dlqRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: false,
      deduplicationScope: DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
      visibilityTimeout: Duration.seconds(props.visibilityTimeoutSeconds),
      // Longer than the DLQ path needs, so a message survives a worker outage of days.
      retentionPeriod: Duration.days(QUEUE_RETENTION_DAYS),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
