import { randomUUID } from 'node:crypto';
import { appProxyPath, redeemThroughAppProxy } from '../kit/webhooks/index.js';
import { renderTable, signed } from '../ops/table.js';
import { seed, transaction, webhook } from './smaregi.js';
import type { Customer } from './step.js';
import type { DemoTarget } from './target.js';

/**
 * One balance on both channels (docs/smaregi.md, tillPoints membership): the web shopper also shops at
 * a Smaregi till (their member gets a till code, their Smaregi record the membership balance). A till sale
 * paid partly in points shows on the web points page (the App Proxy's balance); a web redemption shows on
 * the till's record (the relative mirror); at the end both hold the same figure.
 */
export async function bothChannelsDemo(
  target: DemoTarget,
  shopper: Customer,
  runId: number,
  print: (line: string) => void,
  credit: (c: Customer, amount: number) => number,
): Promise<string[]> {
  const access = target.secrets.smaregi;
  const memberId = shopper.memberId ?? '';
  print('');
  if (access?.tillPoints !== 'membership' || !memberId) {
    print('One balance on both channels: skipped (the stack has no Smaregi source with tillPoints membership)');
    return [];
  }
  print(`One balance on both channels: ${shopper.label} spends at a Smaregi till and on the web`);
  const failures: string[] = [];
  const rows: string[][] = [];
  const check = (label: string, ok: boolean, detail: string, delta: number) => {
    rows.push([String(rows.length + 1), label, detail, signed(delta), ok ? 'ok' : 'UNEXPECTED']);
    if (!ok) failures.push(`both channels: ${label}: ${detail}`);
  };
  const member = await target.openapi.getMember(memberId);
  const code = `WEB-${runId}`;
  await target.openapi.updateMember(memberId, { external_ids: { ...(member.external_ids ?? {}), smaregi: code } });
  const customerId = String(9_000 + (runId % 1000));
  await seed(access.url, 'customers', {
    customerId,
    customerCode: code,
    lastName: 'デモ',
    firstName: shopper.label,
    point: String(member.point),
  });
  const web = { customerId: shopper.externalId, secret: target.secrets.shopify };
  const pageBalance = async () => {
    const res = await fetch(`${target.intakeUrl}${appProxyPath('points', { ...web, nowMs: Date.now() })}`, {
      headers: { accept: 'application/json' },
    });
    return Number(((await res.json()) as { balance?: number }).balance);
  };
  const tillPoint = async () => {
    const res = await fetch(`${access.url}/__smaregi/customers/${customerId}`);
    return Number(((await res.json()) as { point?: string }).point);
  };

  // A till sale of ¥5,500 incl. ¥500 tax, 200 of it paid with points: the points paid earn nothing.
  const spent = 200;
  const earned = credit(shopper, 5_000 - spent);
  const sale = `${runId}9`;
  let before = await pageBalance();
  const base = transaction(sale, customerId, 5_500, 500, Date.now());
  await seed(access.url, 'transactions', {
    ...base,
    total: String(5_500 - spent),
    pointDiscount: String(spent),
    spendPoint: String(spent),
    details: [{ ...base.details[0], discountPointProportional: String(spent) }],
  });
  const delivery = webhook(access, 'created', [sale], randomUUID());
  const res = await fetch(`${target.intakeUrl}${delivery.path}`, { method: 'POST', headers: delivery.headers, body: delivery.body });
  await res.arrayBuffer();
  await target.waitForIdle();
  let after = await pageBalance();
  check(
    `till sale ¥5,500 paying ${spent} points: the web points page shows it`,
    after === before - spent + earned,
    `page ${before} -> ${after} (earned ${earned}, spent ${spent})`,
    after - before,
  );

  before = await tillPoint();
  const redeemed = await redeemThroughAppProxy(target.intakeUrl, { ...web, nowMs: Date.now(), points: 100, request: `demo-${runId}-both` });
  // The App Proxy holds no Smaregi access: the worker mirrors the redemption from the queue, moments later.
  after = await tillPointOnceMoved(tillPoint, before);
  check(
    'web redemption of 100 points: the till record shows it',
    redeemed.status === 200 && after === before - 100,
    `till ${before} -> ${after}`,
    after - before,
  );

  const membership = (await target.openapi.getMember(memberId)).point;
  check(
    'the till and the web show one balance',
    after === membership && (await pageBalance()) === membership,
    `till ${after}, membership ${membership}`,
    0,
  );
  for (const line of renderTable(['#', 'step', 'answer', 'points', 'check'], rows, new Set([3]))) print(`  ${line}`);
  return failures;
}

/** The till record's point once it moved from `before` (the worker's mirror), or as it is after 20 s. */
async function tillPointOnceMoved(read: () => Promise<number>, before: number): Promise<number> {
  const until = Date.now() + 20_000;
  let now = await read();
  while (now === before && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    now = await read();
  }
  return now;
}
