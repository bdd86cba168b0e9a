import { type HttpAnswer, jsonAnswer } from './http/index.js';
import type { DeadLetter, LocalQueue } from './queue/index.js';

/** A dead letter as the admin route lists it: the event parsed, times readable. */
export interface ListedDeadLetter {
  messageId: string;
  groupId: string;
  receiveCount: number;
  sentAt: string;
  deadLetteredAt: string;
  lastError: string | null;
  event: unknown;
}

export function listDeadLetter(m: DeadLetter): ListedDeadLetter {
  let event: unknown = m.body;
  try {
    event = JSON.parse(m.body);
  } catch {
    // not JSON: kept as text
  }
  return {
    messageId: m.messageId,
    groupId: m.groupId,
    receiveCount: m.receiveCount,
    sentAt: new Date(m.sentAt).toISOString(),
    deadLetteredAt: new Date(m.deadLetteredAt).toISOString(),
    lastError: m.lastError ?? null,
    event,
  };
}

/**
 * Routes of the local stack only, beside the webhooks (loopback, no authentication). In AWS the same
 * needs are met by SQS itself and `npm run redrive -- --stage`.
 */
export function adminRoutes(queue: LocalQueue): Record<string, () => HttpAnswer> {
  return {
    'GET /__local/queue': () => jsonAnswer(200, queue.stats()),
    'GET /__local/dlq': () => jsonAnswer(200, { messages: queue.deadLetters().map(listDeadLetter) }),
    'POST /__local/redrive': () => jsonAnswer(200, { moved: queue.redrive() }),
  };
}
