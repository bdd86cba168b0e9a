import type { EmulatorConfig } from '../stand-ins/openapi/index.js';
import type { Ledger, OrderRecord, RefundRecord } from '../shared/ledger/index.js';
import { isOpenApiError, type OpenApiClient } from '../shared/openapi/index.js';
import { renderTable, signed } from '../ops/table.js';
import type { WebhookRequest } from '../kit/webhooks/index.js';
import { bigId, buildSteps, type Customer, squareDemoOrder, type Step } from './steps.js';
import { bothChannelsDemo } from './both-channels.js';
import { redemptionDemo } from './redemption.js';
import type { DemoTarget } from './target.js';

export type { DemoTarget } from './target.js';

export interface DemoResult {
  ok: boolean;
  failures: string[];
  customers: { label: string; memberId: string | null; before: number | null; after: number | null }[];
  /** Sources (`shopify`, `pos`) whose webhooks signed with `secrets` were refused 401: the stack holds other secrets. */
  signatureRefused: string[];
}

interface Observed {
  status: number;
  outcome: string;
  delta: number | null;
  balance: number | null;
  ok: boolean;
  why?: string;
}

/** floor(amount x rate) with the rate read as the decimal it is written as (no binary rounding). */
export function expectedPoints(amount: number, rate: string): number {
  const [whole = '0', fraction = ''] = rate.split('.');
  const scaled = BigInt(whole + fraction);
  return Number((BigInt(amount) * scaled) / 10n ** BigInt(fraction.length));
}

async function findCustomers(
  api: OpenApiClient,
  config: EmulatorConfig,
): Promise<{
  shopper: Customer;
  walkIn: Customer;
  decimalShopper: Customer | undefined;
  japanShopper: Customer | undefined;
  squareBuyer: Customer | undefined;
  smaregiBuyer: Customer | undefined;
}> {
  const ranks = config.clients[0]?.ranks ?? {};
  const rateOf = (rank: string | null | undefined) => (rank && rank in ranks ? String(ranks[rank]) : null);
  let shopper: Customer | undefined;
  let walkIn: Customer | undefined;
  // A third Shopify customer for the decimal-currency refunds: the one with the highest rate.
  let decimalShopper: Customer | undefined;
  // A fourth, of the same highest rate, for the tax-inclusive (Japanese) order and its partial refunds.
  let japanShopper: Customer | undefined;
  let squareBuyer: Customer | undefined;
  let smaregiBuyer: Customer | undefined;
  const list = await api.listMembers({ perPage: 1000 });
  for (const item of list.members) {
    const member = await api.getMember(item.id);
    const ids = member.external_ids ?? {};
    const name = member.login_id || member.unique_id || member.id;
    if (!smaregiBuyer && ids.smaregi && !ids.shopify && !ids.pos_card) {
      smaregiBuyer = { label: name, memberId: member.id, externalKey: 'smaregi', externalId: ids.smaregi, rate: rateOf(member.rank) };
    }
    if (!squareBuyer && ids.square && !ids.shopify && !ids.pos_card) {
      squareBuyer = { label: name, memberId: member.id, externalKey: 'square', externalId: ids.square, rate: rateOf(member.rank) };
    }
    if (!shopper && ids.shopify) {
      shopper = { label: name, memberId: member.id, externalKey: 'shopify', externalId: ids.shopify, rate: rateOf(member.rank) };
    } else if (!walkIn && ids.pos_card) {
      walkIn = { label: name, memberId: member.id, externalKey: 'pos_card', externalId: ids.pos_card, rate: rateOf(member.rank) };
    } else if (ids.shopify && rateOf(member.rank) !== null && Number(rateOf(member.rank)) > Number(decimalShopper?.rate ?? -1)) {
      decimalShopper = { label: name, memberId: member.id, externalKey: 'shopify', externalId: ids.shopify, rate: rateOf(member.rank) };
      japanShopper = undefined;
    } else if (!japanShopper && ids.shopify && decimalShopper && rateOf(member.rank) === decimalShopper.rate) {
      japanShopper = { label: name, memberId: member.id, externalKey: 'shopify', externalId: ids.shopify, rate: rateOf(member.rank) };
    }
  }
  if (!shopper || !walkIn) {
    throw new Error('the demo needs two customers: one with a `shopify` external id and another with a `pos_card` one');
  }
  return { shopper, walkIn, decimalShopper, japanShopper, squareBuyer, smaregiBuyer };
}

async function balanceOf(api: OpenApiClient, c: Customer): Promise<number | null> {
  if (c.memberId === null) return null;
  // By member id: the linking member holds no external id until the link step.
  return (await api.getMember(c.memberId)).point;
}

/** Where a customer's balance must end: what the script credits (directly or by linking) less what it debits. */
function expectedEnd(before: number | null, steps: Step[]): number | null {
  if (before === null) return null;
  let sum = before;
  for (const { expected: e } of steps) {
    if (e.kind === 'credited' || e.kind === 'linked' || e.kind === 'moved') sum += e.points;
    if (e.kind === 'debited') sum -= e.points;
  }
  return sum;
}

/** A member of the service's default rank with no shop account yet: the one the demo links. */
async function registerLinkingMember(api: OpenApiClient, config: EmulatorConfig, runId: number): Promise<Customer> {
  const member = await api.registerMember({});
  const ranks = config.clients[0]?.ranks ?? {};
  const rate = member.rank && member.rank in ranks ? String(ranks[member.rank]) : null;
  const label = member.login_id || member.unique_id || member.id;
  return {
    label: `member ${label}, shop account not linked`,
    memberId: member.id,
    externalKey: 'shopify',
    externalId: bigId(13n, runId),
    rate,
  };
}

async function putSquareOrder(url: string, order: unknown): Promise<void> {
  const res = await fetch(`${url}/__square/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(order),
  });
  await res.body?.cancel();
  if (res.status !== 201) throw new Error(`the Square Orders stand-in at ${url} refused the demo's order (${res.status})`);
}

/** An id beyond 2^53, so a reader that parses Shopify ids as doubles would visibly get them wrong. */
async function post(baseUrl: string, request: WebhookRequest): Promise<{ status: number; body: string }> {
  const res = await fetch(`${baseUrl}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  return { status: res.status, body: await res.text() };
}

async function readRecord(ledger: Ledger, ref: Step['record']): Promise<OrderRecord | RefundRecord | undefined> {
  return ref.refundId === undefined
    ? ledger.getOrder({ source: ref.source, orderId: ref.orderId })
    : ledger.getRefund({ source: ref.source, orderId: ref.orderId, refundId: ref.refundId });
}

function recordOutcome(record: OrderRecord | RefundRecord | undefined): string {
  if (record === undefined) return 'no ledger record';
  return record.outcome ?? record.state;
}

async function runStep(target: DemoTarget, step: Step): Promise<Observed> {
  const before = await balanceOf(target.openapi, step.customer);
  const queueBefore = await target.queueStats();
  await step.prepare?.();
  const recordBefore = await readRecord(target.ledger, step.record);
  const { status, body } = await (step.send ?? (() => post(target.intakeUrl, step.request)))();
  await target.waitForIdle();
  const queueAfter = await target.queueStats();
  const record = await readRecord(target.ledger, step.record);
  const balance = await balanceOf(target.openapi, step.customer);
  const delta = before === null || balance === null ? null : balance - before;

  let outcome: string;
  if (status >= 400) outcome = `rejected (${status})`;
  else if (step.send) outcome = linkOutcome(body);
  else if (status === 200) outcome = 'ignored (200): moves no points';
  else if (queueAfter.deduplicated > queueBefore.deduplicated) outcome = 'dropped by the queue (same delivery id)';
  else if (recordBefore !== undefined && JSON.stringify(recordBefore) === JSON.stringify(record))
    outcome = 'duplicate: ledger already done, no call';
  else outcome = recordOutcome(record);

  const e = step.expected;
  const problems: string[] = [];
  const want = (cond: boolean, why: string) => {
    if (!cond) problems.push(why);
  };
  switch (e.kind) {
    case 'credited':
    case 'debited': {
      const sign = e.kind === 'credited' ? 1 : -1;
      want(status === 202, `HTTP ${status}, expected 202`);
      want(outcome === e.kind, `outcome ${outcome}, expected ${e.kind}`);
      want(delta === sign * e.points, `balance moved ${delta ?? '?'}, expected ${signed(sign * e.points)}`);
      break;
    }
    case 'moved':
      want(status === 202, `HTTP ${status}, expected 202`);
      want(outcome === e.outcome, `outcome ${outcome}, expected ${e.outcome}`);
      want(delta === e.points, `balance moved ${delta ?? '?'}, expected ${signed(e.points)}`);
      break;
    case 'dropped_by_queue':
      want(status === 202, `HTTP ${status}, expected 202 (the sender must stop retrying)`);
      want(outcome.startsWith('dropped by the queue'), `outcome ${outcome}, expected the queue to drop it`);
      want(delta === 0, `balance moved ${delta ?? '?'}, expected 0`);
      break;
    case 'duplicate':
      want(status === 202, `HTTP ${status}, expected 202`);
      want(outcome.startsWith('duplicate'), `outcome ${outcome}, expected a duplicate`);
      want(delta === 0, `balance moved ${delta ?? '?'}, expected 0`);
      break;
    case 'ignored':
      want(status === 200, `HTTP ${status}, expected 200 ignored`);
      want(queueAfter.sent === queueBefore.sent, 'an ignored delivery reached the queue');
      want(delta === 0, `balance moved ${delta ?? '?'}, expected 0`);
      break;
    case 'skipped':
      want(status === 202, `HTTP ${status}, expected 202`);
      want(outcome === 'skipped', `outcome ${outcome}, expected skipped`);
      want(delta === 0, `balance moved ${delta ?? '?'}, expected 0`);
      break;
    case 'customer_not_found':
      want(status === 202, `HTTP ${status}, expected 202`);
      want(outcome === 'customer_not_found', `outcome ${outcome}, expected customer_not_found`);
      break;
    case 'linked':
      want(status === 200, `HTTP ${status}, expected 200 linked`);
      want(outcome === `linked${e.changed ? '' : ' already'}`, `outcome ${outcome}, expected linked${e.changed ? '' : ' already'}`);
      want(delta === e.points, `balance moved ${delta ?? '?'}, expected ${signed(e.points)}`);
      want(record?.outcome === 'credited', `the earlier order ended ${recordOutcome(record)}, expected credited`);
      break;
    case 'rejected':
      want(status === e.status, `HTTP ${status}, expected ${e.status}`);
      want(record === undefined, 'a ledger record was written for a rejected request');
      want(queueAfter.sent === queueBefore.sent, 'a rejected request reached the queue');
      want(delta === 0, `balance moved ${delta ?? '?'}, expected 0`);
      break;
  }
  return { status, outcome, delta, balance, ok: problems.length === 0, ...(problems.length > 0 ? { why: problems.join('; ') } : {}) };
}

/** The App Proxy's JSON answer: `linked` (now) or `linked already` (nothing changed). */
function linkOutcome(body: string): string {
  try {
    const answer = JSON.parse(body) as { status?: string; changed?: boolean };
    if (answer.status === 'linked') return answer.changed ? 'linked' : 'linked already';
    return `answered ${answer.status ?? body}`;
  } catch {
    return `answered ${body.slice(0, 60)}`;
  }
}

function describeRecord(record: OrderRecord | RefundRecord | undefined): string {
  if (record === undefined) return '(none)';
  if (record.kind === 'refund') return `${record.pk}: ${record.state}, ${record.outcome ?? '-'}, debited ${record.pointsDebited ?? 0}`;
  const parts = [
    `${record.pk}: ${record.state}`,
    `outcome ${record.outcome ?? '-'}`,
    `eligible ${record.eligibleExact ?? record.eligibleAmount ?? '-'} ${record.currency ?? ''}`.trimEnd(),
    ...(record.outcome === 'credited'
      ? [
          `credited ${record.pointsCredited ?? record.pointsHint ?? 0}${record.pointsExact ? '' : ' (balance hint)'}`,
          `refunded ${record.refundedExact ?? record.refundedSoFar}`,
          `debited ${record.debited}`,
          `refunds [${Object.keys(record.refunds).join(', ')}]`,
        ]
      : []),
    // A till's points spent (Smaregi tillPoints membership): the points it took, and any shortfall.
    ...(record.outcome === 'debited' || record.outcome === 'insufficient_points'
      ? [`points ${record.pointsCredited ?? 0}`, ...(record.shortfall ? [`shortfall ${record.shortfall}`] : [])]
      : []),
    `attempts ${record.attempts}`,
  ];
  return parts.join(', ');
}

/**
 * The demo scenario: signed Shopify and POS webhooks (a purchase, a duplicate delivery, a duplicate
 * event, a partial and a full refund, a POS sale and full return, an unknown customer, a forged
 * signature), one at a time, each checked against what it must do to the balance and the ledger.
 */
export async function runDemo(target: DemoTarget, print: (line: string) => void = console.log): Promise<DemoResult> {
  const { shopper, walkIn, decimalShopper, japanShopper, squareBuyer, smaregiBuyer } = await findCustomers(
    target.openapi,
    target.emulatorConfig,
  );
  const unknownId = '9007199254740993';
  try {
    await target.openapi.getMemberByExternalId('shopify', unknownId);
    throw new Error(`shopify customer ${unknownId} is a member: the unknown-customer step needs it not to be`);
  } catch (e) {
    if (!isOpenApiError(e) || e.kind !== 'member_not_found') throw e;
  }
  const unknown: Customer = { label: 'not a member', memberId: null, externalKey: 'shopify', externalId: unknownId, rate: null };
  const credit = (c: Customer, amount: number) => (c.rate === null ? 0 : expectedPoints(amount, c.rate));
  const runId = Date.now() % 1_000_000_000_000;
  const linker = await registerLinkingMember(target.openapi, target.emulatorConfig, runId);
  const all = { shopper, walkIn, unknown, decimalShopper, japanShopper, squareBuyer, smaregiBuyer, linker };
  const steps = buildSteps(all, credit, target, runId);

  // Square's till keeps the sale's order: the worker reads it on the `subtotal_excluding_tax` basis.
  if (squareBuyer && target.secrets.square && target.squareOrders) await putSquareOrder(target.squareOrders.url, squareDemoOrder(runId));
  const failures: string[] = [];
  const summaries: DemoResult['customers'] = [];
  const refused = new Set<string>();
  for (const customer of [
    shopper,
    walkIn,
    ...(decimalShopper ? [decimalShopper] : []),
    ...(japanShopper ? [japanShopper] : []),
    ...(squareBuyer && target.secrets.square ? [squareBuyer] : []),
    ...(smaregiBuyer && target.secrets.smaregi ? [smaregiBuyer] : []),
    unknown,
    linker,
  ]) {
    const mine = steps.filter((s) => s.customer === customer);
    const before = await balanceOf(target.openapi, customer);
    const rank = customer.rate === null ? '' : `, rate ${customer.rate}`;
    print('');
    print(`Customer ${customer.label} (${customer.externalKey} ${customer.externalId}${rank})`);
    print(`  balance before: ${before ?? '-'}`);
    const rows: string[][] = [];
    for (const [i, step] of mine.entries()) {
      const o = await runStep(target, step);
      if (o.status === 401 && step.expected.kind !== 'rejected') refused.add(step.record.source);
      rows.push([
        String(i + 1),
        step.label,
        String(o.status),
        o.outcome,
        o.delta === null ? '-' : signed(o.delta),
        o.balance === null ? '-' : String(o.balance),
        o.ok ? 'ok' : 'UNEXPECTED',
      ]);
      if (!o.ok) failures.push(`${customer.label}: ${step.label}: ${o.why}`);
    }
    for (const line of renderTable(['#', 'event', 'HTTP', 'outcome', 'points', 'balance', 'check'], rows, new Set([2, 4, 5]))) {
      print(`  ${line}`);
    }
    const after = await balanceOf(target.openapi, customer);
    const expectedAfter = expectedEnd(before, mine);
    print(`  balance after: ${after ?? '-'}${after === expectedAfter ? '' : ` (expected ${expectedAfter})`}`);
    if (after !== expectedAfter) failures.push(`${customer.label}: balance ended at ${after}, expected ${expectedAfter}`);
    const orderRefs = [...new Map(mine.filter((s) => s.expected.kind !== 'rejected').map((s) => [s.record.orderId, s.record])).values()];
    for (const ref of orderRefs) {
      print(`  ledger ${describeRecord(await target.ledger.getOrder({ source: ref.source, orderId: ref.orderId }))}`);
    }
    summaries.push({ label: customer.label, memberId: customer.memberId, before, after });
  }
  if (target.redemptionValidSeconds !== undefined) failures.push(...(await redemptionDemo(target, shopper, runId, print, credit)));
  if (target.redemptionValidSeconds !== undefined) failures.push(...(await bothChannelsDemo(target, shopper, runId, print, credit)));
  print('');
  if (failures.length === 0) print(`demo: all ${steps.length} events did what they should`);
  else for (const f of failures) print(`demo: UNEXPECTED ${f}`);
  return { ok: failures.length === 0, failures, customers: summaries, signatureRefused: [...refused] };
}
