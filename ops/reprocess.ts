import { linkedEvent } from '../shared/customers/index.js';
import { type EventQueue, queueMessageFor } from '../shared/queue/index.js';

export interface ReprocessInput {
  source: string;
  /** The source's customer id (Shopify: the customer's numeric id). */
  customer: string;
  /** The membership external key of the source; default: the source's name (`shopify`). */
  externalKey: string;
  days: number;
}

/**
 * `npm run reprocess -- --source shopify --customer ID [--days N]`: queues for the worker the crediting,
 * once, of the customer's purchases of the last N days (default 30) that found no member: the message a
 * link queues (shared/customers `linkedEvent`), in the customer's FIFO group. The worker credits them with
 * its own settings and its own clock: this machine's clock judges no lease. Safe to run again: a credited
 * order is never credited twice. Each run is a delivery of its own (SQS FIFO would drop a second run
 * with other --days inside its 5-minute window). Exit code 0 once queued.
 */
export async function reprocessCustomer(
  queue: EventQueue,
  input: ReprocessInput,
  print: (line: string) => void,
  now: () => number = Date.now,
): Promise<number> {
  const nowMs = now();
  // No member is known here: the worker looks each order's customer up as the purchase protocol does.
  const linked = linkedEvent({ ...input, customerId: input.customer, memberId: '', retroCreditDays: input.days, nowMs });
  await queue.send(queueMessageFor({ ...linked, delivery: { id: `${linked.eventId}:reprocess:${nowMs}`, topic: 'ops/reprocess' } }));
  print(
    `customer ${input.source} ${input.customer}: queued for the worker, which credits once each of their purchases of the last ` +
      `${input.days} days that found no member (npm run ledger -- ${input.source} --customer ${input.customer} lists those still waiting)`,
  );
  return 0;
}
