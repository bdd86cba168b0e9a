import { TillMirrorEvent } from '../../events/index.js';
import { type ProcessOutcome, type Processor, withTypedEvents } from '../../points/index.js';
import { mirrorPointChange, type TillMirrorDeps } from './till-mirror.js';

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

/** The step the message names, sent once; a step not confirmed (still `planned`) is left to the settle. */
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
  if (step.state === 'pending' || step.state === 'sending') {
    await mirrorPointChange(deps, { marker: step.marker, memberId: step.memberId, points: step.points });
  }
  const after = await deps.steps.get(event.source, event.marker);
  return { kind: 'till_mirrored', action: 'ack', state: after?.state ?? step.state };
}
