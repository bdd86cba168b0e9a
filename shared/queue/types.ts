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

/** An entry of a batch send that was not queued (the others were). */
export interface BatchEntryFailure {
  /** Its position in the batch. */
  index: number;
  /** The queue's error code (SQS's `Code`), never the message's content. */
  code: string;
  /** The message itself is at fault (SQS `SenderFault`): sending it again cannot succeed. */
  senderFault: boolean;
}

/** Where accepted events go: SQS in AWS, the in-process queue under `npm start` and in tests. */
export interface EventQueue {
  send(message: QueueMessage): Promise<void>;
  /**
   * Up to MAX_BATCH_ENTRIES messages in one call (SQS SendMessageBatch): the entries that failed, the
   * others are queued. Throws when the call as a whole failed (then none may be, or all). Optional:
   * `sendAll` sends one at a time to a queue without it.
   */
  sendBatch?(messages: readonly QueueMessage[]): Promise<BatchEntryFailure[]>;
}
