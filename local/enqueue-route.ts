import * as z from 'zod';
import { type HttpAnswer, jsonAnswer } from './http/index.js';
import type { LocalQueue } from './queue/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { LOCAL_ENQUEUE_PATH } from '../kit/local-stack/info.js';

export { LOCAL_ENQUEUE_PATH };

/**
 * POST /__local/enqueue: queue messages on the in-process queue exactly as the intake does (what
 * SendMessage to the FIFO queue is in AWS), for `npm run reconcile` against the local stack.
 * Loopback only, like the other /__local routes. Body: {"messages": [{body, groupId, deduplicationId}]}.
 */
const EnqueueBody = z.object({
  messages: z
    .array(
      z
        .object({ body: z.string().min(1).max(262_144), groupId: z.string().min(1).max(128), deduplicationId: z.string().min(1).max(128) })
        .strict(),
    )
    .min(1)
    .max(100),
});
export type EnqueueBody = z.infer<typeof EnqueueBody>;

export function enqueueRoute(queue: () => LocalQueue | undefined): Record<string, (request: { body: Buffer }) => Promise<HttpAnswer>> {
  return {
    [`POST ${LOCAL_ENQUEUE_PATH}`]: async ({ body }) => {
      const q = queue();
      if (q === undefined) return jsonAnswer(503, { status: 'starting' });
      const json = parseJsonOrUndefined(body.toString('utf8'));
      if (json === undefined) return jsonAnswer(400, { error: 'the body is not JSON' });
      const parsed = EnqueueBody.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return jsonAnswer(422, { error: `${(issue?.path ?? []).map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid'}` });
      }
      for (const m of parsed.data.messages) await q.send(m);
      return jsonAnswer(200, { enqueued: parsed.data.messages.length });
    },
  };
}
