import type { TillMirrors } from '../ledger/index.js';
import type { Logger } from '../logging/index.js';
import { type EventQueue, tillMirrorMessage } from '../queue/index.js';
import { type LegMirror, type PointChange, voidPlanned } from '../sources/smaregi/index.js';

/**
 * The App Proxy's leg mirror. The App Proxy faces the internet and holds no Smaregi access (that app
 * secret reads every transaction), so it only keeps the step: `planned` before the leg's points call,
 * confirmed `pending` once the leg ran, then a `till_mirror` message to the worker, which holds the
 * access and sends the add (shared/sources/smaregi/till-mirror-events.ts). A message lost, or a process
 * that died before it, leaves the step unfinished: the nightly audit (`npm start`: its ticker) settles it.
 */
export interface QueuedLegMirrorDeps {
  /** The Smaregi source whose till holds the points. */
  source: string;
  steps: TillMirrors;
  queue: EventQueue;
  logger?: Pick<Logger, 'warn'> | undefined;
}

export function createQueuedLegMirror(deps: QueuedLegMirrorDeps): LegMirror {
  const base = (change: PointChange) => ({ source: deps.source, marker: change.marker, memberId: change.memberId, points: change.points });
  return {
    planned: async (change) => {
      if (change.points !== 0) await deps.steps.plan(base(change));
    },
    async ran(change) {
      if (change.points === 0) return;
      try {
        let step = await deps.steps.get(deps.source, change.marker);
        if (!step) step = await deps.steps.begin({ ...base(change), state: 'pending' });
        else if (step.state === 'planned' || step.state === 'void') {
          step = await deps.steps.settle(deps.source, change.marker, { state: 'pending', points: change.points }, step.state);
        }
        step ??= await deps.steps.get(deps.source, change.marker);
        // Final already (the same request pressed again after it was mirrored): nothing to send.
        if (step?.state !== 'pending' && step?.state !== 'sending') return;
        const eventId = `${deps.source}:till-mirror:${change.marker}`;
        await deps.queue.send(
          tillMirrorMessage({
            type: 'till_mirror',
            eventId,
            source: deps.source,
            marker: change.marker,
            memberId: change.memberId,
            delivery: { id: eventId, topic: 'app_proxy/till_mirror' },
          }),
        );
      } catch (e) {
        // Never undoes the points change: the step is found unfinished by the settle.
        deps.logger?.warn('till point mirror not queued', {
          source: deps.source,
          marker: change.marker,
          error: e instanceof Error ? e.name : 'unknown',
        });
      }
    },
    notRun: (change) => voidPlanned(deps, change.marker, 'the points call did not run'),
  };
}
