import { DEFAULT_IN_DOUBT_SECONDS, LEASE_SEND_WINDOW_SECONDS } from '../../config/index.js';
import { isUnfinishedTillMirror, type TillMirrorRecord, type TillMirrorState, type TillMirrors } from '../../ledger/index.js';
import type { OpenApiClient } from '../../openapi/index.js';
import { searchHistory } from '../../points/index.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';
import { listedSince } from './till-listed.js';
import { explainPoint, windowChanges } from './till-window.js';

/**
 * Under `tillPoints: membership` the till lets a member spend what Smaregi's customer record holds, so a
 * points change made elsewhere (a web redemption's deduction, give-back or claw-back, a till transaction's change) is
 * added to that record too: relatively (会員ポイント相対値更新, `POST .../customers/{id}/point/add`), never
 * by overwriting it, so what the till did meanwhile (a spend, a staff change) stays. The add has no
 * idempotency key, so it is a ledger step of its own (shared/ledger/till-mirrors.ts) keyed by the marker
 * of the points call it mirrors: the customer's point is read before it is sent, and a step found
 * unfinished is settled, once the in-doubt horizon since it was sent has passed, by reading it again.
 *
 * An add left in doubt (a 5xx, no answer) is answered to the caller with the horizon's end (`until`):
 * the worker sets its message aside until then (an `outcome_unknown`), so the step is settled minutes
 * later, not at the next delivery or the night. The settle counts the changes of the same record we know
 * of around its read (till-window.ts: the member's other steps and the till spends a transaction told
 * us of): `before + points` plus them, it ran; `before` plus them, send again; a change we cannot
 * explain (or numbers that fit both), `conflict`, logged, never written over.
 *
 * Why counting rather than ordering the adds per customer (a step waiting while an earlier one of the
 * same customer is `sending`): ordering needs a per-customer lock with a take-over of its own, holds
 * every later change of the member for a horizon after each lost answer, and still explains nothing of
 * the till's own spends, which are the common change in between; the count covers both, and where the
 * timing leaves a change uncertain it is tried both ways, so an ambiguous point ends `conflict`, never
 * a guess.
 *
 * A failure never undoes the points change it mirrors: it is logged (`till point mirror ...`, ids and
 * kinds only) and recorded, and the caller is told what the step was left as (`Mirrored`).
 */

/** A points change of the membership service, to be mirrored: its call's marker, the member, the points (+/-). */
export interface PointChange {
  marker: string;
  memberId: string;
  points: number;
  /** The member's Smaregi customer id when the caller knows it (a till transaction names it): no lookup then. */
  tillCustomerId?: string | undefined;
}

/**
 * What a call left the step as (`unknown`: it could not be read). `until`: a step left `sending` (its add
 * in doubt) is settled from then on (epoch ms, the steps' clock): the caller's message comes back then.
 */
export interface Mirrored {
  state: TillMirrorState | 'missing' | 'unknown';
  until?: number;
}

export interface TillMirrorDeps {
  /** The Smaregi source whose tills hold the points (its ledger steps are under its name). */
  source: string;
  /** How its members carry their till customer: the external key holding the code (or its `unique_id`), and which Smaregi field the code is. */
  externalKey: string;
  memberLookup?: 'external_id' | 'unique_id' | undefined;
  customerField?: 'customerCode' | 'customerId' | undefined;
  /** getMember: the member's till customer; listPoints: whether a `planned` step's points call ran (its marker). */
  openapi: Pick<OpenApiClient, 'getMember' | 'listPoints'>;
  /**
   * The in-doubt horizon (IN_DOUBT_SECONDS; default DEFAULT_IN_DOUBT_SECONDS): a `planned` step whose call
   * is not found after it is `void`; a `sending` step younger than it is left to whoever sent its add.
   * Read by the steps' own clock (`steps.now`), the one their records are stamped by.
   */
  inDoubtSeconds?: number | undefined;
  smaregi: Pick<SmaregiClient, 'addCustomerPoint' | 'getCustomerPoint' | 'findCustomerByCode' | 'readCustomer' | 'listTransactions'>;
  steps: TillMirrors;
  /** Refusals and conflicts are logged as errors where the logger has them (the worker's says warn only). */
  logger?:
    | { warn(message: string, extra?: Record<string, unknown>): void; error?(message: string, extra?: Record<string, unknown>): void }
    | undefined;
}

/** A refusal or a conflict: someone must look (an error where the logger has one). */
function loud(deps: TillMirrorDeps, message: string, extra: Record<string, unknown>): void {
  if (deps.logger?.error) deps.logger.error(message, extra);
  else deps.logger?.warn(message, extra);
}

/** A `planned` step whose call proved it did not run: `void` (a later send of the same leg plans it again). */
export async function voidPlanned(
  deps: Pick<TillMirrorDeps, 'source' | 'steps' | 'logger'>,
  marker: string,
  reason: string,
): Promise<void> {
  try {
    await deps.steps.settle(deps.source, marker, { state: 'void', reason }, 'planned');
  } catch (e) {
    // Left `planned`: the settle finds the marker absent from the history and voids it then.
    deps.logger?.warn('till point mirror failed', { source: deps.source, marker, errorKind: kindOf(e) });
  }
}

/**
 * Mirrors `change` to the member's Smaregi customer exactly once (none: recorded `skipped`); its points
 * call ran. Answers what the step was left as (a step left `sending` with its horizon's end).
 */
export async function mirrorPointChange(deps: TillMirrorDeps, change: PointChange): Promise<Mirrored> {
  if (change.points === 0) return { state: 'skipped' };
  await mirrorOnce(deps, change);
  return leftOf(deps, change.marker);
}

/** The step as the call left it; a `sending` one with the end of its horizon. */
async function leftOf(deps: TillMirrorDeps, marker: string): Promise<Mirrored> {
  try {
    const step = await deps.steps.get(deps.source, marker);
    if (!step) return { state: 'missing' };
    if (step.state !== 'sending') return { state: step.state };
    return { state: step.state, until: Date.parse(step.updatedAt ?? step.createdAt) + horizonMs(deps) };
  } catch (e) {
    deps.logger?.warn('till point mirror failed', { source: deps.source, marker, errorKind: kindOf(e) });
    return { state: 'unknown' };
  }
}

const horizonMs = (deps: Pick<TillMirrorDeps, 'inDoubtSeconds'>) => (deps.inDoubtSeconds ?? DEFAULT_IN_DOUBT_SECONDS) * 1000;

async function mirrorOnce(deps: TillMirrorDeps, change: PointChange): Promise<void> {
  try {
    let step = await deps.steps.get(deps.source, change.marker);
    // Begun before anything is read, so a step whose reads fail is found unfinished (settleTillMirrors).
    if (!step) step = await deps.steps.begin({ ...base(deps, change), state: 'pending' });
    // Planned by its leg before the call, which the caller knows ran: confirmed with the points that ran.
    else if (step.state === 'planned' || step.state === 'void') {
      step = await deps.steps.settle(deps.source, change.marker, { state: 'pending', points: change.points }, step.state);
    }
    if (!step) return; // begun (or confirmed) by a concurrent call: it goes on
    if (step.state === 'pending') await prepareAndSend(deps, step, change.tillCustomerId);
    else if (step.state === 'sending') await settleUnfinished(deps, step);
  } catch (e) {
    deps.logger?.warn('till point mirror failed', { source: deps.source, marker: change.marker, errorKind: kindOf(e) });
  }
}

/**
 * Finishes every step left unfinished (`pending`: nothing sent; `sending`: settled by reading the
 * customer's point), e.g. after the reads before an add failed: what a schedule or the chaos final check
 * runs. Answers how many it went through.
 */
export async function settleTillMirrors(deps: TillMirrorDeps, listed?: readonly TillMirrorRecord[]): Promise<number> {
  const unfinished = (listed ?? (await deps.steps.listUnfinished())).filter((s) => s.source === deps.source && isUnfinishedTillMirror(s));
  for (const step of unfinished) {
    if (step.state === 'planned') await settlePlanned(deps, step);
    else await mirrorPointChange(deps, { marker: step.marker, memberId: step.memberId, points: step.points });
  }
  return unfinished.length;
}

/**
 * A step planned before its points call and never confirmed (the leg's process died, or its answer
 * proved nothing), or `void`: the member's point history says whether the call ran (its marker found:
 * mirrored now, once). Not found by a complete search once the call can no longer land (its send window
 * and the in-doubt horizon after the step was last planned): `never` (a planned one ends `void`).
 * Otherwise `waiting`, for the next settle.
 */
export async function settlePlanned(deps: TillMirrorDeps, step: TillMirrorRecord): Promise<'mirrored' | 'never' | 'waiting'> {
  try {
    const search = await searchHistory(deps.openapi, step.memberId, [step.marker], { since: Date.parse(step.createdAt) });
    if (search.found.has(step.marker)) {
      await mirrorPointChange(deps, { marker: step.marker, memberId: step.memberId, points: step.points });
      return 'mirrored';
    }
    // From its last planning: a step planned again long after it was made has a call of its own on the way.
    const landsUntil = Date.parse(step.updatedAt ?? step.createdAt) + LEASE_SEND_WINDOW_SECONDS * 1000 + horizonMs(deps);
    // The steps' clock, as the `sending` retake reads its horizon by: one clock for both.
    if (!search.complete || deps.steps.now() <= landsUntil) return 'waiting';
    if (step.state === 'planned') await voidPlanned(deps, step.marker, 'the points call never ran');
    return 'never';
  } catch (e) {
    deps.logger?.warn('till point mirror failed', { source: deps.source, marker: step.marker, errorKind: kindOf(e) });
    return 'waiting';
  }
}

/** A `pending` step: its customer found and its point read (`before`), then the add sent once. */
async function prepareAndSend(deps: TillMirrorDeps, step: TillMirrorRecord, known: string | undefined): Promise<void> {
  const customerId = known ?? (await tillCustomerOf(deps, step.memberId));
  if (customerId === undefined) {
    await deps.steps.settle(step.source, step.marker, { state: 'skipped', reason: 'the member has no Smaregi customer' }, 'pending');
    return;
  }
  const readAt = deps.steps.now();
  const before = await deps.smaregi.getCustomerPoint(customerId);
  const sending = await deps.steps.send(step, { smaregiCustomerId: customerId, before, readAt }, 'pending');
  if (sending) await send(deps, sending);
}

const base = (deps: Pick<TillMirrorDeps, 'source'>, change: PointChange) => ({
  source: deps.source,
  marker: change.marker,
  memberId: change.memberId,
  points: change.points,
});

const kindOf = (e: unknown) => (e instanceof SmaregiError ? e.kind : e instanceof Error ? e.name : 'unknown');

/** The member's Smaregi customer id, from the code the membership service keeps for the till (none: undefined). */
async function tillCustomerOf(deps: TillMirrorDeps, memberId: string): Promise<string | undefined> {
  const member = await deps.openapi.getMember(memberId);
  const code = deps.memberLookup === 'unique_id' ? member.unique_id : member.external_ids?.[deps.externalKey];
  if (!code) return undefined;
  if (deps.customerField === 'customerId') return /^[0-9]{1,20}$/.test(code) ? code : undefined;
  return deps.smaregi.findCustomerByCode(code);
}

/** Sends the add of a `sending` step once, and records what its answer proves. */
async function send(deps: TillMirrorDeps, step: TillMirrorRecord): Promise<void> {
  const customerId = step.smaregiCustomerId as string;
  try {
    const after = await deps.smaregi.addCustomerPoint(customerId, step.points);
    await deps.steps.settle(step.source, step.marker, { state: 'done', after });
  } catch (e) {
    // 401/403 refuse our credentials and 429 our rate, not the change: proven not run (the engine's rule
    // for the membership service's 429 too), so the step goes back to `pending`: the next call reads the
    // point afresh and sends, with no horizon to wait out.
    const notRun = e instanceof SmaregiError && (e.kind === 'unauthorized' || e.status === 429);
    if (notRun) {
      await deps.steps.settle(step.source, step.marker, { state: 'pending' });
      throw e;
    }
    if (e instanceof SmaregiError && e.status !== undefined && e.status >= 400 && e.status < 500) {
      // Proven not done (Smaregi refused it: e.g. the till spent those points meanwhile, or they expired).
      const reason = `Smaregi refused the point change (${e.status})`;
      await deps.steps.settle(step.source, step.marker, { state: 'refused', reason });
      loud(deps, 'till point mirror refused', {
        source: step.source,
        marker: step.marker,
        smaregiCustomerId: customerId,
        status: e.status,
      });
      return;
    }
    throw e; // in doubt (5xx, no answer): stays `sending`, settled by reading the customer's point after the horizon
  }
}

/**
 * A step found `sending`: once no add of it can still land (the in-doubt horizon since it was sent) and
 * this caller has taken it over, the customer's point says whether its add ran, counting the changes of
 * the same record we know of around its read (till-window.ts). Before that, reading the point would see
 * an add still on its way (a duplicate delivery beside the live attempt) as not run. The member's
 * records are read before the point and after it: a step done only in between counts as a maybe.
 */
async function settleUnfinished(deps: TillMirrorDeps, found: TillMirrorRecord): Promise<void> {
  const step = await deps.steps.retake(found, horizonMs(deps));
  if (!step) return;
  const customerId = step.smaregiCustomerId as string;
  // Whatever may have landed since the read: sent within a send window and a horizon before it.
  const since = Date.parse(step.readAt ?? step.createdAt) - LEASE_SEND_WINDOW_SECONDS * 1000 - horizonMs(deps);
  const first = await deps.steps.around(step, since);
  const readAt = deps.steps.now();
  const { point: now, customerCode } = await deps.smaregi.readCustomer(customerId);
  const second = await deps.steps.around(step, since);
  // The member's till transactions since the read that no note explains (a spend whose webhook is still to come).
  const listed = await listedSince(deps.smaregi, customerCode, { readAt: Date.parse(step.readAt ?? step.createdAt), now: readAt }, second);
  const changes = [...windowChanges(step, first, second, horizonMs(deps)), ...listed.maybes];
  const before = step.before ?? Number.NaN;
  const told = explainPoint({ before, points: step.points, now, changes });
  if (told === 'landed' && !listed.uncounted) {
    await deps.steps.settle(step.source, step.marker, { state: 'done', after: now });
    return;
  }
  // Never sent again over a change nothing explains: it could be the one that cancels the add exactly.
  if (told === 'not_landed' && listed.unexplained.length === 0) {
    // Sent again from this read: a later settle counts from it.
    const again = await deps.steps.send(step, { smaregiCustomerId: customerId, before: now, readAt }, 'sending');
    if (again) await send(deps, again);
    return;
  }
  const reason = conflictReason(told, listed.unexplained);
  await deps.steps.settle(step.source, step.marker, { state: 'conflict', found: now, reason });
  loud(deps, 'till point mirror conflict', {
    source: step.source,
    marker: step.marker,
    smaregiCustomerId: customerId,
    before,
    points: step.points,
    found: now,
    known: changes.length,
    unexplained: listed.unexplained.length,
  });
}

/** Why a settle ended in conflict (transaction ids only: no customer's data). */
function conflictReason(told: string, unexplained: readonly string[]): string {
  if (unexplained.length > 0)
    return `till transactions we were not told of changed the point in between: ${unexplained.slice(0, 5).join(', ')}`;
  return told === 'both' ? 'the till point fits both a landed and a lost add' : 'the till point changed in between';
}
