import type * as z from 'zod';
import type { ProcessOutcome } from '../events/index.js';

/** A queued message off its schema: retried (then dead-lettered) with every field that is wrong named. */
export function invalidEvent(error: z.ZodError): ProcessOutcome {
  const reason = error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; ');
  return { kind: 'invalid_event', action: 'retry', reason };
}
