import { redeemThroughAppProxy, shopifyOrderWebhook, type ShopifyOrderInput, type WebhookRequest } from '../kit/webhooks/index.js';
import { type SweepResult, sweepRedemptions } from '../shared/redemption/index.js';
import type { ChaosStack } from './stack.js';
import type { Mismatch } from './compare.js';
import type { Disturbance } from './disturbance.js';
import type { EmulatorAdmin, upstreamReader } from './emulator-admin.js';
import { applyRedemptions, type Model } from './model.js';
import type { Random } from './prng.js';
import type { Scenario } from './scenario.js';
import { netReversals } from './reversals.js';
import { tillSpenders } from './smaregi.js';

/**
 * Redemptions in a chaos run (issue 42): once the queue has drained (every balance final, so the model
 * knows what each customer can spend), some members linked through the App Proxy mid-run (links.ts)
 * spend points through the stack's real `POST /proxy/shopify/redeem`, signed as Shopify signs it. Each
 * click meets one disturbance: none, sent twice at once, the deduction's answer lost (the emulator's
 * `reset_after_commit` on the points route), the code's creation failing for all its attempts after the
 * deduction (the Admin API stand-in's `http_503` three times: the protocol has no checkpoint hook, so
 * this is the crash between the deduction and the code), or the code's answer lost. Every click is then
 * pressed again, as the page says. Each code then meets one fate, in turn: `used` by an order Shopify holds
 * whose webhook never reached us (stored in the stand-in with its `discount_codes`: the sweep finds it
 * through Shopify's order search and keeps the points off); `expire`, left to end; `cancelled`, its
 * konbini order created (`orders/create`: reserved) and cancelled before payment (`orders/cancelled`:
 * given back); `late`, its order's `orders/paid` delivered only after the sweep returned the points
 * (a code used around its end: taken again, its own marker). The stack's sweep (`sweepRedemptions`,
 * which `npm start` runs every minute) runs at a moment past the codes' end and grace.
 *
 * The model: a code used or late keeps its points off (-N), a code returned nets 0. The check: per
 * request, exactly one deduction, one give-back for a code returned (expired, cancelled, late) and none
 * for a used one, one claw-back for a late one only; the balances (compare.ts) and the final audit do the rest.
 */

type Trouble = 'none' | 'twice' | 'deduction_lost' | 'code_crash' | 'code_lost';
type Fate = 'used' | 'expire' | 'cancelled' | 'late';
const FATES: Fate[] = ['used', 'expire', 'cancelled', 'late'];
/** How long a webhook of a code's order may take through the stack's queue. */
const IDLE_TIMEOUT_MS = 30_000;
const TROUBLES: Trouble[] = ['none', 'twice', 'deduction_lost', 'code_crash', 'code_lost'];
const JSON_HEADERS = { 'content-type': 'application/json' };
const POINTS_ROUTE = '^/api/ext/users/[^/]+/points$';
/** Customers who redeem, at most; clicks per customer. */
const MAX_CUSTOMERS = 6;
const CLICKS_PER_CUSTOMER = 2;
/** Presses of a click during the run before leaving it to the drain's end; after the drain. */
const IN_RUN_ATTEMPTS = 4;
const AFTER_DRAIN_ATTEMPTS = 10;

interface Click {
  customer: number;
  shopifyId: string;
  points: number;
  request: string;
  trouble: Trouble;
  fate: Fate;
  code?: string;
  firstStatus?: number;
  clicked?: boolean;
  settled?: boolean;
}

export interface RedemptionReport {
  clicks: number;
  byTrouble: Record<Trouble, number>;
  codes: number;
  used: number;
  expired: number;
  /** Codes whose order was created and cancelled before payment; codes whose paid order came after the sweep. */
  cancelled: number;
  late: number;
  notLinked: number;
  /** Clicks whose deduction was left in doubt and ended by the sweep as never run (nothing taken, no code). */
  notRun: number;
  /** Clicks that got their code during the run (the others once the queue had drained). */
  duringRun: number;
  sweep?: SweepResult;
  failures: string[];
}

export interface RedemptionDeps {
  scenario: Scenario;
  model: Model;
  stack: Pick<ChaosStack, 'intakeUrl' | 'shopifyAdminUrl' | 'redemption' | 'clock' | 'isIdle'>;
  admin: EmulatorAdmin;
  /** A reader with a token of its own (the run's token expiries end the older ones). */
  newReader: () => ReturnType<typeof upstreamReader>;
  shopifySecret: string;
  random: Random;
  log: (line: string) => void;
  /** Test only: skip the sweep (then returned codes' points never come back and the run must report mismatches). */
  sweep?: boolean;
}

/** The clicks, from the model alone: each customer spends at most what the model says they hold. */
function planClicks(deps: RedemptionDeps): Click[] {
  const clicks: Click[] = [];
  // Members linked through the App Proxy mid-run, and one shop customer who also spends at a Smaregi till
  // (issue 51: web and till spending of one member, one balance mirrored to the till's record).
  const spenders = tillSpenders(deps.scenario);
  const webAndTill = [...deps.model.customers.values()].find(
    (c) => c.customer.registered && !c.customer.linkLater && spenders.has(c.customer.index) && c.balance >= 100,
  );
  const linked = [...deps.model.customers.values()].filter((c) => c.customer.linkLater === 'app_proxy' && c.balance >= 100);
  const candidates = [...linked.slice(0, MAX_CUSTOMERS - (webAndTill ? 1 : 0)), ...(webAndTill ? [webAndTill] : [])];
  // The fates in turn from a random start: a run with a few codes meets as many fates as it has codes.
  const firstFate = deps.random.int(0, FATES.length - 1);
  for (const expected of candidates.slice(0, MAX_CUSTOMERS)) {
    let left = expected.balance;
    for (let i = 0; i < CLICKS_PER_CUSTOMER && left >= 100; i += 1) {
      const points = 100 * deps.random.int(1, Math.min(3, Math.floor(left / 100)));
      left -= points;
      clicks.push({
        customer: expected.customer.index,
        shopifyId: expected.customer.shopifyId,
        points,
        request: `chaos-${expected.customer.index}-${i}-${deps.random.digits(8)}`,
        trouble: deps.random.pick(TROUBLES),
        fate: FATES[(firstFate + clicks.length) % FATES.length] ?? 'expire',
      });
    }
  }
  return clicks;
}

export function createRedemptionClicks(
  deps: RedemptionDeps,
): Disturbance & { report(): RedemptionReport; check(): Promise<Mismatch[]>; customers(): ReadonlySet<number> } {
  const clicks = planClicks(deps);
  const byCustomer = new Map<number, Click[]>();
  for (const c of clicks) byCustomer.set(c.customer, [...(byCustomer.get(c.customer) ?? []), c]);
  // Each customer's last delivery (and link), and balance before redeeming: from the scenario and the model.
  const lastDelivery = lastDeliveries(deps.scenario, byCustomer);
  const finalBalance = new Map([...byCustomer.keys()].map((i) => [i, deps.model.customers.get(i)?.balance]));
  const report = emptyReport(clicks.length);
  const shopFault = (fault: 'http_503' | 'reset_after_commit', times: number) => armShopFault(deps.stack.shopifyAdminUrl, fault, times);
  const press = (c: Click) => pressClick(deps, c);

  async function click(c: Click): Promise<void> {
    c.clicked = true;
    report.byTrouble[c.trouble] += 1;
    if (c.trouble === 'deduction_lost')
      await deps.admin.addFault({ method: 'POST', path: POINTS_ROUTE, fault: 'reset_after_commit', times: 1 });
    if (c.trouble === 'code_crash') await shopFault('http_503', 3);
    if (c.trouble === 'code_lost') await shopFault('reset_after_commit', 1);
    const answers = await Promise.all([press(c), ...(c.trouble === 'twice' ? [press(c)] : [])]);
    c.firstStatus = answers[0]?.status;
  }

  /**
   * The customer presses again until a code (the page says so after an error; a code already made is
   * answered again): during the run the run's faults may meet these presses too. False: not yet.
   */
  async function settle(c: Click, attempts: number): Promise<boolean> {
    let again = await press(c);
    for (let i = 1; i < attempts && pressEnd(again) === 'again'; i += 1) {
      await waitBeforePressing(deps.stack, again);
      again = await press(c);
    }
    if (pressEnd(again) === 'not_run') {
      // Left in doubt and ended by the sweep past its horizon: nothing taken, no code (checkClicks sees no deduction).
      report.notRun += 1;
      c.settled = true;
      return true;
    }
    if (again.status === 403) {
      // Linked no more (a redaction dropped the shop id): refused before anything, the model holds nothing.
      report.notLinked += 1;
      c.fate = 'expire';
      c.settled = true;
      return true;
    }
    if (again.status !== 200 && attempts < AFTER_DRAIN_ATTEMPTS) return false;
    c.settled = true;
    const code = typeof again.body.code === 'string' ? again.body.code : undefined;
    if (again.status !== 200 || !code) {
      report.failures.push(
        `request ${c.request} (${c.trouble}): pressed again, answered ${again.status} ${JSON.stringify(again.body.error ?? '')}`,
      );
      return true;
    }
    c.code = code;
    report.codes += 1;
    await meetFateOnSettling(deps, report, c, code);
    return true;
  }

  /** During the run: a customer whose events are all delivered and whose balance is already the model's final one clicks now. */
  async function clickIfReady(position: number): Promise<void> {
    for (const [customer, mine] of byCustomer) {
      if (mine.every((c) => c.clicked) || (lastDelivery.get(customer) ?? 0) >= position) continue;
      const first = mine[0];
      if (!first) continue;
      try {
        const member = await deps.newReader().memberByExternalId('shopify', first.shopifyId);
        if (member?.point !== finalBalance.get(customer)) continue;
      } catch {
        continue; // a fault of the run met the read: another time
      }
      for (const c of mine) {
        await click(c);
        if (await settle(c, IN_RUN_ATTEMPTS)) report.duringRun += 1;
      }
    }
  }

  return {
    name: 'redemptions',
    /** The customers who redeem on the web (the till mirror's check counts those who spend at a till too). */
    customers: () => new Set(byCustomer.keys()),
    beforeDelivery: async (position) => {
      if (deps.stack.redemption) await clickIfReady(position);
    },
    tick: async () => undefined,
    jumpLimit: () => undefined,
    holdsClock: () => false,
    afterDrain: async () => {
      const redemption = deps.stack.redemption;
      if (!redemption) {
        report.failures.push('the stack does not redeem (no redemption settings)');
        return;
      }
      for (const c of clicks.filter((k) => !k.clicked)) await click(c);
      await deps.admin.clearFaults();
      for (const c of clicks.filter((k) => !k.settled)) await settle(c, AFTER_DRAIN_ATTEMPTS);
      // The sweep as `npm start` runs it, at a moment past every code's end and its grace.
      const past = Date.now() + (redemption.settings.validSeconds + redemption.settings.graceSeconds + 60) * 1000;
      if (deps.sweep !== false) report.sweep = await sweepRedemptions({ ...redemption, now: () => past });
      // Orders paid around the codes' end whose webhook comes after the sweep gave the points back.
      for (const c of clicks.filter((k) => k.code && k.fate === 'late')) {
        await sendOrder(
          deps,
          report,
          c,
          shopifyOrderWebhook('orders/paid', 'paid', orderOf(c, c.code ?? ''), deps.shopifySecret, `chaos-op-${c.request}`, Date.now()),
        );
      }
      applyFates(deps.model, report, clicks);
      deps.log(`chaos: ${clicks.length} redemption clicks, ${report.codes} codes`);
    },
    reportLines: () => [redemptionLine(report), ...report.failures.map((f) => `  redemption failed: ${f}`)],
    report: () => report,
    check: () => checkClicks(deps, clicks),
  };
}

/**
 * What happens to a fresh code when its click settles: `used` and `cancelled` meet their orders now;
 * `late` waits for the sweep and `expire` for its end (afterDrain).
 */
async function meetFateOnSettling(deps: RedemptionDeps, report: RedemptionReport, c: Click, code: string): Promise<void> {
  if (c.fate === 'used') await useCode(deps, report, c, code);
  if (c.fate === 'cancelled') {
    await sendOrder(
      deps,
      report,
      c,
      shopifyOrderWebhook('orders/create', 'pending', orderOf(c, code), deps.shopifySecret, `chaos-oc-${c.request}`, Date.now()),
    );
    await sendOrder(
      deps,
      report,
      c,
      shopifyOrderWebhook('orders/cancelled', 'pending', orderOf(c, code), deps.shopifySecret, `chaos-ox-${c.request}`, Date.now()),
    );
  }
}

/** Once every fate is met: the points the codes used or late keep off go into the model, and the fates into the report. */
function applyFates(model: Model, report: RedemptionReport, clicks: Click[]): void {
  const held = new Map<number, number>();
  for (const c of clicks.filter((k) => k.code && (k.fate === 'used' || k.fate === 'late'))) {
    held.set(c.customer, (held.get(c.customer) ?? 0) + c.points);
  }
  applyRedemptions(model, held);
  report.used = clicks.filter((c) => c.code && c.fate === 'used').length;
  report.expired = clicks.filter((c) => c.code && c.fate === 'expire').length;
  report.cancelled = clicks.filter((c) => c.code && c.fate === 'cancelled').length;
  report.late = clicks.filter((c) => c.code && c.fate === 'late').length;
}

function emptyReport(clicks: number): RedemptionReport {
  return {
    clicks,
    byTrouble: { none: 0, twice: 0, deduction_lost: 0, code_crash: 0, code_lost: 0 },
    codes: 0,
    used: 0,
    expired: 0,
    cancelled: 0,
    late: 0,
    notLinked: 0,
    notRun: 0,
    duringRun: 0,
    failures: [],
  };
}

/** Each clicking customer's last delivery, or link if later (its position in the delivery order). */
function lastDeliveries(scenario: Scenario, byCustomer: Map<number, Click[]>): Map<number, number> {
  const lastDelivery = new Map<number, number>();
  scenario.deliveries.forEach((d, i) => {
    const customer = scenario.events[d.event]?.customer;
    if (customer !== null && customer !== undefined && byCustomer.has(customer)) lastDelivery.set(customer, i);
  });
  for (const link of scenario.links ?? [])
    if (byCustomer.has(link.customer)) lastDelivery.set(link.customer, Math.max(lastDelivery.get(link.customer) ?? 0, link.at));
  return lastDelivery;
}

/**
 * What the customer waits before pressing again: a moment, and while the deduction is in doubt (503
 * `in_doubt`) the page's Retry-After. The App Proxy's redemption runs on real time (Date.now, as
 * deployed), not on the run's clock, so that wait is real time: a jump of the run's clock alone let
 * every press meet the same doubt within seconds (seed 7: 10 presses, still "press again in 39 s").
 * Only when nothing runs (after the drain): during the run the click is left for then. The run's clock
 * is moved along meanwhile, as far as its late-commit cap allows, for what the worker set aside.
 */
export async function waitBeforePressing(
  stack: Pick<ChaosStack, 'clock' | 'isIdle'>,
  answer: { status: number; body: Record<string, unknown> },
  pause: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<void> {
  const retryAfter = (answer.body.error as { kind?: unknown; retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (answer.status === 503 && typeof retryAfter === 'number' && stack.isIdle()) {
    let left = Math.min((retryAfter + 1) * 1000, PRESS_WAIT_REAL_MAX_MS);
    while (left > 0) {
      const step = Math.min(left, 500);
      if (stack.isIdle()) stack.clock.jump(step);
      await pause(step);
      left -= step;
    }
  }
  await pause(100);
}

/**
 * What a press's answer ends: a code (200), not linked (403), a redemption that never ran (503
 * `code_unavailable` with nothing taken: left in doubt, the sweep found no deduction past its horizon and
 * ended it; the page says to start a new one), or press again (anything else: in doubt, a fault, no answer).
 */
export function pressEnd(answer: { status: number; body: Record<string, unknown> }): 'code' | 'not_linked' | 'not_run' | 'again' {
  if (answer.status === 200) return 'code';
  if (answer.status === 403) return 'not_linked';
  const error = answer.body.error as { kind?: unknown; returned?: unknown } | undefined;
  if (answer.status === 503 && error?.kind === 'code_unavailable' && error.returned === false) return 'not_run';
  return 'again';
}

/** The longest real wait before one press: past the in-doubt horizon (120 s) and the send window. */
const PRESS_WAIT_REAL_MAX_MS = 180_000;

/** Arms a fault of the Admin API stand-in on the code's creation. */
async function armShopFault(shopifyAdminUrl: string | undefined, fault: 'http_503' | 'reset_after_commit', times: number): Promise<void> {
  const res = await fetch(`${shopifyAdminUrl}/__shopify/faults`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ field: 'discountCodeBasicCreate', fault, times }),
  });
  if (res.status !== 201) throw new Error(`chaos: the stand-in refused a fault (${res.status})`);
}

/** One press of the click's redeem button (a lost connection answers status 0). */
function pressClick(deps: RedemptionDeps, c: Click) {
  return redeemThroughAppProxy(deps.stack.intakeUrl, {
    customerId: c.shopifyId,
    secret: deps.shopifySecret,
    nowMs: Date.now(),
    points: c.points,
    request: c.request,
  }).catch((e: unknown) => ({ status: 0, body: { error: (e as Error).message } as Record<string, unknown> }));
}

/** A later Shopify order that carried the code (Shopify counts the use; the sweep marks it used). */
async function useCode(deps: RedemptionDeps, report: RedemptionReport, c: Click, code: string): Promise<void> {
  const order = {
    id: `9${String(c.customer).padStart(4, '0')}${c.request.slice(-8)}`,
    currency: 'JPY',
    created_at: new Date().toISOString(),
    customer: { id: c.shopifyId },
    discount_codes: [{ code }],
    // Goods worth the code and ¥1,000 more: the code's minimum (its value) is met, as Shopify's checkout requires.
    total_line_items_price: String(c.points + 1000),
    total_discounts: String(c.points),
    subtotal_price: '1000',
    total_price: '1000',
  };
  const res = await fetch(`${deps.stack.shopifyAdminUrl}/__shopify/orders`, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify(order),
  });
  if (res.status !== 201) report.failures.push(`request ${c.request}: the order using ${code} was refused (${res.status})`);
}

/** The order naming the code: paid entirely by it (nothing to earn), one line. */
function orderOf(c: Click, code: string): ShopifyOrderInput {
  const id = `8${String(c.customer).padStart(4, '0')}${c.request.slice(-8)}`;
  return {
    orderId: id,
    name: `#${id}`,
    customerId: c.shopifyId,
    subtotal: '0',
    tax: '0',
    currency: 'JPY',
    taxesIncluded: true,
    discountCodes: [{ code, amount: String(c.points) }],
  };
}

/** A signed webhook of the code's order to the stack's intake, then its queue drained. */
async function sendOrder(deps: RedemptionDeps, report: RedemptionReport, c: Click, w: WebhookRequest): Promise<void> {
  const res = await fetch(`${deps.stack.intakeUrl}${w.path}`, { method: 'POST', headers: w.headers, body: w.body }).catch(() => undefined);
  await res?.arrayBuffer();
  if (res?.status !== 202) report.failures.push(`request ${c.request}: the order's webhook was answered ${res?.status ?? 'nothing'}`);
  const until = Date.now() + IDLE_TIMEOUT_MS;
  while (!deps.stack.isIdle() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
}

/** Per request: exactly one deduction and one give-back for a returned code, none for a used one. */
async function checkClicks(deps: RedemptionDeps, clicks: Click[]): Promise<Mismatch[]> {
  const mismatches: Mismatch[] = [];
  const histories = new Map<number, { id: string; point: number; remarks: string | null }[]>();
  const reader = deps.newReader();
  for (const c of clicks) {
    if (!histories.has(c.customer)) {
      const member = await reader.memberByExternalId('shopify', c.shopifyId);
      // After the final audit's reversals: a doubled deduction it reversed counts once (reversals.ts).
      histories.set(c.customer, member ? netReversals(await reader.history(member.id)).standing : []);
    }
    const history = histories.get(c.customer) ?? [];
    const count = (kind: string) =>
      history.filter((e) => e.remarks === `lp1:shopify:${kind}:${encodeURIComponent(c.shopifyId)}:${c.request}`).length;
    const deducted = count('redeem');
    const returned = count('redeem-return');
    const clawedBack = count('redeem-clawback');
    const want = c.code
      ? { deducted: 1, returned: c.fate === 'used' ? 0 : 1, clawedBack: c.fate === 'late' ? 1 : 0 }
      : { deducted: 0, returned: 0, clawedBack: 0 };
    if (deducted !== want.deducted || returned !== want.returned || clawedBack !== want.clawedBack) {
      mismatches.push({
        customer: c.customer,
        what: `redemption ${c.request} (${c.points} points, ${c.trouble}, ${c.code ? c.fate : 'no code'}): deducted ${deducted}, returned ${returned}, taken again ${clawedBack}, expected ${want.deducted}, ${want.returned} and ${want.clawedBack}`,
      });
    }
  }
  return mismatches;
}

/** The report line: `  redemptions: clicks=… codes=… used=… returned=… …`. */
export function redemptionLine(r: RedemptionReport): string {
  const t = r.byTrouble;
  const s = r.sweep;
  return (
    `  redemptions: clicks=${r.clicks} codes=${r.codes} during_run=${r.duringRun} used=${r.used} expired=${r.expired} cancelled=${r.cancelled} late=${r.late} not_linked=${r.notLinked} not_run=${r.notRun} ` +
    `twice=${t.twice} deduction_lost=${t.deduction_lost} code_crash=${t.code_crash} code_lost=${t.code_lost} ` +
    `sweep_returned=${s?.returned ?? 0} sweep_used=${s?.used ?? 0} sweep_failed=${s?.failed ?? 0} sweep_later=${s?.later ?? 0} failures=${r.failures.length}`
  );
}
