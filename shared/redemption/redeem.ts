import { randomBytes, randomUUID } from 'node:crypto';
import { type RedemptionRecord, redemptionKey } from '../ledger/index.js';
import { isOpenApiError, type MemberDetail } from '../openapi/index.js';
import { type RedemptionRefusal, redemptionRefusal } from './errors.js';
import { deduct, giveBack, makeCode, type RedemptionDeps } from './protocol.js';
import { redemptionValue } from './value.js';
import { sleepMs } from '../http-client/index.js';
import { isShopifyAdminError } from '../sources/shopify/index.js';

/**
 * `redeem`: N points of a linked shop customer become a single-use code, for one request id (the
 * page's click). The record is keyed by source, customer and request: the same request again, even
 * at the same moment, answers the same code and deducts nothing more; another customer's request id
 * is another record, never their code.
 */

export interface RedeemInput {
  customerId: string;
  requestId: string;
  points: number;
  /** The shop whose App Proxy asked (kept on the record for shop/redact). */
  shopDomain?: string;
}

export type RedeemResult = { ok: true; record: RedemptionRecord } | { ok: false; refusal: RedemptionRefusal };

/** How long a second request waits for the first one's answer (polling its record) before answering "try again". */
const WAIT_POLLS = 80;
const POLL_MS = 100;

/** 12 characters from 32 unambiguous ones (60 bits): not guessable, easy to type. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export function newCode(): string {
  const bytes = randomBytes(12);
  return `PTS-${[...bytes].map((b) => ALPHABET[b % 32]).join('')}`;
}

const refuse = (r: RedemptionRefusal): RedeemResult => ({ ok: false, refusal: r });

/** Below the minimum or off the step: the rule, said. */
export function pointsProblem(points: number, settings: RedemptionDeps['settings']): RedemptionRefusal | undefined {
  const rule = { minPoints: settings.minPoints, step: settings.step };
  if (!Number.isSafeInteger(points) || points < settings.minPoints) {
    return redemptionRefusal('invalid_points', `redeem at least ${settings.minPoints} points`, rule);
  }
  if (points % settings.step !== 0) return redemptionRefusal('invalid_points', `redeem points in multiples of ${settings.step}`, rule);
  return undefined;
}

/** The linked member, or why not. */
export async function linkedMember(
  deps: Pick<RedemptionDeps, 'openapi' | 'externalKey'>,
  customerId: string,
): Promise<{ member: MemberDetail } | { refusal: RedemptionRefusal }> {
  try {
    return { member: await deps.openapi.getMemberByExternalId(deps.externalKey, customerId) };
  } catch (e) {
    if (isOpenApiError(e) && e.kind === 'member_not_found') {
      return { refusal: redemptionRefusal('not_linked', 'this shop account is not linked to a membership: link it first') };
    }
    return { refusal: redemptionRefusal('unavailable', 'the membership service is unavailable: try again in a moment') };
  }
}

export async function redeem(deps: RedemptionDeps, input: RedeemInput): Promise<RedeemResult> {
  const { settings } = deps;
  if (!settings.enabled) return refuse(redemptionRefusal('not_enabled', 'this shop does not offer points redemption'));
  const bad = pointsProblem(input.points, settings);
  if (bad) return refuse(bad);
  const existing = await deps.ledger.get(redemptionKey(deps.source, input.customerId, input.requestId));
  if (existing) return settle(deps, existing);
  const unfit = await shopUnfit(deps);
  if (unfit) return refuse(unfit);
  const linked = await linkedMember(deps, input.customerId);
  if ('refusal' in linked) return refuse(linked.refusal);
  const { member } = linked;
  if (member.point < input.points) {
    return refuse(
      redemptionRefusal('insufficient_points', 'you do not hold that many points', { balance: member.point, points: input.points }),
    );
  }
  const now = deps.now();
  const owner = randomUUID();
  const started = await deps.ledger.start(
    {
      source: deps.source,
      customerId: input.customerId,
      ...(input.shopDomain ? { shopDomain: input.shopDomain } : {}),
      memberId: member.id,
      requestId: input.requestId,
      points: input.points,
      value: redemptionValue(input.points, settings.valuePerPoint, settings.currency),
      currency: settings.currency,
      code: newCode(),
      expiresAt: new Date(now + settings.validSeconds * 1000).toISOString(),
    },
    owner,
  );
  if (!started.created) return started.current ? settle(deps, started.current) : refuse(redemptionRefusal('unavailable', 'try again'));
  return drive(deps, started.record, owner);
}

/** A shop whose settings contradict Shopify's (its currency): nothing is deducted, and the operator is told. */
async function shopUnfit(deps: RedemptionDeps): Promise<RedemptionRefusal | undefined> {
  if (!deps.shopProblem) return undefined;
  let problem: string | undefined;
  try {
    problem = await deps.shopProblem();
  } catch (e) {
    // Unreachable, or its token refused (a wrong Admin secret): nothing deducted, the operator told.
    deps.logger?.warn('shop settings not read', { source: deps.source, error: isShopifyAdminError(e) ? e.kind : 'unknown' });
    return redemptionRefusal('unavailable', 'the shop cannot be reached: try again in a moment');
  }
  if (problem === undefined) return undefined;
  deps.logger?.error('redemption misconfigured', { source: deps.source, problem });
  return redemptionRefusal('unavailable', "the shop's points redemption is not set up correctly: try again later");
}

/** The answer a record already has; undefined while it is being made. */
function answerOf(record: RedemptionRecord): RedeemResult | undefined {
  switch (record.state) {
    case 'redeemed':
    case 'used':
      return { ok: true, record };
    case 'refused':
      return refuse(redemptionRefusal('insufficient_points', 'you do not hold that many points', { points: record.points }));
    case 'failed':
      if (record.returnReason === 'not_run') {
        // Left in doubt and settled by the sweep: its deduction never ran.
        return refuse(
          redemptionRefusal('code_unavailable', 'this redemption did not go through and no points were taken: start a new one', {
            returned: false,
          }),
        );
      }
      return refuse(
        redemptionRefusal('code_unavailable', 'the discount code could not be made; your points were given back', {
          returned: (record.returnedPoints ?? 0) > 0,
        }),
      );
    case 'returned':
      return refuse(redemptionRefusal('expired', 'this code ended unused; its points were given back'));
    default:
      return undefined;
  }
}

/** A record another request made: its answer once it has one, or taken over when its maker is gone. */
async function settle(deps: RedemptionDeps, record: RedemptionRecord): Promise<RedeemResult> {
  let current = record;
  for (let poll = 0; ; poll++) {
    const answer = answerOf(current);
    if (answer) return answer;
    if (current.leaseUntil === undefined || current.leaseUntil < deps.now()) {
      const owner = randomUUID();
      const claimed = await deps.ledger.claim(current.pk, owner);
      if (claimed) return drive(deps, claimed, owner);
    }
    if (poll >= WAIT_POLLS) return refuse(redemptionRefusal('unavailable', 'your code is still being made: press again in a moment'));
    await (deps.sleep ?? sleepMs)(POLL_MS);
    current = (await deps.ledger.get(current.pk)) ?? current;
  }
}

/** Deduct, make the code, record; a code Shopify refuses for good gives the points back. */
export async function drive(deps: RedemptionDeps, record: RedemptionRecord, owner: string): Promise<RedeemResult> {
  const deducted = await deduct(deps, record, owner);
  if (!deducted.ok) return deducted;
  const code = await makeCode(deps, deducted.record);
  if (code.ok) {
    const done = await deps.ledger.update(
      record.pk,
      owner,
      { state: 'redeemed', discountId: code.discountId },
      // Under its code's end again in the sweep's index (a deduction in doubt listed it sooner).
      { release: true, remove: ['lastError'], dueAt: record.expiresAt },
    );
    return done ? { ok: true, record: done } : refuse(redemptionRefusal('unavailable', 'press again in a moment'));
  }
  if (!code.forGood) {
    await deps.ledger.update(record.pk, owner, { lastError: code.reason }, { release: true });
    deps.logger?.warn('discount code not made yet', { source: record.source, reason: code.reason });
    return refuse(
      redemptionRefusal('unavailable', 'the discount code could not be made yet: press again (your points are kept for this request)'),
    );
  }
  deps.logger?.warn('discount code refused by the shop', { source: record.source });
  const back = await giveBack(deps, deducted.record, owner, { state: 'failed', returnReason: 'code_refused', reason: code.reason });
  if (!back.ok) return back;
  return answerOf(back.record) ?? refuse(redemptionRefusal('code_unavailable', 'the discount code could not be made'));
}
