import type { MemberDetail, OpenApiClient, OpenApiError, PointItem, SendWindow } from '../../openapi/index.js';
import { isOpenApiError } from '../../openapi/index.js';
import { type PointsCall, type PointsCallApi, sendPointsCall } from './act.js';
import { type Doubt, doubtAfterSend, type HorizonSettings } from './doubt.js';
import { searchHistory } from './search.js';

/** What the engine needs: the calls, the clock, the horizon. */
export interface EngineDeps {
  readonly api: PointsCallApi & Pick<OpenApiClient, 'listPoints'>;
  readonly clock: () => number;
  readonly horizon: HorizonSettings;
}

/**
 * What is known of operations in doubt after a search. `settled`: the search was complete and the horizon
 * has passed, so a marker not found never ran and never will: its operation may be sent again.
 * Otherwise only what was found is known (a found entry always proves its call ran).
 */
export type DoubtCheck =
  | { settled: true; found: Map<string, PointItem> }
  | { settled: false; found: Map<string, PointItem>; until: number; why: 'in_doubt' | 'search_incomplete' };

/** How long to wait on a search that could not complete before trying again. */
const INCOMPLETE_RETRY_MS = 60_000;

/**
 * Searches the history of the member the doubt's requests went to (or `memberId` when nobody recorded
 * one) for the markers. Throws the client's error when a page cannot be read (in doubt, never absent),
 * unless the service no longer knows that member.
 */
export async function checkDoubt(deps: EngineDeps, doubt: Doubt, markers: readonly string[], memberId: string): Promise<DoubtCheck> {
  const search = await searchHistory(deps.api, doubt.memberId ?? memberId, markers, { since: doubt.since }).catch((e: unknown) => {
    // The member the requests went to is gone (withdrawn, erased): the service applies nothing to them
    // any more, and what landed went with them. Settled: the caller goes on as after a refusal.
    if (isOpenApiError(e) && e.kind === 'member_not_found') return 'member_gone' as const;
    throw e;
  });
  if (search === 'member_gone') return { settled: true, found: new Map() };
  const now = deps.clock();
  if (!search.complete) return { settled: false, found: search.found, until: now + INCOMPLETE_RETRY_MS, why: 'search_incomplete' };
  if (now < doubt.until) return { settled: false, found: search.found, until: doubt.until, why: 'in_doubt' };
  return { settled: true, found: search.found };
}

/** One operation: a marker and the call that carries it, within its lease's send window. */
export interface Operation {
  readonly marker: string;
  readonly call: PointsCall;
  readonly window: SendWindow;
}

/**
 * How an operation ended. `ran`: by its answer, or found in the history (`entry`, then `reconciled`).
 * `refused`: the answer proved it did not run (the caller reads the error's kind). `in_doubt`: it may
 * still land; the caller records `doubt` and waits until `doubt.until` (or retries a search).
 */
export type OperationResult =
  | { kind: 'ran'; memberId: string; member?: MemberDetail; entry?: PointItem; reconciled: boolean }
  | { kind: 'refused'; error: OpenApiError }
  | { kind: 'in_doubt'; doubt: Doubt; why: 'in_doubt' | 'search_incomplete' | 'unknown_outcome'; error?: OpenApiError };

/**
 * Sends the call; an ending that proves nothing is looked for in the history at once (found: it ran,
 * finished now) and otherwise left in doubt from this send on.
 */
export async function act(deps: EngineDeps, op: Operation, before: Doubt | undefined): Promise<OperationResult> {
  const sent = await sendPointsCall(deps.api, op.call, op.marker, op.window, deps.clock);
  if (sent.ended === 'ran') return { kind: 'ran', memberId: op.call.memberId, member: sent.member, reconciled: false };
  if (sent.ended === 'not_run') return { kind: 'refused', error: sent.error };
  const doubt = doubtAfterSend(sent.sentAt, op.call.memberId, deps.clock(), before, deps.horizon);
  const landed = await searchHistory(deps.api, op.call.memberId, [op.marker], { since: sent.sentAt }).catch((e: unknown) => {
    if (isOpenApiError(e)) return undefined;
    throw e;
  });
  const entry = landed?.found.get(op.marker);
  if (entry) return { kind: 'ran', memberId: op.call.memberId, entry, reconciled: true };
  return { kind: 'in_doubt', doubt, why: 'unknown_outcome', error: sent.error };
}

/**
 * The protocol's middle for one operation on a claimed record: after an earlier attempt's doubt, the
 * history first (found: done, no call; in doubt: wait); then the call. Search failures throw the
 * client's error (the caller retries with the doubt kept).
 */
export async function runOperation(deps: EngineDeps, op: Operation, doubt: Doubt | undefined): Promise<OperationResult> {
  if (doubt) {
    const check = await checkDoubt(deps, doubt, [op.marker], op.call.memberId);
    const entry = check.found.get(op.marker);
    if (entry) return { kind: 'ran', memberId: doubt.memberId ?? op.call.memberId, entry, reconciled: true };
    if (!check.settled) return { kind: 'in_doubt', doubt, why: check.why };
  }
  return act(deps, op, doubt);
}
