import { LEASE_SEND_WINDOW_SECONDS } from '../../config/index.js';
import type { TillMirrorRecord } from '../../ledger/index.js';
import { SmaregiError } from './errors.js';
import { mirrorPointChange, type PointChange, settlePlanned, type TillMirrorDeps, voidPlanned } from './till-mirror.js';

/**
 * A web leg's side of the mirror (shared/redemption/protocol.ts): `planned` before its points call (the
 * step exists whatever happens next; a failure here stops the leg before its call), then `ran` (the
 * call ran: mirrored now, or by whoever finishes the step) or `notRun` (its answer proved it did not).
 */
export interface LegMirror {
  planned(change: PointChange): Promise<void>;
  ran(change: PointChange): Promise<void>;
  notRun(change: PointChange): Promise<void>;
  /**
   * Finishes the web legs' steps left open (`planned`, `void`, `pending`: a process died between a points
   * call and its mirror, a message lost), each once: the redemption sweep's every run. Only where the
   * function holds Smaregi access (not the App Proxy's queued mirror).
   */
  finishOpen?(): Promise<OpenLegsFinished>;
}

/** The leg mirror of a function that holds Smaregi access (the sweep, the worker): the add is sent at once. */
export function createLegMirror(deps: TillMirrorDeps): LegMirror {
  return {
    planned: async (change) => {
      if (change.points !== 0)
        await deps.steps.plan({ source: deps.source, marker: change.marker, memberId: change.memberId, points: change.points });
    },
    ran: async (change) => {
      await mirrorPointChange(deps, change);
    },
    notRun: (change) => voidPlanned(deps, change.marker, 'the points call did not run'),
    finishOpen: () => finishOpenLegs(deps),
  };
}

/** What a run found open (`open`) and how many of those it left finished or no longer open (`finished`). */
export interface OpenLegsFinished {
  open: number;
  finished: number;
}

/**
 * The web legs' steps still open once their leg's own process is done with them (planned a send window
 * ago): a `planned` or `void` one is settled by the member's point history (its marker found: mirrored
 * now; not found once no call can land: `void`, out of the list), a `pending` one is sent. A step sent
 * meanwhile (its own settle goes on from `sending`) or final leaves the list. Never sends twice: the step's
 * own protocol (mirrorPointChange) holds however many callers meet it.
 */
export async function finishOpenLegs(deps: TillMirrorDeps): Promise<OpenLegsFinished> {
  const result: OpenLegsFinished = { open: 0, finished: 0 };
  const until = new Date(deps.steps.now() - LEASE_SEND_WINDOW_SECONDS * 1000).toISOString();
  for (const step of await deps.steps.listOpenLegs(deps.source, until)) {
    result.open += 1;
    try {
      if (await finishOne(deps, step)) result.finished += 1;
    } catch (e) {
      // Left listed: the next run goes on with it.
      deps.logger?.warn('till point mirror failed', { source: deps.source, marker: step.marker, errorKind: kindOf(e) });
    }
  }
  return result;
}

/** True when the step is no longer open (taken out of the list). */
async function finishOne(deps: TillMirrorDeps, step: TillMirrorRecord): Promise<boolean> {
  const change = { marker: step.marker, memberId: step.memberId, points: step.points };
  let end: 'mirrored' | 'never' | 'waiting' = 'never';
  if (step.state === 'pending') {
    await mirrorPointChange(deps, change);
    end = 'mirrored';
  } else if (step.state === 'planned' || step.state === 'void') end = await settlePlanned(deps, step);
  const after = await deps.steps.get(deps.source, step.marker);
  const open = after?.state === 'planned' || after?.state === 'pending' || (after?.state === 'void' && end === 'waiting');
  if (open) return false;
  await deps.steps.unlist(step);
  return true;
}

const kindOf = (e: unknown) => (e instanceof SmaregiError ? e.kind : e instanceof Error ? e.name : 'unknown');
