import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEASE_MARGIN_SECONDS, type ProcessingSettings } from '../config/index.js';
import {
  createReversalLedger,
  leaseSendWindow,
  type NewReversal,
  type ReversalEnd,
  type ReversalLedger,
  reversalKey,
} from '../ledger/index.js';
import { isOpenApiError, type OpenApiClient, type OpenApiError, type PointItem } from '../openapi/index.js';
import { type Doubt, doubtOf, type EngineDeps, type Operation, type OperationResult, act, runOperation } from '../points/index.js';

/** Where a reversal may be made to die in tests (a crash between its call and its record). */
export type ReversalStep = 'reversal:claimed' | 'reversal:granted';

/** What the audit needs to reverse an extra entry: the reversal records, the engine, the policy. */
export interface ReversalDeps {
  readonly reversals: ReversalLedger;
  readonly engine: EngineDeps;
  /** The clamp reads the member's balance. */
  readonly openapi: Pick<OpenApiClient, 'getMember'>;
  /** The stage's insufficient-points policy: `clamp` takes what is held, `park` takes nothing; both record the shortfall. */
  readonly policy: 'clamp' | 'park';
  /** This run's lease owner. */
  readonly owner: string;
  readonly checkpoint?: (step: ReversalStep) => void | Promise<void>;
}

/** One extra history entry of a marker found more than once, and what its marker is of. */
export interface ExtraEntry {
  readonly source: string;
  readonly memberId: string;
  readonly duplicatedMarker: string;
  readonly entry: PointItem;
  readonly orderId?: string | undefined;
  readonly refundId?: string | undefined;
}

/**
 * How one reversal attempt ended. `reversed`: done now (answered or found in the history), with what it
 * moved and could not; `done_before`: another run finished it meanwhile; `busy`: another run holds it;
 * `in_doubt`: its call may still land, not sent again before `until`; `failed`: the service refused it
 * (or could not be read), nothing sent that could land.
 */
export type ReversalResult =
  | ({ kind: 'reversed'; marker: string } & ReversalEnd)
  | { kind: 'done_before'; marker: string }
  | { kind: 'busy'; marker: string }
  | { kind: 'in_doubt'; marker: string; until: number; reason: string }
  | { kind: 'failed'; marker: string; reason: string };

/** The title the member sees on the correcting entry. */
const TITLE = 'ポイント訂正（重複の取消） / Points corrected (duplicate reversed)';

/**
 * Reverses one extra entry exactly once, through the protocol engine: claim the reversal's record (made
 * on first sight), search the history when an earlier attempt left its call in doubt (found: done, no
 * call), act (a grant of minus the entry's points), record. Too few points: the policy decides.
 *
 * Never mirrored to a till's record (`tillPoints: membership`): a mirror step is keyed by the marker, so
 * the till got the duplicated change once while the membership service got it twice; the reversal brings
 * the membership back to the till, and mirroring it would take the change off the till a second time.
 */
export function reverseExtra(deps: ReversalDeps, extra: ExtraEntry, marker: string): Promise<ReversalResult> {
  const input: NewReversal = {
    source: extra.source,
    memberId: extra.memberId,
    entryId: extra.entry.id,
    entryPoint: extra.entry.point,
    duplicatedMarker: extra.duplicatedMarker,
    marker,
    ...(extra.orderId !== undefined ? { orderId: extra.orderId } : {}),
    ...(extra.refundId !== undefined ? { refundId: extra.refundId } : {}),
  };
  return takeBack(deps, input, TITLE);
}

/**
 * Takes `input.entryPoint` back from the member exactly once under its own record and marker (claim,
 * search when in doubt, act, record; too few points: the policy): an extra entry's reversal, or a
 * shortfall's settlement (shortfalls.ts), which is the same correction with another reason.
 */
export async function takeBack(deps: ReversalDeps, input: NewReversal, title: string): Promise<ReversalResult> {
  const { engine, reversals, owner } = deps;
  const { marker } = input;
  const pk = reversalKey(input.source, input.memberId, input.entryId);
  const claimedAt = engine.clock();
  const claim = await reversals.claim(input, owner);
  if (!claim.ok) return { kind: claim.current?.state === 'done' ? 'done_before' : 'busy', marker };
  await deps.checkpoint?.('reversal:claimed');
  const doubt = doubtOf(claim.previous, engine.horizon);
  const window = leaseSendWindow(engine.clock, reversals.leaseMs, claimedAt);
  // A record made before keeps its size: a settlement's share may be worked out otherwise on a later run.
  const size = claim.previous?.entryPoint ?? input.entryPoint;
  const wanted = Math.abs(size);
  const op = (point: number): Operation => ({
    marker,
    call: { kind: 'grant', memberId: input.memberId, input: { point, title } },
    window,
  });

  // Only taking points back can find too few of them.
  const first = await attempt(deps, pk, marker, doubt, size > 0, () => runOperation(engine, op(-size), doubt));
  if (first.kind !== 'ran') {
    if (first.kind !== 'refused') return first.result;
    // Too few points to take the extra credit back: the policy decides, the shortfall is recorded.
    if (deps.policy === 'park') return finish(deps, pk, marker, { moved: 0, wanted, reconciled: false });
    let held: number;
    try {
      held = Math.max(0, (await deps.openapi.getMember(input.memberId)).point);
    } catch (e) {
      if (!isOpenApiError(e)) throw e;
      await reversals.release(pk, owner, e.message);
      return { kind: 'failed', marker, reason: e.message };
    }
    const take = Math.min(held, wanted);
    if (take === 0) return finish(deps, pk, marker, { moved: 0, wanted, reconciled: false });
    // Refused again (the balance moved between the read and the call): nothing ran, the next audit tries again.
    const clamped = await attempt(deps, pk, marker, undefined, false, () => act(engine, op(-take), undefined));
    if (clamped.kind !== 'ran') return clamped.kind === 'released' ? clamped.result : failedOn(clamped.error, marker);
    await deps.checkpoint?.('reversal:granted');
    return finish(deps, pk, marker, {
      moved: clamped.entry ? Math.abs(clamped.entry.point) : take,
      wanted,
      reconciled: clamped.reconciled,
    });
  }
  await deps.checkpoint?.('reversal:granted');
  return finish(deps, pk, marker, { moved: first.entry ? Math.abs(first.entry.point) : wanted, wanted, reconciled: first.reconciled });
}

/** The engine's step as the reversal sees it: ran, refused for too few points (the policy's turn), or let go. */
type Attempted =
  | Extract<OperationResult, { kind: 'ran' }>
  | { kind: 'refused'; error: OpenApiError }
  | { kind: 'released'; result: ReversalResult };

const failedOn = (error: OpenApiError, marker: string): ReversalResult => ({
  kind: 'failed',
  marker,
  reason: `${error.kind}: ${error.message}`,
});

/**
 * Runs the engine's step; what it leaves in doubt is written to the record with the lease let go (a
 * history that could not be read keeps the doubt as it was), and any other refusal than too few points
 * (when `mayBeShort`) lets go with its reason.
 */
async function attempt(
  deps: ReversalDeps,
  pk: string,
  marker: string,
  doubt: Doubt | undefined,
  mayBeShort: boolean,
  step: () => Promise<OperationResult>,
): Promise<Attempted> {
  let result: OperationResult;
  try {
    result = await step();
  } catch (e) {
    if (!isOpenApiError(e)) throw e;
    await deps.reversals.release(pk, deps.owner, `history unreadable: ${e.message}`, doubt);
    return { kind: 'released', result: { kind: 'failed', marker, reason: `the history could not be read (${e.kind})` } };
  }
  if (result.kind === 'in_doubt') {
    const reason = result.error?.message ?? `the reversal may still land (${result.why})`;
    await deps.reversals.release(pk, deps.owner, reason, result.doubt);
    return { kind: 'released', result: { kind: 'in_doubt', marker, until: result.doubt.until, reason } };
  }
  if (result.kind === 'refused' && !(mayBeShort && result.error.kind === 'insufficient_points')) {
    await deps.reversals.release(pk, deps.owner, result.error.message);
    return { kind: 'released', result: failedOn(result.error, marker) };
  }
  return result;
}

async function finish(
  deps: ReversalDeps,
  pk: string,
  marker: string,
  { moved, wanted, reconciled }: { moved: number; wanted: number; reconciled: boolean },
): Promise<ReversalResult> {
  const shortfall = Math.max(0, wanted - moved);
  const end: ReversalEnd = {
    outcome: shortfall > 0 ? 'insufficient_points' : 'reversed',
    pointsReversed: moved,
    shortfall,
    reconciled,
    ...(shortfall > 0 ? { reason: `the member held too few points: ${moved} of ${wanted} taken (policy ${deps.policy})` } : {}),
  };
  // A lost lease: another run took the record over and finishes it from the history (its call is found).
  if (!(await deps.reversals.finish(pk, deps.owner, end))) return { kind: 'busy', marker };
  return { kind: 'reversed', marker, ...end };
}

export interface ReversalSetup {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => number;
  /** The calls the reversal sends and reads (the engine's, and the balance for the clamp). */
  openapi: EngineDeps['api'] & Pick<OpenApiClient, 'getMember'>;
  /** The stage's processing settings: the lease, the in-doubt horizon, the policy, the retention. */
  processing: Pick<ProcessingSettings, 'leaseSeconds' | 'inDoubtSeconds' | 'insufficientPointsPolicy' | 'ledgerTtlDays'>;
  owner?: string;
  checkpoint?: ReversalDeps['checkpoint'];
}

/** The reversal's dependencies from the ledger table and the stage's settings (the audit function, `npm run audit`). */
export function reversalDepsOf(s: ReversalSetup): ReversalDeps {
  const reversals = createReversalLedger({
    client: s.client,
    tableName: s.tableName,
    clock: s.clock,
    ttlDays: s.processing.ledgerTtlDays,
    leaseSeconds: s.processing.leaseSeconds,
  });
  return {
    reversals,
    engine: {
      api: s.openapi,
      clock: s.clock,
      horizon: { inDoubtMs: s.processing.inDoubtSeconds * 1000, marginMs: LEASE_MARGIN_SECONDS * 1000, leaseMs: reversals.leaseMs },
    },
    openapi: s.openapi,
    policy: s.processing.insufficientPointsPolicy,
    owner: s.owner ?? `audit-${randomUUID()}`,
    ...(s.checkpoint ? { checkpoint: s.checkpoint } : {}),
  };
}
