import { type HttpAnswer, jsonAnswer } from './http/index.js';
import { LOCAL_INFO_PATH, type ListedDeadLetter, type LocalStackInfo } from '../kit/local-stack/info.js';
import type { DeadLetter, LocalQueue } from './queue/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';

export function listDeadLetter(m: DeadLetter): ListedDeadLetter {
  const event = parseJsonOrUndefined(m.body) ?? m.body; // not JSON: kept as text
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

/** What the admin routes read, each undefined until that part has started. */
export interface AdminState {
  queue: () => LocalQueue | undefined;
  info: () => LocalStackInfo | undefined;
}

/**
 * Routes of the local stack only, beside the webhooks (loopback, no authentication). In AWS the same
 * needs are met by SQS itself, the stack's outputs and `npm run redrive -- --stage`. 503 while the
 * part a route reads has not started yet.
 */
export function adminRoutes(state: AdminState): Record<string, () => HttpAnswer> {
  const starting = () => jsonAnswer(503, { status: 'starting' });
  const withQueue = (answer: (q: LocalQueue) => HttpAnswer) => () => {
    const q = state.queue();
    return q === undefined ? starting() : answer(q);
  };
  return {
    [`GET ${LOCAL_INFO_PATH}`]: () => {
      const info = state.info();
      return info === undefined ? starting() : jsonAnswer(200, info);
    },
    'GET /__local/queue': withQueue((q) => jsonAnswer(200, q.stats())),
    'GET /__local/dlq': withQueue((q) => jsonAnswer(200, { messages: q.deadLetters().map(listDeadLetter) })),
    'POST /__local/redrive': withQueue((q) => jsonAnswer(200, { moved: q.redrive() })),
    // `npm run pause` / `npm run resume` without --stage: the queue stops and starts handing out batches.
    'POST /__local/pause': withQueue((q) => {
      void q.pause();
      return jsonAnswer(200, { paused: true });
    }),
    'POST /__local/resume': withQueue((q) => {
      void q.resume();
      return jsonAnswer(200, { paused: false });
    }),
  };
}
