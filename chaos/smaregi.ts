import type { Disturbance } from './disturbance.js';
import type { Random } from './prng.js';
import type { ChaosCustomer, DeliveryStep, EventSpec, Scenario } from './scenario-types.js';

/**
 * Smaregi in the chaos runs. A share of the scenario's Shopify orders with a customer, whose refunds
 * are at most one cancellation, are rung up on Smaregi tills instead: the sale, and the cancellation
 * as a void (取消, refund `cancel`). Smaregi's webhooks name the transaction only, so each delivery first
 * moves the stand-in's transaction forward to the state its event left (never back: a late delivery of
 * the sale finds the void), then sends the thin webhook; the scenario's retries, resends, concurrent
 * copies and reorderings apply as for every sender. The Smaregi disturbance adds 429s (with a
 * Retry-After), 503s and expired tokens at the Platform API. The model needs nothing new: the sale earns
 * what a Shopify order of that amount earns, and the void takes it all back.
 *
 * What real tills add (issue 39), still with nothing new in the model:
 * - non-sale divisions: some sales' webhooks also name money put in (入金, 2) or a deposit (預かり金, 4) of
 *   the same amount for the same member, which must earn nothing (the member's points would show it);
 * - late members: a sale delivered more than once is first rung up without its member, whom staff
 *   attach before its last delivery (as Smaregi's `edited`): it must still earn, once.
 *
 * Points spent at the till (issue 42; the chaos stack runs `tillPoints: membership`): a sale of ¥100 or
 * more (it earns at least 1 point) is paid partly with 1 point when it ends voided (the void gives it
 * back) or when it is delivered more than once (staff correct the payment before its last delivery, an
 * edit: the spend given back). Every spend therefore ends given back, so the model needs nothing new
 * and a clamp cannot skew it; a deduction made twice, or a give-back missed or made twice, shows as a
 * mismatch. Spending no more than the sale earned keeps every other refund of the member uncapped.
 */
export const CHAOS_SPEND_POINTS = 1;
/** Each chaos customer's Smaregi point at the start. */
export const CHAOS_TILL_POINT_SEED = 1_000_000;

const MIX = {
  /** Eligible Shopify orders that are Smaregi transactions instead. */
  smaregiShare: 0.35,
} as const;

/** The customers who pay a Smaregi sale partly in points (at the till). */
export function tillSpenders(scenario: Scenario): Set<number> {
  const out = new Set<number>();
  for (const e of scenario.events)
    if (e.kind === 'purchase' && e.source === 'smaregi' && e.customer !== null && spends(scenario, e.orderId)) out.add(e.customer);
  return out;
}

/** The Smaregi customer code of a chaos customer. */
export function smaregiCustomerCode(customer: Pick<ChaosCustomer, 'posCard'>): string {
  return `SM-${customer.posCard.replace(/[^A-Za-z0-9]/g, '')}`;
}

/** Moves orders to Smaregi, in place; their cancellation becomes the void `cancel`. Returns how many. */
export function addSmaregi(random: Random, events: EventSpec[]): number {
  const refundsOf = new Map<string, EventSpec[]>();
  for (const e of events) if (e.kind === 'refund') refundsOf.set(e.orderId, [...(refundsOf.get(e.orderId) ?? []), e]);
  const moved = new Set<string>();
  for (const e of events) {
    if (e.kind !== 'purchase' || e.source !== 'shopify' || e.customer === null || e.test || !/^\d{1,19}$/.test(e.orderId)) continue;
    const refunds = refundsOf.get(e.orderId) ?? [];
    const voidOnly =
      refunds.length === 0 || (refunds.length === 1 && refunds[0]?.kind === 'refund' && refunds[0].cancel && !refunds[0].orphan);
    if (voidOnly && random.chance(MIX.smaregiShare)) moved.add(e.orderId);
  }
  for (const e of events) {
    if (!moved.has(e.orderId)) continue;
    e.source = 'smaregi';
    e.key = e.key.replace(/^shopify:/, 'smaregi:');
    if (e.kind === 'refund') e.refundId = 'cancel';
  }
  return moved.size;
}

export interface SmaregiChaosAccess {
  url: string;
  contractId: string;
  header: string;
  secret: string;
}

export interface SmaregiRequest {
  path: '/webhooks/smaregi';
  headers: Record<string, string>;
  body: string;
  /** Puts the transaction's state in the stand-in before the delivery. */
  prepare: () => Promise<void>;
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.body?.cancel();
  if (res.status !== 201) throw new Error(`chaos: the Smaregi stand-in answered ${res.status} to ${url}`);
}

/** A one-line sale of `amount` units, tax inside the price (10 % on top of the eligible amount). */
function transaction(id: string, customerId: string | null, amount: number, voided: boolean, at: string, spendPoint = 0) {
  const tax = Math.floor(amount / 10);
  const s = (n: number) => String(n);
  return {
    transactionHeadId: id,
    spendPoint: s(spendPoint),
    transactionDateTime: at,
    transactionHeadDivision: '1',
    cancelDivision: voided ? '1' : '0',
    subtotal: s(amount + tax),
    total: s(amount + tax),
    taxInclude: s(tax),
    customerId,
    updDateTime: at,
    details: [
      {
        transactionDetailId: '1',
        taxDivision: '0',
        unitDiscountedSum: s(amount + tax),
        taxIncludeProportional: s(tax),
        pointNotApplicable: '0',
      },
    ],
  };
}

/** A stable share of the orders (by id), so every delivery of one order agrees. */
const chosen = (orderId: string, every: number, offset: number) => Number(BigInt(orderId) % BigInt(every)) === offset;

/** The money-in (2) or deposit (4) record a sale's webhook also names: the same member and amount, no sale. */
function nonSale(orderId: string, customerId: string | null, amount: number, at: string) {
  const division = chosen(orderId, 2, 0) ? '2' : '4';
  return { ...transaction(`9${orderId}`.slice(0, 20), customerId, amount, false, at), transactionHeadDivision: division };
}

/** Whether the sale is paid partly with points at some delivery (see above): voided later, or delivered more than once (not late-member). */
export function spends(scenario: Scenario, orderId: string): boolean {
  const index = scenario.events.findIndex((e) => e.kind === 'purchase' && e.orderId === orderId);
  const sale = scenario.events[index];
  if (sale?.kind !== 'purchase' || sale.customer === null || sale.amount < 100) return false;
  if (scenario.events.some((e) => e.kind === 'refund' && e.orderId === orderId)) return true;
  const steps = scenario.deliveries.filter((d) => d.event === index).length;
  return steps > 1 && !chosen(orderId, 3, 1);
}

/** The sales of a scenario rung up with a late member, those whose webhook also names a non-sale record, and those paid partly with points. */
export function smaregiTillCases(scenario: Scenario): { lateMembers: string[]; nonSales: string[]; spends: string[] } {
  const sales = scenario.events
    .map((e, index) => ({ e, steps: scenario.deliveries.filter((d) => d.event === index).length }))
    .filter(({ e }) => e.source === 'smaregi' && e.kind === 'purchase');
  return {
    lateMembers: sales.filter(({ e, steps }) => steps > 1 && chosen(e.orderId, 3, 1)).map(({ e }) => e.orderId),
    nonSales: sales.filter(({ e }) => e.customer !== null && chosen(e.orderId, 5, 2)).map(({ e }) => e.orderId),
    spends: sales.filter(({ e }) => spends(scenario, e.orderId)).map(({ e }) => e.orderId),
  };
}

/** The Smaregi side of a run: customers seeded once, each transaction's state only ever moved forward. */
export function createSmaregiSender(access: SmaregiChaosAccess) {
  const voided = new Set<string>();
  /** Sales whose member staff attached late, once attached (the state never goes back). */
  const attached = new Set<string>();
  /** Sales whose points payment staff corrected to none (their last delivery; never goes back). */
  const corrected = new Set<string>();
  /** Each sale's transaction as last put in the stand-in (smaregi-edits.ts lowers it from there). */
  const posted = new Map<string, Record<string, unknown>>();
  return {
    posted: (orderId: string) => posted.get(orderId),
    put: (tx: Record<string, unknown>) => {
      posted.set(String(tx.transactionHeadId), tx);
      return post(`${access.url}/__smaregi/transactions`, tx);
    },
    async seedCustomers(customers: ChaosCustomer[]): Promise<void> {
      // Each record starts with CHAOS_TILL_POINT_SEED points, so the till (strict, as Smaregi) never refuses a
      // spend; the final check compares each record with that seed plus what was mirrored to it.
      for (const c of customers)
        await post(`${access.url}/__smaregi/customers`, {
          customerId: String(c.index + 1),
          customerCode: smaregiCustomerCode(c),
          point: String(CHAOS_TILL_POINT_SEED),
        });
    },
    request(scenario: Scenario, event: EventSpec, step: DeliveryStep, nowMs: number): SmaregiRequest {
      const sale = scenario.events.find((e) => e.kind === 'purchase' && e.orderId === event.orderId);
      const index = scenario.events.indexOf(event);
      const steps = scenario.deliveries.filter((d) => d.event === index);
      const lateSale = event.kind === 'purchase' && steps.length > 1 && chosen(event.orderId, 3, 1);
      const lateMember = lateSale && steps.at(-1) !== step;
      // Attaching the member is an edit: Smaregi sends it as `edited`, with an event id of its own.
      const attaching = lateSale && !lateMember;
      const withNonSale = event.kind === 'purchase' && event.customer !== null && chosen(event.orderId, 5, 2);
      // Correcting the points payment is an edit too, with an event id of its own (never deduplicated away).
      const voidedLater = scenario.events.some((e) => e.kind === 'refund' && e.orderId === event.orderId);
      const correcting = event.kind === 'purchase' && spends(scenario, event.orderId) && !voidedLater && steps.at(-1) === step;
      const body = JSON.stringify({
        contractId: access.contractId,
        event: 'pos:transactions',
        action: event.kind === 'purchase' && !attaching && !correcting ? 'created' : 'edited',
        transactionHeadIds: withNonSale ? [event.orderId, `9${event.orderId}`.slice(0, 20)] : [event.orderId],
      });
      return {
        path: '/webhooks/smaregi',
        headers: {
          'content-type': 'application/json',
          'smaregi-contract-id': access.contractId,
          'smaregi-event-id': attaching ? `${step.deliveryId}-member` : correcting ? `${step.deliveryId}-payment` : step.deliveryId,
          [access.header]: access.secret,
        },
        body,
        prepare: async () => {
          if (event.kind === 'refund') voided.add(event.orderId);
          const amount = sale?.kind === 'purchase' ? sale.amount : 0;
          const customerId = event.customer === null ? null : String(event.customer + 1);
          if (!lateMember) attached.add(event.orderId);
          const member = lateMember && !attached.has(event.orderId) ? null : customerId;
          const at = new Date(nowMs).toISOString();
          if (correcting) corrected.add(event.orderId);
          const spent = spends(scenario, event.orderId) && !corrected.has(event.orderId) ? CHAOS_SPEND_POINTS : 0;
          const tx = transaction(event.orderId, member, amount, voided.has(event.orderId), at, spent);
          posted.set(event.orderId, tx);
          await post(`${access.url}/__smaregi/transactions`, tx);
          if (withNonSale) await post(`${access.url}/__smaregi/transactions`, nonSale(event.orderId, customerId, amount, at));
        },
      };
    },
  };
}

/** Platform API trouble during the run: 429 bursts (Retry-After 0), 503s and every token expired, now and then. */
export function smaregiDisturbance(url: string, random: Random): Disturbance {
  const tally = { tooMany: 0, unavailable: 0, tokenExpiries: 0 };
  const admin = (path: string, body: unknown) => post(`${url}/__smaregi/${path}`, body);
  return {
    name: 'smaregi',
    async beforeDelivery(position) {
      if (position % 7 === 3 && random.chance(0.5)) {
        await admin('faults', { status: 429, times: 2, retry_after: '0' });
        tally.tooMany += 1;
      } else if (position % 11 === 5 && random.chance(0.4)) {
        await admin('faults', { status: 503, times: 4 });
        tally.unavailable += 1;
      } else if (position % 13 === 6) {
        await admin('expire-tokens', {});
        tally.tokenExpiries += 1;
      }
    },
    tick: async () => undefined,
    jumpLimit: () => undefined,
    holdsClock: () => false,
    afterDrain: async () => undefined,
    reportLines: () => [
      `smaregi: ${tally.tooMany} bursts of 429, ${tally.unavailable} of 503, tokens expired ${tally.tokenExpiries} times`,
    ],
  };
}
