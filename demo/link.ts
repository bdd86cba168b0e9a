import { linkThroughAppProxy, shopifyOrderWebhook } from '../kit/webhooks/index.js';
import type { Customer, Step } from './step.js';
import type { DemoTarget } from './target.js';

/**
 * A member linking their shop account, as the membership system's link button and Shopify's App Proxy
 * do it: the shop customer buys before being linked (customer_not_found, nothing earned), then the
 * signed App Proxy requests with a handover token (a confirmation, then the confirmed POST) link them
 * and the past order is credited once; the
 * same link again, and the order delivered again, add nothing.
 */

/** A single-use handover token the emulator issues for the member (its admin route, as the membership system would). */
async function handoverToken(target: DemoTarget, memberId: string): Promise<string> {
  const clientId = target.emulatorConfig.clients[0]?.client_id ?? '';
  const res = await fetch(`${target.emulatorUrl}/__emulator/clients/${encodeURIComponent(clientId)}/handover-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ member_id: memberId, ttl_seconds: 600 }),
  });
  if (res.status !== 201) {
    await res.body?.cancel();
    throw new Error(`the emulator at ${target.emulatorUrl} issued no handover token (${res.status})`);
  }
  return ((await res.json()) as { token: string }).token;
}

/**
 * The App Proxy's forwarded requests of the storefront's link URL, as the logged-in customer makes them:
 * the GET's confirmation, then the POST that confirms it (two steps: a link opened by another site's page
 * stops at the confirmation).
 */
function linkRequest(target: DemoTarget, customer: Customer, token: string): Promise<{ status: number; body: string }> {
  return linkThroughAppProxy(target.intakeUrl, {
    customerId: customer.externalId,
    member: customer.memberId ?? '',
    token,
    secret: target.secrets.shopify,
    nowMs: Date.now(),
  });
}

export function linkSteps(member: Customer, credit: number, target: DemoTarget, orderId: string, runId: number, now: number): Step[] {
  const name = `#L${runId % 100_000}`;
  const order = { orderId, name, customerId: member.externalId, subtotal: '5000', tax: '500', currency: 'JPY' };
  const secret = target.secrets.shopify;
  const record = { source: 'shopify', orderId };
  const paid = shopifyOrderWebhook('orders/paid', 'paid', order, secret, `demo-${runId}-l1`, now);
  let token: string | undefined;
  const link = async () => {
    token ??= await handoverToken(target, member.memberId ?? '');
    return linkRequest(target, member, token);
  };
  return [
    {
      customer: member,
      label: `Shopify orders/paid ${name} ¥5,000, shop account not linked yet`,
      request: paid,
      record,
      expected: { kind: 'customer_not_found' },
    },
    {
      customer: member,
      label: 'App Proxy link (handover token, confirmed): past order credited',
      request: paid,
      send: link,
      record,
      expected: { kind: 'linked', changed: true, points: credit },
    },
    {
      customer: member,
      label: 'same link again',
      request: paid,
      send: link,
      record,
      expected: { kind: 'linked', changed: false, points: 0 },
    },
    {
      customer: member,
      label: 'the past order delivered again (new webhook id)',
      request: shopifyOrderWebhook('orders/paid', 'paid', order, secret, `demo-${runId}-l2`, now),
      record,
      expected: { kind: 'duplicate' },
    },
  ];
}
