import { createHash } from 'node:crypto';
import type { QueueMessage } from './types.js';

/**
 * Waiting without holding a group. SQS FIFO hands out no message of a group while one of it is in
 * flight, so a message deferred in place (ChangeMessageVisibility) holds every later message of its
 * customer for as long as it waits. A message that has to wait is therefore set aside: sent again as
 * a new message in a group of its own (`aside:` + a digest), carrying when it may run again and since
 * when it has been waiting, and the original is acknowledged. The copy waits in place in its own group,
 * where it holds nobody; the customer's later events go on at once.
 *
 * A FIFO queue has no per-message delay, so the copy is receivable at once: its first receive sees
 * `wakeAt` in the future and only defers itself to it (no processing, no upstream call). A copy that
 * has to wait again is set aside again (a new copy; `waits` one more while it waits for the same reason): waiting never piles receives
 * onto one message, so the queue's maxReceiveCount counts failures only.
 */
export const ASIDE_ATTRIBUTES = {
  /** Epoch ms before which the copy only defers itself. */
  wakeAt: 'lp-wake-at',
  /** Epoch ms the event first went into the queue: the retry horizon counts from it. */
  waitingSince: 'lp-waiting-since',
  /** Why it waits (an outcome kind), for the log. */
  reason: 'lp-waiting-for',
  /** Steps of the backoff taken while waiting for `reason`: its exponent (a new reason starts again). */
  waits: 'lp-waits',
} as const;

/** What a received message says about its waiting, when it is a set-aside copy. */
export interface AsideState {
  wakeAt: number;
  waitingSince: number;
  reason: string;
  waits: number;
}

/** The set-aside state of a received message (SQS record message attributes), if it is a copy. */
export function asideStateOf(attributes: Record<string, { stringValue?: string | undefined }> | undefined): AsideState | undefined {
  const wakeAt = Number(attributes?.[ASIDE_ATTRIBUTES.wakeAt]?.stringValue);
  const waitingSince = Number(attributes?.[ASIDE_ATTRIBUTES.waitingSince]?.stringValue);
  if (!Number.isFinite(wakeAt) || !Number.isFinite(waitingSince)) return undefined;
  const waits = Number(attributes?.[ASIDE_ATTRIBUTES.waits]?.stringValue);
  return {
    wakeAt,
    waitingSince,
    reason: attributes?.[ASIDE_ATTRIBUTES.reason]?.stringValue ?? 'unknown',
    waits: Number.isInteger(waits) && waits > 0 ? waits : 1,
  };
}

/**
 * The copy of a waiting message. `receipt` names this receive of the message being set aside (its
 * message id and receive count), so a worker that sets the same receive aside twice (a retried send)
 * makes one copy only. `group`: the copy's own group, kept when a copy is set aside again; a first copy
 * gets a group of its own, so that two deliveries of one event do not wait behind each other either.
 */
export function asideMessage(options: {
  body: string;
  receipt: string;
  group?: string | undefined;
  wakeAt: number;
  waitingSince: number;
  reason: string;
  waits: number;
}): QueueMessage {
  return {
    body: options.body,
    groupId: options.group ?? `aside:${digest(options.receipt)}`,
    deduplicationId: `aside:${digest(options.receipt)}`,
    attributes: {
      [ASIDE_ATTRIBUTES.wakeAt]: String(Math.round(options.wakeAt)),
      [ASIDE_ATTRIBUTES.waitingSince]: String(Math.round(options.waitingSince)),
      [ASIDE_ATTRIBUTES.reason]: options.reason,
      [ASIDE_ATTRIBUTES.waits]: String(options.waits),
    },
  };
}

/** 64 hex characters: within SQS's 128-character ids whatever the key holds. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
