/** One message for the FIFO queue between intake and processing. */
export interface QueueMessage {
  /** JSON of a PointsEvent. */
  body: string;
  /** FIFO message group: source + customer, so one customer's events are processed in order. */
  groupId: string;
  /** FIFO deduplication id: source + delivery id. */
  deduplicationId: string;
  /** SQS message attributes (String), e.g. a waiting message's wake time (aside.ts). */
  attributes?: Record<string, string>;
}

/** Where accepted events go: SQS in AWS, the in-process queue under `npm start` and in tests. */
export interface EventQueue {
  send(message: QueueMessage): Promise<void>;
}
