import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { METRIC } from '../metrics/index.js';
import type { Processor } from '../points/index.js';
import type { VisibilityChange } from '../queue/index.js';
import { processGroups } from './fifo-groups.js';
import { type InPlace, recordHandler } from './record.js';
import type { ConsumerDeps } from './types.js';

export type BatchHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>;

/**
 * SQS FIFO batch -> its groups side by side, each one record at a time (fifo-groups.ts), with partial
 * batch responses: a batch of the tills of ten stores uses the upstream budget ten calls at a time, not
 * one. A failed record fails the later records of its group in the batch too (FIFO order), while other
 * groups go on; the failed ones get the in-place deferral their record chose (ChangeMessageVisibility),
 * the group's followers the same.
 */
export function batchHandler(deps: ConsumerDeps, processor: Processor): BatchHandler {
  const handle = recordHandler(deps, processor);
  return async (event, context) => {
    if (context) deps.budget.start(() => context.getRemainingTimeInMillis());
    const delays = new Map<string, InPlace>();
    try {
      // Side by side with the work, and settled before any deferral, which must be the last word.
      const tail = boundCrashTail(deps, event, context);
      const response = await processGroups(event.Records, handle(delays));
      await tail;
      await deferMessages(deps, event, response, delays);
      return response;
    } finally {
      await deps.outagePause?.flush();
      deps.budget.end();
      deps.metrics.addMetric(METRIC.circuitBreakerOpen, 'Seconds', Math.round(deps.breaker.openForMs() / 1000));
      deps.metrics.publishStoredMetrics();
    }
  };
}

/**
 * A crashed invocation (the runtime dies, the function times out) answers nothing, and its batch would
 * come back only after the queue's visibility timeout: six times the function's timeout (180 s), as AWS
 * asks, so that the event source can retry an invocation that was throttled before it ran. Once this
 * invocation runs, that wait need only outlive it and the lease of any claim made in it (a redelivery
 * must not meet a live lease): the batch is set to come back its time left plus one lease from now
 * (about 60 s; SQS counts a new visibility timeout from the call). A message that ends normally is
 * deleted or deferred as before. One ChangeMessageVisibilityBatch per 10 messages; if it fails, the
 * queue's timeout stands (later, never lost).
 */
async function boundCrashTail(deps: ConsumerDeps, event: SQSEvent, context: Context | undefined): Promise<void> {
  if (context === undefined || deps.visibility === undefined || event.Records.length === 0) return;
  const seconds = Math.ceil(context.getRemainingTimeInMillis() / 1000) + deps.settings.leaseSeconds;
  const changes = event.Records.map((r) => ({ receiptHandle: r.receiptHandle, eventSourceARN: r.eventSourceARN, seconds }));
  try {
    await deps.visibility.changeVisibility(changes);
  } catch (e) {
    deps.logger.warn('crash tail not bounded', {
      messages: changes.length,
      error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown',
    });
  }
}

/**
 * Failed messages get their chosen deferral; the later messages of their group (failed unprocessed, to
 * keep FIFO order) wait as long, so the group comes back together.
 */
async function deferMessages(deps: ConsumerDeps, event: SQSEvent, response: SQSBatchResponse, delays: Map<string, InPlace>) {
  const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
  const groupDelay = new Map<string, InPlace>();
  const changes: VisibilityChange[] = [];
  for (const record of event.Records) {
    if (!failed.has(record.messageId)) continue;
    const group = record.attributes?.MessageGroupId ?? '';
    const head = groupDelay.get(group);
    const delay = delays.get(record.messageId) ?? head;
    if (delay === undefined) continue;
    if (head === undefined) groupDelay.set(group, delay);
    const { seconds, waiting } = delay;
    changes.push({ receiptHandle: record.receiptHandle, eventSourceARN: record.eventSourceARN, seconds, waiting });
  }
  if (changes.length === 0 || deps.visibility === undefined) return;
  try {
    await deps.visibility.changeVisibility(changes);
  } catch (e) {
    // The messages come back after the queue's visibility timeout instead: later, never lost.
    deps.logger.warn('deferral failed', { messages: changes.length, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
  }
}
