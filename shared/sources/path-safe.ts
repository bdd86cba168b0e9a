import type * as z from 'zod';
import type { QueuedEvent } from '../events/index.js';
import { type PathParamRule, pathParamProblem } from '../openapi/index.js';

/**
 * The Open API client's own rule for a path parameter (shared/openapi/paths.ts), applied where intake
 * accepts ids: an id intake accepts is one the client will send (no `.`/`..` segment, no slash, no
 * control characters), so a bad id is a 422 naming its field rather than a dead letter later. The one
 * place outside shared/openapi that reads the rule.
 */
export const pathSafe =
  (rule: PathParamRule) =>
  (value: string, ctx: z.RefinementCtx): void => {
    const problem = pathParamProblem(rule, value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  };

/**
 * The canonical event's customer reference checked by the same rule, whatever the source: what intake
 * queues, the client will send. Sources check their own fields first (so the answer names the sender's
 * field); this is the net under every source.
 */
export function unsafeCustomerId(event: QueuedEvent): { path: string; problem: string } | undefined {
  if (!event.customer) return undefined;
  const key = pathParamProblem('externalKey', event.customer.externalKey);
  if (key) return { path: 'event.customer.externalKey', problem: key };
  const id = pathParamProblem('externalId', event.customer.externalId);
  if (id) return { path: 'event.customer.externalId', problem: id };
  return undefined;
}
