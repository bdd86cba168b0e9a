import type { OrderRecord } from '../ledger/index.js';
import type { ProcessorDeps } from './deps.js';
import { PointsEvent, RefundEvent } from './events.js';
import type { FollowUp, ProcessOutcome } from './outcome.js';
import { processPurchase } from './purchase.js';
import { processRefund } from './refund.js';
import { queuedWithItsPurchase } from './refund-wait.js';

export interface ProcessContext {
  /** How many times the queue has delivered this message (1 on the first delivery). */
  receiveCount?: number;
  /** The message's FIFO group: a refund queued in its purchase's group does not wait for it (refund-wait.ts). */
  groupId?: string;
}

export interface Processor {
  /** Processes one canonical event, safe to run twice, concurrently, or after a crash at any line. */
  process(event: unknown, context?: ProcessContext): Promise<ProcessOutcome>;
}

export function createProcessor(deps: ProcessorDeps): Processor {
  /** Refunds that waited for this purchase (or were parked): processed now that it is done. */
  async function runFollowUps(order: OrderRecord): Promise<FollowUp[]> {
    const followUps: FollowUp[] = [];
    for (const refundId of order.waitingRefunds) {
      const record = await deps.ledger.getRefund({ source: order.source, orderId: order.orderId, refundId });
      const parsed = record ? RefundEvent.safeParse(safeJson(record.event)) : undefined;
      if (!parsed?.success) {
        // Cannot happen unless the record was damaged by hand; keep the purchase acknowledged.
        deps.logger?.warn('waiting refund has no readable event', { source: order.source, orderId: order.orderId, refundId });
        continue;
      }
      const outcome = await processRefund(deps, parsed.data);
      // Finished earlier, but the attempt died before taking it off the list.
      if (outcome.kind === 'duplicate') await deps.ledger.forgetWaitingRefund({ source: order.source, orderId: order.orderId, refundId });
      followUps.push({
        refundId,
        kind: outcome.kind,
        action: outcome.action,
        ...('points' in outcome ? { points: outcome.points } : {}),
      });
    }
    return followUps;
  }

  return {
    async process(input, context) {
      const parsed = PointsEvent.safeParse(input);
      if (!parsed.success) {
        const reason = parsed.error.issues.map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`).join('; ');
        return { kind: 'invalid_event', action: 'retry', reason };
      }
      const event = parsed.data;
      // Intake ignores these already (with a margin); this catches what was queued or redriven since.
      if (olderThanRetention(event.occurredAt, deps.clock(), deps.settings.ledgerTtlDays)) {
        return { kind: 'skipped', action: 'ack', reason: 'too_old' };
      }
      return event.type === 'purchase' ? processPurchase(deps, event, runFollowUps) : processRefund(deps, event, queuedWithItsPurchase(event, context?.groupId));
    },
  };
}

const DAY_MS = 86_400_000;

/** The ledger may have forgotten an event this old: acting on it could credit or debit twice. */
function olderThanRetention(occurredAt: string, nowMs: number, ledgerTtlDays: number): boolean {
  const at = Date.parse(occurredAt);
  return !Number.isNaN(at) && at < nowMs - ledgerTtlDays * DAY_MS;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
