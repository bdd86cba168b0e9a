import { renderTable, signed } from '../ops/table.js';
import { redeemThroughAppProxy, shopifyOrderWebhook } from '../kit/webhooks/index.js';
import type { Customer } from './step.js';
import type { DemoTarget } from './target.js';

/**
 * Points spent (docs/redemption.md), as the logged-in customer's browser does it through the App Proxy:
 * points become a single-use discount code, the same click again answers the same code, an order using
 * the code marks it used and earns on what was paid, a code on an order cancelled before payment (konbini)
 * comes back, and a code left unused comes back when it ends
 * (the sweep). The last step needs a short validity: the demo's own stack runs with 10 seconds; against
 * an `npm start` with a longer one it is said and not waited for.
 */

const SEED = 1000;

async function sweepNow(intakeUrl: string): Promise<string> {
  const res = await fetch(`${intakeUrl}/__local/redemptions/sweep`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const body = (await res.json()) as { summary?: string; error?: string };
  return body.summary ?? body.error ?? `HTTP ${res.status}`;
}

/**
 * A konbini order using `code` (200 points), created then cancelled before payment, each webhook let run
 * to idle; answers how many of the two were accepted (202).
 */
async function konbiniCreatedThenCancelled(target: DemoTarget, shopper: Customer, runId: number, code: string): Promise<number> {
  const konbini = {
    orderId: `78${runId}`,
    name: `#K${runId % 100_000}`,
    customerId: shopper.externalId,
    subtotal: '0',
    tax: '0',
    currency: 'JPY',
    taxesIncluded: true,
    discountCodes: [{ code, amount: '200' }],
  };
  let answers = 0;
  for (const [topic, id] of [
    ['orders/create', 'r5'],
    ['orders/cancelled', 'r6'],
  ] as const) {
    const w = shopifyOrderWebhook(topic, 'pending', konbini, target.secrets.shopify, `demo-${runId}-${id}`, Date.now());
    const sent = await fetch(`${target.intakeUrl}${w.path}`, { method: 'POST', headers: w.headers, body: w.body });
    await sent.arrayBuffer();
    if (sent.status === 202) answers += 1;
    await target.waitForIdle();
  }
  return answers;
}

export async function redemptionDemo(
  target: DemoTarget & { redemptionValidSeconds?: number | undefined },
  shopper: Customer,
  runId: number,
  print: (line: string) => void,
  /** The points an order of this amount earns the customer (the demo's exact calculation). */
  credit: (c: Customer, amount: number) => number,
): Promise<string[]> {
  const failures: string[] = [];
  const memberId = shopper.memberId ?? '';
  const balance = async () => (await target.openapi.getMember(memberId)).point;
  const rows: string[][] = [];
  const check = (label: string, ok: boolean, detail: string, delta: number) => {
    rows.push([String(rows.length + 1), label, detail, signed(delta), ok ? 'ok' : 'UNEXPECTED']);
    if (!ok) failures.push(`redemption: ${label}: ${detail}`);
  };
  print('');
  print(`Redemption: customer ${shopper.label} (shopify ${shopper.externalId}) spends points as a discount code`);
  await target.openapi.grantPoints(memberId, { point: SEED, title: 'demo: points to spend' });
  const redeem = (points: number, request: string) =>
    redeemThroughAppProxy(target.intakeUrl, {
      customerId: shopper.externalId,
      secret: target.secrets.shopify,
      nowMs: Date.now(),
      points,
      request,
    });

  let before = await balance();
  const first = await redeem(500, `demo-${runId}-r1`);
  const code = String(first.body.code ?? '');
  check(
    'redeem 500 points (App Proxy POST)',
    first.status === 200 && (await balance()) === before - 500,
    `${first.status} ${code} ${String(first.body.value)} ${String(first.body.currency)}`,
    (await balance()) - before,
  );

  before = await balance();
  const again = await redeem(500, `demo-${runId}-r1`);
  check(
    'the same click again',
    again.status === 200 && again.body.code === code && (await balance()) === before,
    `${again.status} same code: ${again.body.code === code}`,
    (await balance()) - before,
  );

  before = await balance();
  const order = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    {
      orderId: `77${runId}`,
      name: `#R${runId % 100_000}`,
      customerId: shopper.externalId,
      subtotal: '9500',
      tax: '0',
      currency: 'JPY',
      taxesIncluded: true,
      discountCodes: [{ code, amount: '500' }],
    },
    target.secrets.shopify,
    `demo-${runId}-r2`,
    Date.now(),
  );
  const res = await fetch(`${target.intakeUrl}${order.path}`, { method: 'POST', headers: order.headers, body: order.body });
  await res.arrayBuffer();
  await target.waitForIdle();
  const earned = credit(shopper, 9500);
  check(
    `orders/paid ¥9,500 using ${code}: the code is used, the order earns`,
    res.status === 202 && (await balance()) === before + earned,
    `${res.status}`,
    (await balance()) - before,
  );

  before = await balance();
  const reserved = await redeem(200, `demo-${runId}-r4`);
  const answers = await konbiniCreatedThenCancelled(target, shopper, runId, String(reserved.body.code ?? ''));
  check(
    `a 200-point code on a konbini order (orders/create), cancelled before payment: the points come back`,
    reserved.status === 200 && answers === 2 && (await balance()) === before,
    `${reserved.status} ${String(reserved.body.code)}`,
    (await balance()) - before,
  );

  before = await balance();
  const unused = await redeem(100, `demo-${runId}-r3`);
  check(
    'redeem 100 points, code left unused',
    unused.status === 200 && (await balance()) === before - 100,
    `${unused.status} ${String(unused.body.code)}`,
    (await balance()) - before,
  );
  const valid = target.redemptionValidSeconds;
  if (valid !== undefined && valid <= 30) {
    await new Promise((r) => setTimeout(r, (valid + 1) * 1000));
    before = await balance();
    const summary = await sweepNow(target.intakeUrl);
    check(`after ${valid} s, the sweep ends the unused code`, (await balance()) === before + 100, summary, (await balance()) - before);
  } else {
    print(`  (the unused code's 100 points come back when it ends, ${valid ?? '?'} s after it was made: the sweep runs every minute)`);
  }
  for (const line of renderTable(['#', 'step', 'answer', 'points', 'check'], rows, new Set([3]))) print(`  ${line}`);
  return failures;
}
