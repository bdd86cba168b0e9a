import { systemClock, type QueueClock } from './clock.js';
import { LocalQueueError } from './errors.js';
import type { DeadLetter, LocalQueueOptions, QueueConsumer, StoredMessage, Waiter } from './types.js';

/** The queue's settings with their defaults applied (SQS FIFO's, and the mapping's). */
export interface QueueSettings {
  batchSize: number;
  visibilityTimeoutMs: number;
  maxReceiveCount: number;
  dedupWindowMs: number;
  concurrency: number;
  clock: QueueClock;
  region: string;
  arn: string;
}

/** A span in which a message of a group waited in place (a deferral saying `waiting`). */
export interface Deferral {
  messageId: string;
  from: number;
  to: number;
}

/**
 * Everything one local queue holds. The modules beside this one (selection, delivery, visibility,
 * dead letters, stats, pump) each read and change the part they own, as steps on this one state.
 */
export interface QueueState {
  settings: QueueSettings;
  /** The observers (onDeadLetter, onFirstReceived, ...): called as the queue's options name them. */
  options: LocalQueueOptions;
  /** Messages of each group in send order; the map keeps groups in order of first appearance. */
  groups: Map<string, StoredMessage[]>;
  dedupSeen: Map<string, number>;
  /** Messages holding a receipt (in flight), so expiring receipts does not walk the whole queue. */
  received: Set<StoredMessage>;
  dead: DeadLetter[];
  timers: Set<unknown>;
  running: Set<Promise<void>>;
  waiters: Waiter[];
  consumer: QueueConsumer | undefined;
  closed: boolean;
  /** The event source mapping disabled (shared/consumer/pull.ts): messages stay queued, none is handed out. */
  paused: boolean;
  pumpScheduled: boolean;
  sequence: bigint;
  counters: { sent: number; batchSends: number; deduplicated: number; received: number; deleted: number; visibilityChanges: number };
  /** Per group, the spans its messages waited in place (only kept while someone may ask: onFirstReceived). */
  deferrals: Map<string, Deferral[]>;
}

export function queueSettings(options: LocalQueueOptions): QueueSettings {
  const name = options.name ?? 'points-events.fifo';
  const batchSize = options.batchSize ?? 10;
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const region = options.region ?? 'us-east-1';
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new LocalQueueError('invalid_message', 'batchSize must be an integer from 1 to 10 (SQS FIFO limit)');
  }
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1) {
    throw new LocalQueueError('invalid_message', 'maxReceiveCount must be a positive integer');
  }
  return {
    batchSize,
    visibilityTimeoutMs: options.visibilityTimeoutMs ?? 30_000,
    maxReceiveCount,
    dedupWindowMs: options.deduplicationWindowMs ?? 300_000,
    concurrency: options.concurrency ?? 2,
    clock: options.clock ?? systemClock,
    region,
    arn: `arn:aws:sqs:${region}:${options.accountId ?? '000000000000'}:${name}`,
  };
}

export function createQueueState(options: LocalQueueOptions): QueueState {
  return {
    settings: queueSettings(options),
    options,
    groups: new Map(),
    dedupSeen: new Map(),
    received: new Set(),
    dead: [],
    timers: new Set(),
    running: new Set(),
    waiters: [],
    consumer: undefined,
    closed: false,
    paused: false,
    pumpScheduled: false,
    sequence: 0n,
    counters: { sent: 0, batchSends: 0, deduplicated: 0, received: 0, deleted: 0, visibilityChanges: 0 },
    deferrals: new Map(),
  };
}
