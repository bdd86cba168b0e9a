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
 * needs are met by SQS itself and `npm run redrive -- --stage`. 503 while the queue does not exist yet.
 */
export function adminRoutes(queue: () => LocalQueue | undefined): Record<string, () => HttpAnswer> {
  const withQueue = (answer: (q: LocalQueue) => HttpAnswer) => () => {
    const q = queue();
    return q === undefined ? jsonAnswer(503, { status: 'starting' }) : answer(q);
  };
  return {
    'GET /__local/queue': withQueue((q) => jsonAnswer(200, q.stats())),
    'GET /__local/dlq': withQueue((q) => jsonAnswer(200, { messages: q.deadLetters().map(listDeadLetter) })),
    'POST /__local/redrive': withQueue((q) => jsonAnswer(200, { moved: q.redrive() })),
  };
}
