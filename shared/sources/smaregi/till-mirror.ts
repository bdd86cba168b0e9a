import type { TillMirrorRecord, TillMirrors } from '../../ledger/index.js';
import type { OpenApiClient } from '../../openapi/index.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';

/**
 * Under `tillPoints: membership` the till lets a member spend what Smaregi's customer record holds, so a
 * points change made elsewhere (a web redemption's deduction or give-back, a claw-back, a reversal) is
 * added to that record too: relatively (会員ポイント相対値更新, `POST .../customers/{id}/point/add`), never
 * by overwriting it, so what the till did meanwhile (a spend, a staff change) stays. The add has no
 * idempotency key, so it is a ledger step of its own (shared/ledger/till-mirrors.ts) keyed by the marker
 * of the points call it mirrors: the customer's point is read before it is sent, and a step found
 * unfinished is settled by reading it again (before + points: it ran; before: send again; anything else:
 * a change we have not read, recorded `conflict` and logged, never written over).
 *
 * A failure never undoes the points change it mirrors: it is logged (`till point mirror ...`, ids and
 * kinds only) and recorded; an answer lost leaves the step `sending`, settled on the next call with
 * the same marker.
 */

/** A points change of the membership service, to be mirrored: its call's marker, the member, the points (+/-). */
export interface PointChange {
  marker: string;
  memberId: string;
  points: number;
  /** The member's Smaregi customer id when the caller knows it (a till transaction names it): no lookup then. */
  tillCustomerId?: string | undefined;
}

/** The mirror as callers see it (the redemption protocol holds one when the stage has a Smaregi till). */
export type TillMirror = (change: PointChange) => Promise<void>;

export interface TillMirrorDeps {
  /** The Smaregi source whose tills hold the points (its ledger steps are under its name). */
  source: string;
  /** How its members carry their till customer: the external key holding the code (or its `unique_id`), and which Smaregi field the code is. */
  externalKey: string;
  memberLookup?: 'external_id' | 'unique_id' | undefined;
  customerField?: 'customerCode' | 'customerId' | undefined;
  openapi: Pick<OpenApiClient, 'getMember'>;
  smaregi: Pick<SmaregiClient, 'addCustomerPoint' | 'getCustomerPoint' | 'findCustomerByCode'>;
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

/** The mirror of one Smaregi source, for the redemption protocol's deps. */
export const createTillMirror =
  (deps: TillMirrorDeps): TillMirror =>
  (change) =>
    mirrorPointChange(deps, change);

/** Mirrors `change` to the member's Smaregi customer exactly once (none: recorded `skipped`). */
export async function mirrorPointChange(deps: TillMirrorDeps, change: PointChange): Promise<void> {
  if (change.points === 0) return;
  try {
    let step = await deps.steps.get(deps.source, change.marker);
    // Begun before anything is read, so a step whose reads fail is found unfinished (settleTillMirrors).
    if (!step) step = await deps.steps.begin({ ...base(deps, change), state: 'pending' });
    if (!step) return; // begun by a concurrent call: it goes on
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
  const unfinished = (listed ?? (await deps.steps.listUnfinished())).filter((s) => s.source === deps.source && isUnfinished(s));
  for (const step of unfinished) await mirrorPointChange(deps, { marker: step.marker, memberId: step.memberId, points: step.points });
  return unfinished.length;
}

/** Not final: `pending` (nothing sent) or `sending` (settled by reading the customer's point). */
export const isUnfinished = (s: Pick<TillMirrorRecord, 'state'>) => s.state === 'pending' || s.state === 'sending';

/** A `pending` step: its customer found and its point read (`before`), then the add sent once. */
async function prepareAndSend(deps: TillMirrorDeps, step: TillMirrorRecord, known: string | undefined): Promise<void> {
  const customerId = known ?? (await tillCustomerOf(deps, step.memberId));
  if (customerId === undefined) {
    await deps.steps.settle(step.source, step.marker, { state: 'skipped', reason: 'the member has no Smaregi customer' }, 'pending');
    return;
  }
  const before = await deps.smaregi.getCustomerPoint(customerId);
  const sending = await deps.steps.settle(step.source, step.marker, { state: 'sending', smaregiCustomerId: customerId, before }, 'pending');
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
    if (e instanceof SmaregiError && e.status !== undefined && e.status >= 400 && e.status < 500 && e.status !== 429) {
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
    throw e; // in doubt: stays `sending`, settled by reading the customer's point on the next call
  }
}

/** A step found `sending`: the customer's point now says whether its add ran. */
async function settleUnfinished(deps: TillMirrorDeps, step: TillMirrorRecord): Promise<void> {
  const customerId = step.smaregiCustomerId as string;
  const now = await deps.smaregi.getCustomerPoint(customerId);
  const before = step.before ?? Number.NaN;
  if (now === before + step.points) {
    await deps.steps.settle(step.source, step.marker, { state: 'done', after: now });
    return;
  }
  if (now === before) return send(deps, step);
  await deps.steps.settle(step.source, step.marker, { state: 'conflict', found: now, reason: 'the till point changed in between' });
  loud(deps, 'till point mirror conflict', {
    source: step.source,
    marker: step.marker,
    smaregiCustomerId: customerId,
    before,
    points: step.points,
    found: now,
  });
}
