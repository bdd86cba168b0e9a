import type { SQSRecord } from 'aws-lambda';
import { poisonDeferralSeconds } from '../config/index.js';
import type { QueuedEvent, TillMirrorEvent } from '../events/index.js';
import { METRIC, outcomeMetric, UNEXPECTED_ERROR_OUTCOME } from '../metrics/index.js';
import { eventIds, outcomeFields, type ProcessOutcome, type Processor, recordOutcomeMetrics } from '../points/index.js';
import { asideStateOf, queueMessageFor, tillMirrorMessage } from '../queue/index.js';
import { type Admission, deferralFor, isBudgetRefusal, retryReason, type Verdict } from '../retry/index.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { setAside } from './aside.js';
import { CircuitOpen, Failed, NotYet, RetryLater } from './errors.js';
import { carryOut } from './follow-ups.js';
import type { ConsumerDeps } from './types.js';

/** A failed record's deferral in place: how long, and whether it only waits or fails. */
export interface InPlace {
  seconds: number;
  waiting: boolean;
}

/**
 * One SQS record: processed, then acknowledged (done, or set aside to wait), or failed. Waiting never
 * costs a receive of the customer's group: an event that has to wait (a lease, its purchase, a
 * transient fault, the open breaker) is set aside as a new message in a group of its own, carrying
 * when it may run again (shared/queue/aside.ts), and the original is deleted; the copy's first receive
 * before its time only defers it there. Failing is what spends receives: an invalid event, a
 * configuration error or a crash is deferred in place by the poison backoff, and after the queue's
 * maxReceiveCount (a few attempts, minutes) it reaches the DLQ.
 *
 * `delays` collects the in-place deferral chosen for each failed record (by message id), and whether
 * it only waits (a copy before its time, a wait that could not be set aside) or fails.
 */
export function recordHandler(deps: ConsumerDeps, processor: Processor) {
  const { logger, metrics, settings, breaker } = deps;
  const random = deps.random ?? Math.random;

  return (delays: Map<string, InPlace>) => async (record: SQSRecord) => {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? '1');
    // Not Powertools batch's `parser` option: the processor checks the event schema and records `invalid_event` itself.
    const body = parseJsonOrUndefined(record.body) ?? record.body; // not JSON: the text, refused as invalid_event
    const ids = eventIds(body);
    const where = { messageId: record.messageId, receiveCount, ...ids };
    const now = deps.clock();
    const aside = asideStateOf(record.messageAttributes);
    const waitingSince = aside?.waitingSince ?? Number(record.attributes?.SentTimestamp ?? now);
    const ageMs = Math.max(0, now - waitingSince);
    // A copy set aside again stays in its group; a first copy gets one of its own.
    const group = aside ? record.attributes?.MessageGroupId : undefined;

    const inPlace = (seconds: number, waiting: boolean) => {
      delays.set(record.messageId, { seconds, waiting });
      metrics.addMetric(METRIC.eventsDeferred, 'Count', 1);
      metrics.addMetric(METRIC.deferredEventAgeSeconds, 'Seconds', Math.round(ageMs / 1000));
    };
    /** Failing: deferred in place by the poison backoff, spending a receive towards the DLQ. */
    const fail = (error: Error): never => {
      inPlace(poisonDeferralSeconds(receiveCount), false);
      throw error;
    };
    /**
     * Waiting: a copy in its own group, due after the verdict; in place only when the send fails. The
     * copy carries the steps of its backoff: they go on while it waits for the same thing, and restart
     * when it waits for something else (a server fault after waiting for the breaker or a lease starts
     * at the first step, not at a quarter of an hour) or when it moved forward (progress).
     */
    const stepsFor = (reason: string) => (aside !== undefined && aside.reason === reason ? aside.waits : 0);
    const wait = async (verdict: Verdict, reason: string, onSetAside: () => void, error: Error, waits: number): Promise<void> => {
      if (!verdict.defer) {
        if (verdict.why === 'horizon_passed') logger.error('event waited past the retry horizon', { ...where, reason });
        fail(error);
        return;
      }
      const receipt = `${record.messageId}:${receiveCount}`;
      if (await setAside(deps, { body: record.body, group, receipt, seconds: verdict.seconds, now, waitingSince, reason, waits })) {
        metrics.addMetric(METRIC.eventsDeferred, 'Count', 1);
        onSetAside();
        return;
      }
      inPlace(verdict.seconds, true);
      throw error;
    };

    // A set-aside copy received before its time only waits on, in its own group (no processing).
    if (aside && aside.wakeAt > now) {
      delays.set(record.messageId, { seconds: Math.max(1, Math.ceil((aside.wakeAt - now) / 1000)), waiting: true });
      throw new NotYet(aside.reason);
    }
    const admission = await trial(deps, breaker.admit());
    if (admission === 'reject') {
      // Until the breaker lets a probe through, not a growing backoff: a short fault that opened it must not
      // hold its customers for minutes (a long outage pauses pulling instead: shared/consumer/pull.ts).
      const verdict = deferralFor('circuit_open', { receive: 1, ageMs }, settings, random, breaker.remainingMs() / 1000);
      return wait(verdict, 'circuit_open', () => undefined, new CircuitOpen(), stepsFor('circuit_open') + 1);
    }
    let outcome: ProcessOutcome;
    try {
      // What must follow (refunds to set aside, a link's orders to hand over) comes back as data: sent here.
      const context = { messageId: record.messageId, receiveCount, ...(deps.queue ? { followUpsQueued: true } : {}) };
      const inGroup = inEventGroup(body, record.attributes?.MessageGroupId) ? { inEventGroup: true } : {};
      const processed = await processor.process(body, { ...context, ...inGroup });
      outcome = await carryOut(deps, processor, processed, { receipt: `${record.messageId}:${receiveCount}`, now, context });
    } catch (e) {
      // A bug or an infrastructure failure (DynamoDB): the message goes back, the lease expires.
      logger.error('event failed', { ...where, error: e instanceof Error ? `${e.name}: ${e.message}` : 'unknown' });
      metrics.addMetric(outcomeMetric(UNEXPECTED_ERROR_OUTCOME), 'Count', 1);
      return fail(e instanceof Error ? e : new Failed(String(e)));
    } finally {
      if (admission === 'probe') breaker.probeDone();
    }
    const line = { ...where, ...outcomeFields(outcome) };
    if (outcome.kind === 'invalid_event') logger.error('event processed', line);
    else if (outcome.action === 'retry') logger.warn('event processed', line);
    else logger.info('event processed', line);
    recordOutcomeMetrics(metrics, outcome);
    const reason = retryReason(outcome);
    const step = (madeProgress(outcome) ? 0 : stepsFor(reason)) + 1;
    const verdict = outcome.action === 'retry' ? deferralFor(outcome, { receive: step, ageMs, nowMs: now }, settings, random) : undefined;
    await deps.activity?.received(line, verdict?.defer ? verdict.seconds : undefined);
    if (verdict === undefined) return;
    // Counted as what it is: the budget's pace, not an upstream failure (UpstreamErrors and the breaker skip it).
    if (verdict.defer && isBudgetRefusal(outcome)) metrics.addMetric(METRIC.budgetDeferrals, 'Count', 1);
    return wait(verdict, reason, () => undefined, new RetryLater(outcome), step);
  };
}

/** The breaker's probe made by the health probe when there is one: the service up closes it, the event then passes. */
async function trial(deps: ConsumerDeps, admission: Admission): Promise<Admission> {
  if (admission !== 'probe' || deps.probe === undefined) return admission;
  try {
    await deps.probe();
  } catch {
    // The client recorded the failure with the breaker (an outage keeps it open; any answer closes it).
  } finally {
    deps.breaker.probeDone();
  }
  return deps.breaker.isOpen() ? 'reject' : 'pass';
}

/** A customer event that credited earlier purchases in this pass moved forward: its backoff restarts. */
function madeProgress(outcome: ProcessOutcome): boolean {
  return 'earlier' in outcome && outcome.earlier !== undefined && outcome.earlier.credited > 0;
}

/** Whether the message sits in the FIFO group its event was queued in (not a set-aside copy's own group). */
function inEventGroup(body: unknown, group: string | undefined): boolean {
  if (group === undefined || typeof body !== 'object' || body === null) return false;
  try {
    const queued =
      (body as { type?: unknown }).type === 'till_mirror'
        ? tillMirrorMessage(body as TillMirrorEvent)
        : queueMessageFor(body as QueuedEvent);
    return queued.groupId === group;
  } catch {
    return false; // not an event: the processor refuses it
  }
}
