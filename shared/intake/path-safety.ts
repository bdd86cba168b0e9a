// paths.ts alone, not ../openapi/index.js: receive-webhook loads this module, and the index would bundle the
// Open API client into that function.
import { pathParamProblem } from '../openapi/paths.js';
import type { QueuedEvent } from '../events/index.js';

/**
 * The canonical event's customer reference checked by the Open API client's path rule, whatever
 * the source: what intake queues, the client will send. Sources check their own fields first (so
 * the answer names the sender's field); this is the net under every source.
 */
export function unsafeCustomerId(event: QueuedEvent): { path: string; problem: string } | undefined {
  if (!event.customer) return undefined;
  const key = pathParamProblem('externalKey', event.customer.externalKey);
  if (key) return { path: 'event.customer.externalKey', problem: key };
  const id = pathParamProblem('externalId', event.customer.externalId);
  if (id) return { path: 'event.customer.externalId', problem: id };
  return undefined;
}
