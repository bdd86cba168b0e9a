import type { CustomerRef, PurchaseEvent } from '../../events/index.js';
import { METRIC } from '../../metrics/index.js';
import type { MetricsSink } from '../../points/index.js';
import type { CanonicalRun } from '../resolution.js';
import { type ChainReader, type OrderFacts, orderFacts } from '../../points/index.js';

/**
 * Points a member spent at the till (`spendPoint`), when the source's `tillPoints` is `membership`: the
 * till's points are the membership balance, so what the member spent comes off it, as an entry of its
 * own (never netted with the sale's earning). The membership service deducts with a negative point grant
 * and has no idempotency key, so each deduction and each give-back is an order of its own in the ledger
 * (claimed, leased, found by its marker, recorded), run by the purchase protocol as a fixed grant:
 *
 * - `<sale>/spend-<g>`: deducts the points spent (`-spendPoint`), for the member the sale names;
 * - `<sale>/spend-<g>/back`: gives back exactly what that deduction took (clamped: less).
 *
 * The spend follows the sale's current state, as its earning does: when the state spends something else
 * (a void or a return-cancellation: nothing; an edit: other points or another member), the live
 * deduction is given back and, if the state still spends, the next generation deducts anew. Every id is
 * stable (g from the ledger), so a repeated or reordered delivery finds the work done.
 */

/** One generation: the deduction and its give-back (undefined: never started). */
export interface SpendStep {
  spend: OrderFacts;
  back: OrderFacts | undefined;
}

/** What the sale's state spends now: the member and the points (undefined: nothing). */
export interface SpendTruth {
  member: CustomerRef;
  points: number;
}

/** How the source finds members: the external key, and whether the code is a unique_id (memberLookup). */
export interface MemberKey {
  externalKey: string;
  lookup?: 'unique_id' | undefined;
}

/** The source's way of finding members, from its settings (`externalKey`, `memberLookup`). */
export const memberKeyOf = (settings: { externalKey: string; memberLookup?: string | undefined }): MemberKey => ({
  externalKey: settings.externalKey,
  ...(settings.memberLookup === 'unique_id' ? { lookup: 'unique_id' as const } : {}),
});

export interface SpendResolution {
  events: PurchaseEvent[];
  /** A give-back is among the events: resolve again once it ran, to deduct what the state spends now. */
  again: boolean;
  /**
   * The events finish a deduction left unfinished (its attempt died, or its answer was lost): its
   * give-back, if the state no longer spends it, comes only in the next round, so nothing that takes the
   * sale's points back may run in this one.
   */
  finishing?: true;
  note?: string;
}

/** A sale whose spend changed more often than this is not followed further (logged). */
export const MAX_SPEND_GENERATIONS = 20;

export const spendId = (saleId: string, generation: number) => `${saleId}/spend-${generation}`;
const SPEND_ID = /\/spend-\d+$/;

/**
 * The protocol's runs, counting each till spend the balance cut short (`TillSpendShortfalls`) when it is
 * recorded so: a repeat finds it done (`duplicate`) and is not counted again.
 */
export function countingShortfalls(run: CanonicalRun, metrics: MetricsSink | undefined): CanonicalRun {
  if (!metrics) return run;
  return {
    ...run,
    async purchase(event) {
      const outcome = await run.purchase(event);
      if (outcome.kind === 'insufficient_points' && SPEND_ID.test(event.orderId)) metrics.addMetric(METRIC.tillSpendShortfalls, 'Count', 1);
      return outcome;
    },
  };
}
/** The runs, noting each deduction that ran to an answer (not one found done by another attempt): `take()` says whether one did since the last call. */
export interface NotedDeductions {
  run: CanonicalRun;
  take(): boolean;
}

export function notingDeductions(run: CanonicalRun): NotedDeductions {
  let ran = false;
  return {
    run: {
      ...run,
      async purchase(event) {
        const outcome = await run.purchase(event);
        if (SPEND_ID.test(event.orderId) && (event.fixedPoints ?? 0) < 0 && outcome.action === 'ack' && outcome.kind !== 'duplicate')
          ran = true;
        return outcome;
      },
    },
    take() {
      const was = ran;
      ran = false;
      return was;
    },
  };
}

export const giveBackId = (saleId: string, generation: number) => `${spendId(saleId, generation)}/back`;

/** The sale's spend generations, oldest first, as the ledger holds them. */
export async function readSpends(getOrder: ChainReader, source: string, saleId: string): Promise<SpendStep[]> {
  const steps: SpendStep[] = [];
  for (let g = 1; g <= MAX_SPEND_GENERATIONS; g++) {
    const spend = await orderFacts(getOrder, source, spendId(saleId, g));
    if (!spend) break;
    steps.push({ spend, back: await orderFacts(getOrder, source, giveBackId(saleId, g)) });
  }
  return steps;
}

/** What a spend order was claimed for: its member's id and its points (the order keeps them as its amount). */
const spentPoints = (o: OrderFacts) => Number(o.eligibleExact ?? '0');
/** What a done deduction took (a positive number; 0 when it took nothing: parked, no member). */
const taken = (o: OrderFacts) => (o.state === 'done' && (o.points ?? 0) < 0 ? -(o.points ?? 0) : 0);

/**
 * The fixed grants that bring the sale's till spend to `truth`. `template` is the sale's purchase (its
 * source, delivery, time, member lookup): each event is a copy with its own order id and points.
 */
export function spendEvents(
  template: PurchaseEvent,
  saleId: string,
  steps: readonly SpendStep[],
  truth: SpendTruth | undefined,
  key: MemberKey,
): SpendResolution {
  const last = steps[steps.length - 1];
  const g = steps.length;
  if (last) {
    // Claimed and not finished (crashed, answer lost): runs again on what it was claimed for, first.
    if (last.spend.state !== 'done') return { events: [deduction(template, saleId, last.spend, key)], again: true, finishing: true };
    const same = truth !== undefined && last.spend.externalId === truth.member.externalId && spentPoints(last.spend) === truth.points;
    const live = taken(last.spend) > 0 && last.back?.state !== 'done';
    if (live) return same ? { events: [], again: false } : { events: [giveBack(template, saleId, g, last.spend, key)], again: true };
    // A deduction that took nothing (parked, member not found) is not tried again for the same spend.
    if (same && last.back === undefined) return { events: [], again: false };
  }
  if (!truth) return { events: [], again: false };
  if (g >= MAX_SPEND_GENERATIONS) {
    return { events: [], again: false, note: `the till spend of ${saleId} changed more than ${MAX_SPEND_GENERATIONS} times: not followed` };
  }
  const order = { orderId: spendId(saleId, g + 1), externalId: truth.member.externalId, points: truth.points };
  return { events: [fixedGrant(template, order, -truth.points, `Points spent ${saleId}`, truth.member)], again: false };
}

/** The unfinished deduction again, identical (same order, member and points). */
function deduction(template: PurchaseEvent, saleId: string, spend: OrderFacts, key: MemberKey): PurchaseEvent {
  const points = spentPoints(spend);
  const member = memberOf(spend, key);
  return fixedGrant(template, { orderId: spend.orderId, points }, -points, `Points spent ${saleId}`, member);
}

/** Gives back what the deduction took, to the member it took it from. */
function giveBack(template: PurchaseEvent, saleId: string, g: number, spend: OrderFacts, key: MemberKey): PurchaseEvent {
  const points = taken(spend);
  return fixedGrant(template, { orderId: giveBackId(saleId, g), points }, points, `Points returned ${saleId}`, memberOf(spend, key));
}

/** The member the deduction was recorded for (its order keeps the code), found the source's way. */
function memberOf(spend: OrderFacts, key: MemberKey): CustomerRef | null {
  if (!spend.externalId) return null;
  return { externalKey: key.externalKey, externalId: spend.externalId, ...(key.lookup ? { lookup: key.lookup } : {}) };
}

export function fixedGrant(
  template: PurchaseEvent,
  order: { orderId: string; points: number },
  fixedPoints: number,
  title: string,
  customer: CustomerRef | null,
): PurchaseEvent {
  // A till's points move at once, whatever wait the sale's own earning has (earnAfter).
  const {
    stateFrom: _s,
    notEarning: _n,
    customerMatchWindowSeconds: _w,
    calculationAmount: _c,
    amountFrom: _a,
    earnAfter: _e,
    ...rest
  } = template;
  return {
    ...rest,
    eventId: `${template.source}:transaction:${order.orderId}`,
    orderId: order.orderId,
    customer,
    pointTitle: title,
    eligibleAmount: order.points,
    eligibleExact: String(order.points),
    fixedPoints,
  };
}
