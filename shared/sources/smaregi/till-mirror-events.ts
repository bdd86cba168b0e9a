import { TillMirrorEvent } from '../../events/index.js';
import { type ProcessOutcome, type Processor, withTypedEvents } from '../../points/index.js';
import { type Mirrored, mirrorPointChange, type TillMirrorDeps } from './till-mirror.js';

/**
 * The worker's side of a web leg's mirror: the App Proxy (no Smaregi access) recorded the step and
 * queued a `till_mirror` message; the worker, which holds the Smaregi app's access, sends the add once
 * (mirrorPointChange: the step's own protocol). Everything else goes to `next`. `deps` undefined: this
 * worker has no Smaregi source under `tillPoints: membership` (answered configuration_error, retried).
 */
export function withTillMirrorEvents(next: Processor, deps: TillMirrorDeps | undefined): Processor {
  return withTypedEvents(next, {
    type: 'till_mirror',
    schema: TillMirrorEvent,
    deps,
    needs: 'a Smaregi source under tillPoints membership with its access (SMAREGI)',
    process: processTillMirrorEvent,
  });
}

/**
 * The step the message names, sent once; a step not confirmed (still `planned`) is left to the settle.
 * Never acked while the step is unfinished: an add in doubt comes back at the end of its horizon
 * (`outcome_unknown` with `until`), a step whose reads or send failed before anything could land with
 * the next backoff (`upstream_error`).
 */
export async function processTillMirrorEvent(deps: TillMirrorDeps, event: TillMirrorEvent): Promise<ProcessOutcome> {
  if (event.source !== deps.source) {
    return {
      kind: 'configuration_error',
      action: 'retry',
      errorKind: 'not_configured',
      reason: `till_mirror of ${event.source}: this worker mirrors ${deps.source}`,
    };
  }
  const step = await deps.steps.get(event.source, event.marker);
  if (!step) return { kind: 'till_mirrored', action: 'ack', state: 'missing' };
  // Queued only once confirmed (`pending`); a `planned` one is the history's to settle (settleTillMirrors).
  if (step.state !== 'pending' && step.state !== 'sending') return { kind: 'till_mirrored', action: 'ack', state: step.state };
  return mirroredOutcome(await mirrorPointChange(deps, { marker: step.marker, memberId: step.memberId, points: step.points }));
}

/** What a message that mirrored waits for: a step left unfinished brings it back, a final one is acked. */
export function mirroredOutcome(left: Mirrored): ProcessOutcome {
  if (left.state === 'sending' && left.until !== undefined) {
    const reason = 'a till point add may still land: settled after its in-doubt horizon';
    // Nothing else waits on it (leaseKept false): the horizon alone decides when it comes back.
    return { kind: 'outcome_unknown', action: 'retry', errorKind: 'till_mirror_in_doubt', reason, leaseKept: false, until: left.until };
  }
  if (left.state === 'pending' || left.state === 'sending' || left.state === 'unknown') {
    return {
      kind: 'upstream_error',
      action: 'retry',
      errorKind: 'till_mirror_unfinished',
      reason: 'the till point mirror could not finish',
    };
  }
  return { kind: 'till_mirrored', action: 'ack', state: left.state };
}
