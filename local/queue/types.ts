import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { PullSwitch } from '../../shared/consumer/index.js';
import type { EventQueue, MessageVisibility, QueueMessage } from '../../shared/queue/index.js';
import type { QueueClock } from './clock.js';
import type { LocalQueueStats } from '../../kit/local-stack/info.js';

/** The counts GET /__local/queue publishes: the wire shape lives with the stack's other admin answers. */
export type { LocalQueueStats };

/** The worker as the event source mapping sees it: an SQS batch in, partial failures out. */
// biome-ignore lint/suspicious/noConfusingVoidType: a Lambda SQS handler may return void (AWS's SQSHandler type), and the queue takes it as is
export type QueueConsumer = (event: SQSEvent) => Promise<SQSBatchResponse | void | undefined>;

export interface LocalQueueOptions {
  /** Queue name in the records' eventSourceARN (FIFO names end in `.fifo`). */
  name?: string;
  /** Records per batch (the event source mapping's BatchSize); SQS FIFO allows at most 10. */
  batchSize?: number;
  /** How long a received message stays invisible; a failed one comes back after it. */
  visibilityTimeoutMs?: number;
  /** Receives before a message moves to the dead-letter list (the redrive policy's maxReceiveCount). */
  maxReceiveCount?: number;
  /** A deduplication id seen within this window is accepted and dropped (SQS FIFO: 5 minutes). */
  deduplicationWindowMs?: number;
  /** Batches handled at the same time (Lambda's concurrency on this queue). */
  concurrency?: number;
  clock?: QueueClock;
  region?: string;
  accountId?: string;
  /** Told about each message moved to the dead-letter list (e.g. to print it). */
  onDeadLetter?: (message: DeadLetter) => void;
  /** Told about each send dropped as a duplicate within the deduplication window. */
  onDeduplicated?: (message: QueueMessage) => void;
  /**
   * Told about each message's first receive: when it was sent and received (queue clock), and how long
   * of that it was held back by an earlier message of its group waiting in place (a deferral that says
   * `waiting`: not one failing towards the DLQ).
   */
  onFirstReceived?: (message: { groupId: string; body: string; sentAt: number; receivedAt: number; heldByDeferralMs: number }) => void;
  /** Told about each message deleted (processed), with when it was sent and deleted (queue clock). */
  onDeleted?: (message: { groupId: string; body: string; sentAt: number; deletedAt: number; receiveCount: number }) => void;
}

export interface DeadLetter {
  messageId: string;
  body: string;
  groupId: string;
  deduplicationId: string;
  receiveCount: number;
  sentAt: number;
  deadLetteredAt: number;
  /** The last error the consumer threw for the batch holding it, if it threw. */
  lastError: string | undefined;
}

export interface LocalQueue extends EventQueue, MessageVisibility, PullSwitch {
  /** Attaches the worker; messages sent before wait for it. */
  start(consumer: QueueConsumer): void;
  stats(): LocalQueueStats;
  /** When the earliest received, not running message becomes visible again (queue clock), if any. */
  nextVisibleAt(): number | undefined;
  deadLetters(): DeadLetter[];
  /** Moves dead-lettered messages back to the queue with a fresh receive count; returns how many. */
  redrive(filter?: (message: DeadLetter) => boolean): number;
  /** Resolves when nothing can run now: no batch running, nothing visible (retries may still wait). */
  settled(): Promise<void>;
  /** Resolves when the queue holds no message at all and no batch runs. */
  waitForIdle(options?: { timeoutMs?: number }): Promise<void>;
  /** Stops handing out batches and waits for the running ones; sends are refused afterwards. */
  close(): Promise<void>;
}

export interface StoredMessage {
  messageId: string;
  body: string;
  groupId: string;
  deduplicationId: string;
  attributes: Record<string, string>;
  sequenceNumber: string;
  sentAt: number;
  firstReceivedAt: number | undefined;
  receiveCount: number;
  /** Set while received: the handle of the current receive and when the message becomes visible again. */
  receipt: { handle: string; visibleAt: number } | undefined;
  /** Batches holding it that the consumer is handling now (2 when its visibility ran out mid-run). */
  inRun: number;
  lastError: string | undefined;
}

export interface Waiter {
  kind: 'settled' | 'idle';
  resolve: () => void;
}
