import type { RedemptionLedger, RedemptionRecord } from '../ledger/index.js';
import type { Logger } from '../logging/index.js';
import type { OpenApiClient, OpenApiError } from '../openapi/index.js';
import {
  act,
  checkDoubt,
  type Doubt,
  type EngineDeps,
  redemptionClawbackMarker,
  redemptionMarker,
  redemptionReturnMarker,
} from '../points/index.js';
import { DEFAULT_IN_DOUBT_SECONDS, LEASE_MARGIN_SECONDS, LEASE_SEND_WINDOW_SECONDS } from '../config/index.js';
import { createDiscountCode, discountByCode, isShopifyAdminError, type ShopifyAdminClient } from '../sources/shopify/index.js';
import type { RedemptionSettings } from '../sources/index.js';
import type { LegMirror } from '../sources/smaregi/index.js';
import { type RedemptionRefusal, redemptionRefusal } from './errors.js';
import type { PendingSource } from './pending-source.js';
import { sleepMs } from '../http-client/index.js';

/**
 * The steps of a redemption, each on a record whose lease the caller holds, each exactly once however
 * often it is run: the deduction (one negative grant carrying the redemption's marker; a lost answer is
 * found by that marker in the history before any second call), the code (made with a code chosen
 * beforehand, so a lost answer is found by the code), and the giving back (one positive grant with a
 * marker of its own, found the same way).
 */

export interface RedemptionDeps {
  readonly source: string;
  readonly externalKey: string;
  readonly settings: RedemptionSettings;
  /**
   * The source earns after payment: the points page reads the customer's provisional orders (and the
   * function is granted those reads); otherwise it never reads an order.
   */
  readonly earnsLater?: boolean;
  /** Other sources whose provisional sales the member's points page lists too (a till's `days`: pending.ts). */
  readonly pendingElsewhere?: readonly PendingSource[];
  readonly openapi: Pick<OpenApiClient, 'getMemberByExternalId' | 'grantPoints' | 'calculatePoints' | 'listPoints' | 'listPointExpiries'>;
  /** A claw-back the member cannot pay in full: `clamp` takes what is held, `park` takes nothing (INSUFFICIENT_POINTS_POLICY; default clamp). */
  readonly insufficientPointsPolicy?: 'clamp' | 'park';
  readonly shopify: Pick<ShopifyAdminClient, 'graphql'>;
  readonly ledger: RedemptionLedger;
  readonly now: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The in-doubt horizon (IN_DOUBT_SECONDS); default DEFAULT_IN_DOUBT_SECONDS. */
  readonly inDoubtSeconds?: number;
  /** Attempts at making the code before answering (default 3). */
  readonly codeAttempts?: number;
  /**
   * The shop's settings as Shopify has them (shop-check.ts: its currency), asked before a new redemption
   * deducts anything: a problem refuses it. Undefined: not checked (the caller checked at its start).
   */
  readonly shopProblem?: () => Promise<string | undefined>;
  /**
   * Under a Smaregi source's `tillPoints: membership`: each leg's step is planned before its call and
   * mirrored to the member's till record once it ran (directly, or through the worker: the App Proxy).
   */
  readonly tillMirror?: LegMirror | undefined;
}

export type Step = { ok: true; record: RedemptionRecord } | { ok: false; refusal: RedemptionRefusal };

const DEDUCT_TITLE = 'ポイント利用（割引コード） / Points redeemed for a discount code';
const RETURN_TITLE = 'ポイント返還（割引コード） / Points returned from a discount code';
const CLAWBACK_TITLE = 'ポイント再利用（返還後に使われた割引コード） / Points taken again: a returned code was used';

const unavailable = (message = 'the membership service or the shop is unavailable: press again in a moment') =>
  ({ ok: false, refusal: redemptionRefusal('unavailable', message) }) as const;

/** A call of this redemption may still land: the same request after the horizon finishes it, never deducting twice. */
const inDoubt = (deps: RedemptionDeps, until: number): Step => {
  const retryAfterSeconds = Math.max(1, Math.ceil((until - deps.now()) / 1000));
  return {
    ok: false,
    refusal: redemptionRefusal(
      'in_doubt',
      `ポイントの利用を処理中です。${retryAfterSeconds}秒後にもう一度押してください（二重に差し引かれることはありません） / Your redemption is still being made: press again in ${retryAfterSeconds} s (your points are never taken twice)`,
      { retryAfterSeconds },
    ),
  };
};

function engine(deps: RedemptionDeps): EngineDeps {
  return {
    api: deps.openapi,
    clock: deps.now,
    horizon: {
      inDoubtMs: (deps.inDoubtSeconds ?? DEFAULT_IN_DOUBT_SECONDS) * 1000,
      marginMs: LEASE_MARGIN_SECONDS * 1000,
      leaseMs: deps.ledger.leaseMs,
    },
  };
}

/** A leg's call goes within this of its send's write (the horizon counts from its end). */
const SEND_WINDOW_MS = LEASE_SEND_WINDOW_SECONDS * 1000;

/** Writes under the lease; a lost lease (someone took over) is a retry, never a second call. */
async function write(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  owner: string,
  fields: Partial<RedemptionRecord>,
  release = false,
  dueAt?: string,
) {
  return deps.ledger.update(record.pk, owner, fields, { release, ...(dueAt !== undefined ? { dueAt } : {}) });
}

/**
 * A leg's write when it is left in doubt until `until`. A deduction in doubt is listed by the sweep as
 * soon as that has passed (the sweep lists what ended `graceSeconds` before its now): a customer who
 * never presses again does not leave it in doubt until the code's end (sweep.ts: finishInDoubt).
 */
function writeInDoubt(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  owner: string,
  leg: Leg,
  fields: Partial<RedemptionRecord>,
  until: number,
) {
  const dueAt = leg.sent === 'deductionSent' ? new Date(until - deps.settings.graceSeconds * 1000).toISOString() : undefined;
  return write(deps, record, owner, fields, true, dueAt);
}

/** One of a redemption's two calls: its marker, its points, and where the record keeps its sends. */
interface Leg {
  readonly marker: string;
  readonly point: number;
  readonly title: string;
  readonly sent: 'deductionSent' | 'returnSent' | 'clawbackSent';
  readonly sentAt: 'deductionSentAt' | 'returnSentAt' | 'clawbackSentAt';
  readonly lastSentAt: 'deductionLastSentAt' | 'returnLastSentAt' | 'clawbackLastSentAt';
}

const deductionLeg = (r: RedemptionRecord): Leg => ({
  marker: redemptionMarker(r.source, r.customerId, r.requestId),
  point: -r.points,
  title: DEDUCT_TITLE,
  sent: 'deductionSent',
  sentAt: 'deductionSentAt',
  lastSentAt: 'deductionLastSentAt',
});
const returnLeg = (r: RedemptionRecord): Leg => ({
  marker: redemptionReturnMarker(r.source, r.customerId, r.requestId),
  point: r.points,
  title: RETURN_TITLE,
  sent: 'returnSent',
  sentAt: 'returnSentAt',
  lastSentAt: 'returnLastSentAt',
});

const clawbackLeg = (r: RedemptionRecord, points: number): Leg => ({
  marker: redemptionClawbackMarker(r.source, r.customerId, r.requestId),
  point: -points,
  title: CLAWBACK_TITLE,
  sent: 'clawbackSent',
  sentAt: 'clawbackSentAt',
  lastSentAt: 'clawbackLastSentAt',
});

/**
 * The doubt a sent leg leaves: sent (the flag is written before the call) and not known to have run.
 * Its call went within SEND_WINDOW_MS of its last send's write, so it can land until that and the horizon.
 */
function legDoubt(deps: RedemptionDeps, r: RedemptionRecord, leg: Leg): Doubt | undefined {
  if (!r[leg.sent]) return undefined;
  const h = engine(deps).horizon;
  const last = r[leg.lastSentAt] ?? r[leg.sentAt];
  // Written by the attempt that saw its send end (after the send): that send's own horizon. Otherwise the
  // attempt died: its call went at the latest at its window's end. A record sent before the horizon
  // existed (no send time) is searched at once, as it was then.
  const known = r.inDoubtUntil !== undefined && last !== undefined && r.inDoubtUntil > last ? r.inDoubtUntil : undefined;
  const until = known ?? (last !== undefined ? last + SEND_WINDOW_MS + h.inDoubtMs : 0);
  return { until, since: r[leg.sentAt] ?? Date.parse(r.createdAt), memberId: r.memberId };
}

type LegResult =
  | { ran: true; record: RedemptionRecord }
  | { ran: false; step: Step; error?: undefined }
  | { ran: false; step: Step; error: OpenApiError; record: RedemptionRecord };

/**
 * One leg through the protocol engine (sendLeg); its till mirror step is written before the call (so a
 * process that dies after the call leaves it to be found), and mirrored once the leg ran (its own step).
 */
async function runLeg(deps: RedemptionDeps, record: RedemptionRecord, owner: string, leg: Leg): Promise<LegResult> {
  const change = tillChange(record, leg);
  await deps.tillMirror?.planned(change);
  const result = await sendLeg(deps, record, owner, leg);
  if (result.ran) await deps.tillMirror?.ran(change);
  else if (result.error) await deps.tillMirror?.notRun(change);
  return result;
}

/** A leg's points change as the till mirror takes it: its marker, the member, its points. */
const tillChange = (r: RedemptionRecord, leg: Leg) => ({ marker: leg.marker, memberId: r.memberId, points: leg.point });

/**
 * One leg through the protocol engine: a send in doubt is searched first (found: done; in doubt: the
 * customer is told when to press again); else the send is written, then the call goes, within its
 * window; an ending that proves nothing is in doubt until the horizon.
 */
async function sendLeg(deps: RedemptionDeps, record: RedemptionRecord, owner: string, leg: Leg): Promise<LegResult> {
  const eng = engine(deps);
  const doubt = legDoubt(deps, record, leg);
  if (doubt) {
    let check: Awaited<ReturnType<typeof checkDoubt>>;
    try {
      check = await checkDoubt(eng, doubt, [leg.marker], record.memberId);
    } catch {
      await write(deps, record, owner, { lastError: 'history unreadable' }, true);
      return { ran: false, step: unavailable() };
    }
    if (check.found.has(leg.marker)) return { ran: true, record };
    if (!check.settled) {
      await writeInDoubt(deps, record, owner, leg, { lastError: `in doubt (${check.why})`, inDoubtUntil: check.until }, check.until);
      return { ran: false, step: inDoubt(deps, check.until) };
    }
  }
  const now = deps.now();
  const sent = await write(deps, record, owner, {
    [leg.sent]: true,
    [leg.sentAt]: record[leg.sentAt] ?? now,
    [leg.lastSentAt]: now,
  });
  if (!sent) return { ran: false, step: unavailable() };
  const window = { leftMs: () => now + SEND_WINDOW_MS - deps.now() };
  const result = await act(
    eng,
    { marker: leg.marker, call: { kind: 'grant', memberId: sent.memberId, input: { point: leg.point, title: leg.title } }, window },
    undefined,
  );
  if (result.kind === 'ran') return { ran: true, record: sent };
  if (result.kind === 'in_doubt') {
    const until = result.doubt.until;
    await writeInDoubt(deps, sent, owner, leg, { lastError: result.error?.kind ?? result.why, inDoubtUntil: until }, until);
    return { ran: false, step: inDoubt(deps, until) };
  }
  // Proven not run: the record says so (nothing in doubt), and the caller decides what the refusal means.
  const cleared = (await write(deps, sent, owner, { [leg.sent]: false, lastError: result.error.kind })) ?? sent;
  return { ran: false, step: unavailable(), error: result.error, record: cleared };
}

/** The points come off the balance exactly once. */
export async function deduct(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<Step> {
  if (record.deducted) return { ok: true, record };
  const leg = await runLeg(deps, record, owner, deductionLeg(record));
  if (leg.ran) {
    const done = await write(deps, leg.record, owner, { deducted: true });
    // Here, not per answer: the same request pressed again answers its code without a second line.
    if (done) deps.logger?.info('points redeemed', { source: record.source, points: record.points });
    return done ? { ok: true, record: done } : unavailable();
  }
  if (!leg.error) return leg.step;
  const refusedRecord = leg.record;
  if (leg.error.kind === 'insufficient_points') {
    await write(deps, refusedRecord, owner, { state: 'refused', reason: 'insufficient_points' }, true);
    return {
      ok: false,
      refusal: redemptionRefusal('insufficient_points', 'you do not hold that many points', { points: record.points }),
    };
  }
  await write(deps, refusedRecord, owner, { lastError: leg.error.kind }, true);
  return unavailable();
}

export type CodeResult = { ok: true; discountId: string } | { ok: false; forGood: boolean; reason: string };

/**
 * Shopify errors that a later attempt may not see; anything else from the API is a refusal of the
 * request. `internal` is Shopify's INTERNAL_SERVER_ERROR at HTTP 200, which its docs call transient.
 */
const passing = (kind: string) =>
  ['network', 'timeout', 'throttled', 'http', 'unauthorized', 'invalid_response', 'internal'].includes(kind);

/**
 * The discount code exists at Shopify: made once, with the code the record chose. A create whose end
 * proves nothing (no answer, a transient error) may have made it, so the code is looked for by its
 * code before the next create and before any "refused for good": found, it is the record's (reused);
 * a code is never left alive at Shopify while the record gives its points back.
 */
export async function makeCode(deps: RedemptionDeps, record: RedemptionRecord): Promise<CodeResult> {
  if (record.discountId) return { ok: true, discountId: record.discountId };
  const attempts = deps.codeAttempts ?? 3;
  let reason = 'not tried';
  // An earlier press of this record may have sent a create (it left a lastError): look first.
  let mayExist = record.lastError !== undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await (deps.sleep ?? sleepMs)(200 * 2 ** (attempt - 1));
    try {
      if (mayExist) {
        const node = await discountByCode(deps.shopify, record.code);
        if (node) return { ok: true, discountId: node.id };
      }
      const made = await createDiscountCode(deps.shopify, {
        code: record.code,
        title: `Points ${record.points} (${record.requestId.slice(0, 8)})`,
        amount: record.value,
        customerGid: `gid://shopify/Customer/${record.customerId}`,
        startsAt: record.createdAt,
        endsAt: record.expiresAt,
        combinesWithShipping: deps.settings.combinesWithShipping,
      });
      if (made.ok) return { ok: true, discountId: made.node.id };
      // Made by an attempt whose answer was lost: the code is ours (chosen at random, kept in the ledger).
      if (made.taken) {
        const node = await discountByCode(deps.shopify, record.code);
        if (node) return { ok: true, discountId: node.id };
      }
      if (made.transient) {
        // INTERNAL_ERROR: Shopify's own failure, nothing made by this create; another try may do.
        reason = `Shopify: ${made.reason}`;
        continue;
      }
      return { ok: false, forGood: true, reason: made.reason };
    } catch (e) {
      const kind = isShopifyAdminError(e) ? e.kind : 'network';
      reason = `Shopify: ${kind}`;
      // Whatever ended this attempt, its create may have run: the next one looks first.
      mayExist = true;
      if (!passing(kind)) return await refusedUnlessMade(deps, record, reason);
    }
  }
  return { ok: false, forGood: false, reason };
}

/**
 * A failure that is not worth another try, after a create that may have run: the code made, it is the
 * record's; absent, refused for good; not known (the lookup failed too), not for good (tried again).
 */
async function refusedUnlessMade(deps: RedemptionDeps, record: RedemptionRecord, reason: string): Promise<CodeResult> {
  try {
    const node = await discountByCode(deps.shopify, record.code);
    return node ? { ok: true, discountId: node.id } : { ok: false, forGood: true, reason };
  } catch {
    return { ok: false, forGood: false, reason };
  }
}

/**
 * The redeemed points come back exactly once and the record ends in `state` (failed, returned). A
 * deduction that never ran gives nothing back; one still in doubt is settled first (or waited for).
 */
export async function giveBack(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  owner: string,
  end: { state: 'failed' | 'returned'; returnReason: string; reason?: string },
): Promise<Step> {
  let current = record;
  if (!current.deducted && current.deductionSent) {
    const settled = await runLegSearchOnly(deps, current, owner, deductionLeg(current));
    if (!settled.ok) return settled.step;
    if (settled.ran) await deps.tillMirror?.ran(tillChange(current, deductionLeg(current)));
    if (settled.ran) current = (await write(deps, current, owner, { deducted: true })) ?? current;
  }
  if (!current.deducted) {
    const done = await write(deps, current, owner, { ...end, deductionSent: false, returnedPoints: 0 }, true);
    return done ? { ok: true, record: done } : unavailable();
  }
  const leg = await runLeg(deps, current, owner, returnLeg(current));
  if (leg.ran) {
    deps.logger?.info('redeemed points given back', { source: current.source, points: current.points, why: end.returnReason });
    const done = await write(deps, leg.record, owner, { ...end, returnedPoints: current.points }, true);
    return done ? { ok: true, record: done } : unavailable();
  }
  if (leg.error && (leg.error.kind === 'member_not_found' || leg.error.kind === 'points_not_available')) {
    // Nobody to give them to: the record says so, for the operator.
    const refusedRecord = leg.record;
    const done = await write(deps, refusedRecord, owner, { ...end, returnSent: false, returnedPoints: 0, lastError: leg.error.kind }, true);
    return done ? { ok: true, record: done } : unavailable();
  }
  if (leg.error) {
    const refusedRecord = leg.record;
    await write(deps, refusedRecord, owner, { lastError: leg.error.kind }, true);
    return unavailable();
  }
  return leg.step;
}

export type DeductionSettled =
  | { kind: 'deducted'; record: RedemptionRecord }
  | { kind: 'not_run'; record: RedemptionRecord }
  | { kind: 'in_doubt' | 'unavailable' };

/**
 * A deduction left in doubt, settled without sending (the sweep, past its horizon, when nobody pressed
 * again): found, the record is deducted and its till step goes on; absent by a complete search, it never
 * ran and never will: the record ends `failed` (`not_run`: nothing deducted, no code) and its planned till
 * step is void. Still in doubt (or the history unreadable): left, under a new horizon.
 */
export async function settleDeduction(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<DeductionSettled> {
  const leg = deductionLeg(record);
  const change = tillChange(record, leg);
  const settled = await runLegSearchOnly(deps, record, owner, leg);
  if (!settled.ok) return { kind: settled.step.ok ? 'unavailable' : settled.step.refusal.kind === 'in_doubt' ? 'in_doubt' : 'unavailable' };
  if (settled.ran) {
    await deps.tillMirror?.ran(change);
    const done = await write(deps, record, owner, { deducted: true });
    return done ? { kind: 'deducted', record: done } : { kind: 'unavailable' };
  }
  await deps.tillMirror?.notRun(change);
  const fields = { state: 'failed' as const, returnReason: 'not_run', deductionSent: false, returnedPoints: 0 };
  const done = await write(deps, record, owner, fields, true);
  deps.logger?.info('redemption in doubt ended: its deduction never ran', { source: record.source, points: record.points });
  return done ? { kind: 'not_run', record: done } : { kind: 'unavailable' };
}

/**
 * A deduction sent and not known to have run, settled without sending: found (it ran), settled absent
 * (it never ran and never will), or still in doubt (the caller waits).
 */
async function runLegSearchOnly(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  owner: string,
  leg: Leg,
): Promise<{ ok: true; ran: boolean } | { ok: false; step: Step }> {
  const doubt = legDoubt(deps, record, leg);
  if (!doubt) return { ok: true, ran: false };
  try {
    const check = await checkDoubt(engine(deps), doubt, [leg.marker], record.memberId);
    if (check.found.has(leg.marker)) return { ok: true, ran: true };
    if (check.settled) return { ok: true, ran: false };
    await writeInDoubt(deps, record, owner, leg, { lastError: `in doubt (${check.why})`, inDoubtUntil: check.until }, check.until);
    return { ok: false, step: inDoubt(deps, check.until) };
  } catch {
    await write(deps, record, owner, { lastError: 'history unreadable' }, true);
    return { ok: false, step: unavailable() };
  }
}

/**
 * Points already given back are taken again, exactly once (their own marker): an order of the code's own
 * customer used the code after its points came back. The record becomes `used` by `orderId`. A member
 * holding fewer: `clamp` takes what they hold and records the shortfall, `park` takes nothing and records
 * it all; either way the caller counts it (RedemptionClawbacks).
 */
export async function clawBack(deps: RedemptionDeps, record: RedemptionRecord, owner: string, orderId: string): Promise<Step> {
  const due = record.returnedPoints ?? 0;
  const done = (current: RedemptionRecord, taken: number) =>
    write(deps, current, owner, { state: 'used', orderId, clawedBackPoints: taken, clawbackShortfall: due - taken }, true);
  if (due <= 0) {
    const ended = await done(record, 0);
    return ended ? { ok: true, record: ended } : unavailable();
  }
  // An earlier attempt's send is searched first (found: it ran); a clamped amount was written before its send.
  const planned = due - (record.clawbackShortfall ?? 0);
  const first = await runLeg(deps, record, owner, clawbackLeg(record, planned));
  if (first.ran) return settle(await done(first.record, planned));
  if (!first.error) return first.step;
  if (first.error.kind !== 'insufficient_points') {
    await write(deps, first.record, owner, { lastError: first.error.kind }, true);
    return unavailable();
  }
  let held = 0;
  if ((deps.insufficientPointsPolicy ?? 'clamp') === 'clamp') {
    try {
      held = Math.max(0, Math.min(due, (await deps.openapi.getMemberByExternalId(deps.externalKey, record.customerId)).point));
    } catch {
      await write(deps, first.record, owner, { lastError: 'balance unreadable' }, true);
      return unavailable();
    }
  }
  if (held === 0) {
    // `park`: taken later, once the member holds enough (the sweep tries it again: retryParkedClawBack).
    const parked = (deps.insufficientPointsPolicy ?? 'clamp') === 'park';
    const fields = { state: 'used' as const, orderId, clawedBackPoints: 0, clawbackShortfall: due, lastError: 'insufficient_points' };
    return settle(await deps.ledger.update(first.record.pk, owner, fields, { release: true, parked }));
  }
  // The shortfall is written before the smaller call, so a later attempt that finds it knows what it took.
  const marked = await write(deps, first.record, owner, { clawbackShortfall: due - held });
  if (!marked) return unavailable();
  const second = await runLeg(deps, marked, owner, clawbackLeg(marked, held));
  if (second.ran) return settle(await done(second.record, held));
  if (second.error) await write(deps, second.record, owner, { lastError: second.error.kind }, true);
  return second.error ? unavailable() : second.step;
}

const settle = (record: RedemptionRecord | undefined): Step => (record ? { ok: true, record } : unavailable());

/**
 * A claw-back parked under `park` (the member held fewer points than it takes), tried again, exactly
 * once: the same marker, so a send in doubt is found in the history before anything is sent again. The
 * member holding enough now: all of it taken, the record leaves the parked list. Still too few: it
 * stays parked (`lastError`), for the next run.
 */
export async function retryParkedClawBack(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<Step> {
  const due = record.clawbackShortfall ?? 0;
  if (record.state !== 'used' || due <= 0 || (record.clawedBackPoints ?? 0) > 0) {
    // Nothing parked on it (taken meanwhile): out of the list.
    return settle(await write(deps, record, owner, { state: record.state }, true));
  }
  const leg = await runLeg(deps, record, owner, clawbackLeg(record, due));
  if (leg.ran) {
    deps.logger?.info('parked claw-back taken', { source: record.source, points: due });
    return settle(await write(deps, leg.record, owner, { state: 'used', clawedBackPoints: due, clawbackShortfall: 0 }, true));
  }
  if (!leg.error) return leg.step;
  await write(deps, leg.record, owner, { lastError: leg.error.kind }, true);
  return leg.error.kind === 'insufficient_points'
    ? { ok: false, refusal: redemptionRefusal('insufficient_points', 'the member still holds too few points', { points: due }) }
    : unavailable();
}
