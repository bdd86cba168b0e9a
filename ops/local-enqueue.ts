import type { EventQueue } from '../shared/queue/index.js';
import { LOCAL_ENQUEUE_PATH } from '../kit/local-stack/info.js';

/** The running `npm start`'s in-process queue, fed through POST /__local/enqueue (what reconcile queues). */
export function localEnqueue(intakeUrl: string): EventQueue {
  return {
    async send(message) {
      const res = await fetch(`${intakeUrl}${LOCAL_ENQUEUE_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [message] }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.body?.cancel();
      if (res.status !== 200) throw new Error(`POST ${LOCAL_ENQUEUE_PATH} answered ${res.status}: is the local stack current (npm start)?`);
    },
  };
}
