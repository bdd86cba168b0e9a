import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { appProxyPath, posSale, redeemThroughAppProxy, shopifyOrderWebhook, squarePayment } from '../../../kit/webhooks/index.js';
import { rotateCommand } from '../../../ops/rotate.js';
import { clearTokenCache } from '../../../shared/openapi/index.js';
import { deliverSmaregi } from '../../../kit/smaregi.js';
import { createOpenApiClient, purchaseMarkerOf, staticCredentials } from './customers-support.js';

/**
 * `npm run rotate` against `npm start`'s stack (no --stage): the handlers read their secrets from the
 * stack's store, so a delivery signed with the old secret and one signed with the new are both
 * accepted during the overlap, and only the new after --retire; the worker keeps crediting while the
 * membership service (the emulator) switches its client secret.
 */
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({});
});
afterAll(async () => {
  await stack.close();
});

const rotate = async (args: string[], secret?: string) => {
  const lines: string[] = [];
  const io = { stdin: Readable.from(secret === undefined ? [] : [`${secret}\n`]), sleep: async () => undefined };
  const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
  const code = await rotateCommand(args, { PORT: new URL(stack.urls.intake).port }, out, io);
  return { code, lines, text: lines.join('\n') };
};
const post = async (r: { path: string; headers: Record<string, string>; body: string }) => {
  const res = await fetch(`${stack.urls.intake}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
  await res.arrayBuffer();
  return res.status;
};

/** Each source: a delivery signed with `secret`, answered with its status. */
const senders: Record<string, (secret: string, n: number) => Promise<number>> = {
  shopify: (secret, n) =>
    post(
      shopifyOrderWebhook(
        'orders/paid',
        'paid',
        {
          orderId: `66000000000${n}`,
          name: `#66${n}`,
          customerId: '560000000009',
          subtotal: '1000',
          tax: '0',
          currency: 'JPY',
          taxesIncluded: true,
        },
        secret,
        `wh-rotate-${n}`,
        Date.now(),
      ),
    ),
  pos: (secret, n) =>
    post(posSale({ receiptId: `r-rotate-${n}`, cardNumber: null, subtotal: '1000', tax: '100', currency: 'JPY' }, secret, Date.now())),
  square: (secret, n) =>
    post(
      squarePayment(
        'payment.created',
        { paymentId: `pay-rotate-${n}`, customerId: null, status: 'COMPLETED', amount: 1000, tip: 0, currency: 'JPY' },
        { key: secret, notificationUrl: stack.squareNotificationUrl },
        `ev-rotate-${n}`,
        Date.now(),
      ),
    ),
  smaregi: async (secret, n) => (await deliverSmaregi(stack, [`90${n}`], { secret })).status,
};
/** The secret each source signs with now (a test that rotates one records its new secret). */
const rotatedTo: Record<string, string> = {};
const current = (source: string): string =>
  rotatedTo[source] ??
  (source === 'smaregi' ? stack.standIns.smaregi.webhookSecret : (stack.webhookSecrets[source as 'shopify' | 'pos' | 'square'][0] ?? ''));

describe('npm run rotate against npm start', () => {
  for (const source of ['shopify', 'pos', 'square', 'smaregi']) {
    it(`accepts ${source} deliveries signed with the old and the new secret during the overlap, and only the new after --retire`, async () => {
      const old = current(source);
      const next = `rotated-${source}-secret-${'x'.repeat(32)}`;
      const send = senders[source]!;
      expect(await send(next, 1)).toBe(401);

      const added = await rotate(['--source', source], next);
      expect(added.code).toBe(0);
      expect(added.lines.at(-1)).toBe(`rotate: ${source} added secrets=2`);
      expect(await send(old, 2)).not.toBe(401);
      expect(await send(next, 3)).not.toBe(401);

      const retired = await rotate(['--source', source, '--retire']);
      expect(retired.lines.at(-1)).toBe(`rotate: ${source} retired secrets=1`);
      rotatedTo[source] = next;
      expect(await send(old, 4)).toBe(401);
      expect(await send(next, 5)).not.toBe(401);
      for (const text of [added.text, retired.text]) {
        expect(text).not.toContain(next);
        expect(text).not.toContain(old);
      }
    });
  }

  it('verifies the App Proxy’s points page and redeem with the rotated Shopify app secret, and only it after --retire', async () => {
    const page = async (secret: string) => {
      const res = await fetch(`${stack.urls.intake}${appProxyPath('points', { customerId: '1001', secret, nowMs: Date.now() })}`, {
        headers: { accept: 'application/json' },
      });
      await res.arrayBuffer();
      return res.status;
    };
    let requests = 0;
    const redeem = async (secret: string) =>
      (
        await redeemThroughAppProxy(stack.urls.intake, {
          customerId: '1001',
          secret,
          nowMs: Date.now(),
          points: 100,
          request: `rotate-req-${++requests}-x`,
        })
      ).status;
    const old = current('shopify');
    const next = `rotated-proxy-secret-${'y'.repeat(32)}`;
    expect(await page(next)).toBe(401);
    expect(await redeem(next)).toBe(401);

    expect((await rotate(['--source', 'shopify'], next)).code).toBe(0);
    expect(await page(old)).toBe(200);
    expect(await page(next)).toBe(200);
    expect(await redeem(next)).not.toBe(401);

    expect((await rotate(['--source', 'shopify', '--retire'])).code).toBe(0);
    rotatedTo.shopify = next;
    expect(await page(old)).toBe(401);
    expect(await redeem(old)).toBe(401);
    expect(await page(next)).toBe(200);
  });

  it('refuses a too-short new secret with the rule, and keeps accepting the current one', async () => {
    const refused = await rotate(['--source', 'pos'], 'too-short');
    expect(refused.code).toBe(2);
    expect(refused.text).toContain('must be at least 32 characters');
    expect(refused.text).not.toContain('too-short');
    expect(await senders.pos!('too-short', 9)).toBe(401);
  });

  it('keeps crediting while the membership service switches the client secret, and retires the old one only after', async () => {
    const login = { ...stack.openApi };
    const admin = createOpenApiClient({ credentials: staticCredentials(login) });
    const member = await admin.registerMember({ external_ids: { shopify: '560000000010' } });
    await admin.close();
    const order = async (orderId: string) => {
      const r = shopifyOrderWebhook(
        'orders/paid',
        'paid',
        { orderId, name: `#${orderId}`, customerId: '560000000010', subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
        current('shopify'),
        `wh-rotate-open-${orderId}`,
        Date.now(),
      );
      return post(r);
    };
    /** Once the worker finished the order (read from the ledger: no login of ours meanwhile), its points. */
    const credited = async (orderId: string) => {
      for (let i = 0; i < 100 && (await stack.ledger.getOrder({ source: 'shopify', orderId }))?.state !== 'done'; i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const api = createOpenApiClient({ credentials: staticCredentials({ ...login, clientSecret: 'rotated-client-secret' }) });
      try {
        const points = (await api.listPoints(member.id, { perPage: 1000 })).points;
        return points.filter((p) => p.remarks === purchaseMarkerOf('shopify', orderId)).map((p) => p.point);
      } finally {
        await api.close();
      }
    };

    const added = await rotate(['--openapi'], 'rotated-client-secret');
    expect(added.lines.at(-1)).toBe('rotate: openapi added secrets=2');
    const early = await rotate(['--openapi', '--retire']);
    expect(early.code).toBe(2);
    expect(early.text).toMatch(/refuses the new client secret/);

    // The service switches this system to the new secret; the old one is refused from now on.
    const patched = await fetch(`${stack.urls.emulator}/__emulator/clients/${login.clientId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_secrets: ['rotated-client-secret'] }),
    });
    expect(patched.status).toBe(200);
    await patched.arrayBuffer();
    clearTokenCache(); // a worker container started after the switch: it must log in again
    expect(await order('670000000001')).toBe(202);
    expect(await credited('670000000001')).toEqual([100]);

    const retired = await rotate(['--openapi', '--retire']);
    expect(retired.code).toBe(0);
    expect(retired.lines.at(-1)).toBe('rotate: openapi retired secrets=1');
    clearTokenCache();
    expect(await order('670000000002')).toBe(202);
    expect(await credited('670000000002')).toEqual([100]);
    expect([added.text, early.text, retired.text].join('\n')).not.toContain('rotated-client-secret');
  });
});
