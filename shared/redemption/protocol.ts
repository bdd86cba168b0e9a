import type { RedemptionLedger, RedemptionRecord } from '../ledger/index.js';
import type { Logger } from '../logging/index.js';
import { isOpenApiError, type OpenApiClient } from '../openapi/index.js';
import { findMarkers, redemptionMarker, redemptionReturnMarker } from '../points/index.js';
import { createDiscountCode, discountByCode, isShopifyAdminError, type ShopifyAdminClient } from '../sources/shopify/index.js';
import type { RedemptionSettings } from '../sources/index.js';
import { type RedemptionRefusal, redemptionRefusal } from './errors.js';
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
  readonly openapi: Pick<OpenApiClient, 'getMemberByExternalId' | 'grantPoints' | 'listPoints' | 'listPointExpiries'>;
  readonly shopify: Pick<ShopifyAdminClient, 'graphql'>;
  readonly ledger: RedemptionLedger;
  readonly now: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** History pages (1000 entries each) searched for a marker; default 5. */
  readonly historyPages?: number;
  /** Attempts at making the code before answering (default 3). */
  readonly codeAttempts?: number;
}

export type Step = { ok: true; record: RedemptionRecord } | { ok: false; refusal: RedemptionRefusal };

const DEDUCT_TITLE = 'ポイント利用（割引コード） / Points redeemed for a discount code';
const RETURN_TITLE = 'ポイント返還（割引コード） / Points returned from a discount code';

const unavailable = (message = 'the membership service or the shop is unavailable: press again in a moment') =>
  ({ ok: false, refusal: redemptionRefusal('unavailable', message) }) as const;

async function hasMarker(deps: RedemptionDeps, record: RedemptionRecord, marker: string): Promise<boolean> {
  const found = await findMarkers(deps.openapi, record.memberId, [marker], deps.historyPages ?? 5);
  return found.has(marker);
}

/** Writes under the lease; a lost lease (someone took over) is a retry, never a second call. */
async function write(deps: RedemptionDeps, record: RedemptionRecord, owner: string, fields: Partial<RedemptionRecord>, release = false) {
  return deps.ledger.update(record.pk, owner, fields, { release });
}

/** The points come off the balance exactly once. */
export async function deduct(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<Step> {
  if (record.deducted) return { ok: true, record };
  const marker = redemptionMarker(record.source, record.customerId, record.requestId);
  try {
    if (record.deductionSent && (await hasMarker(deps, record, marker))) {
      const done = await write(deps, record, owner, { deducted: true });
      return done ? { ok: true, record: done } : unavailable();
    }
  } catch {
    await write(deps, record, owner, { lastError: 'history unreadable' }, true);
    return unavailable();
  }
  const sent = await write(deps, record, owner, { deductionSent: true });
  if (!sent) return unavailable();
  try {
    await deps.openapi.grantPoints(record.memberId, { point: -record.points, title: DEDUCT_TITLE, remarks: marker });
  } catch (e) {
    const kind = isOpenApiError(e) ? e.kind : 'network';
    if (isOpenApiError(e) && e.executed === 'no') {
      if (kind === 'insufficient_points') {
        await write(deps, sent, owner, { state: 'refused', deductionSent: false, reason: 'insufficient_points' }, true);
        return {
          ok: false,
          refusal: redemptionRefusal('insufficient_points', 'you do not hold that many points', { points: record.points }),
        };
      }
      await write(deps, sent, owner, { deductionSent: false, lastError: kind }, true);
      return unavailable();
    }
    // The answer is lost: the history says whether it ran, before anything is sent again.
    const ran = await hasMarker(deps, sent, marker).catch(() => undefined);
    if (ran !== true) {
      await write(deps, sent, owner, { lastError: kind }, true);
      return unavailable();
    }
  }
  const done = await write(deps, sent, owner, { deducted: true });
  return done ? { ok: true, record: done } : unavailable();
}

export type CodeResult = { ok: true; discountId: string } | { ok: false; forGood: boolean; reason: string };

/** Shopify errors that a later attempt may not see; anything else from the API is a refusal of the request. */
const passing = (kind: string) => ['network', 'timeout', 'throttled', 'http', 'unauthorized', 'invalid_response'].includes(kind);

/** The discount code exists at Shopify: made once, with the code the record chose. */
export async function makeCode(deps: RedemptionDeps, record: RedemptionRecord): Promise<CodeResult> {
  if (record.discountId) return { ok: true, discountId: record.discountId };
  const attempts = deps.codeAttempts ?? 3;
  let reason = 'not tried';
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await (deps.sleep ?? sleepMs)(200 * 2 ** (attempt - 1));
    try {
      const made = await createDiscountCode(deps.shopify, {
        code: record.code,
        title: `Points ${record.points} (${record.requestId.slice(0, 8)})`,
        amount: record.value,
        customerGid: `gid://shopify/Customer/${record.customerId}`,
        startsAt: record.createdAt,
        endsAt: record.expiresAt,
      });
      if (made.ok) return { ok: true, discountId: made.node.id };
      // Made by an attempt whose answer was lost: the code is ours (chosen at random, kept in the ledger).
      if (made.taken) {
        const node = await discountByCode(deps.shopify, record.code);
        if (node) return { ok: true, discountId: node.id };
      }
      return { ok: false, forGood: true, reason: made.reason };
    } catch (e) {
      const kind = isShopifyAdminError(e) ? e.kind : 'network';
      reason = `Shopify: ${kind}`;
      if (!passing(kind)) return { ok: false, forGood: true, reason };
    }
  }
  return { ok: false, forGood: false, reason };
}

/**
 * The redeemed points come back exactly once and the record ends in `state` (failed, returned). A
 * deduction that never ran gives nothing back.
 */
export async function giveBack(
  deps: RedemptionDeps,
  record: RedemptionRecord,
  owner: string,
  end: { state: 'failed' | 'returned'; returnReason: string; reason?: string },
): Promise<Step> {
  const marker = redemptionReturnMarker(record.source, record.customerId, record.requestId);
  let current = record;
  try {
    if (!current.deducted && current.deductionSent) {
      const ran = await hasMarker(deps, current, redemptionMarker(current.source, current.customerId, current.requestId));
      if (ran) current = (await write(deps, current, owner, { deducted: true })) ?? current;
    }
    if (!current.deducted) {
      const done = await write(deps, current, owner, { ...end, returnedPoints: 0 }, true);
      return done ? { ok: true, record: done } : unavailable();
    }
    if (current.returnSent && (await hasMarker(deps, current, marker))) {
      const done = await write(deps, current, owner, { ...end, returnedPoints: current.points }, true);
      return done ? { ok: true, record: done } : unavailable();
    }
  } catch {
    await write(deps, current, owner, { lastError: 'history unreadable' }, true);
    return unavailable();
  }
  const sent = await write(deps, current, owner, { returnSent: true });
  if (!sent) return unavailable();
  try {
    await deps.openapi.grantPoints(sent.memberId, { point: sent.points, title: RETURN_TITLE, remarks: marker });
  } catch (e) {
    const kind = isOpenApiError(e) ? e.kind : 'network';
    if (isOpenApiError(e) && e.executed === 'no') {
      if (kind === 'member_not_found' || kind === 'points_not_available') {
        // Nobody to give them to: the record says so, for the operator.
        const done = await write(deps, sent, owner, { ...end, returnSent: false, returnedPoints: 0, lastError: kind }, true);
        return done ? { ok: true, record: done } : unavailable();
      }
      await write(deps, sent, owner, { returnSent: false, lastError: kind }, true);
      return unavailable();
    }
    const ran = await hasMarker(deps, sent, marker).catch(() => undefined);
    if (ran !== true) {
      await write(deps, sent, owner, { lastError: kind }, true);
      return unavailable();
    }
  }
  deps.logger?.info('redeemed points given back', { source: sent.source, points: sent.points, why: end.returnReason });
  const done = await write(deps, sent, owner, { ...end, returnedPoints: sent.points }, true);
  return done ? { ok: true, record: done } : unavailable();
}
