import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { shopifyRefundCreate } from '../../../kit/webhooks/index.js';
import { createManualClock, handleOf, type LocalStack, type LocalStackHandle, startLocalStack } from '../../../local/index.js';
import { poisonDeferralSeconds } from '../../../shared/config/index.js';
import { type ConfiguredSource, loadSources } from '../../../shared/sources/index.js';
import { findBrowser } from '../../support/browser.js';
import { deliverShopifyOrder } from '../../support/local-stack.js';
import { depsFromEnv as auditDepsFromEnv, makeHandler as makeAuditHandler } from '../../../functions/audit-ledger.js';

/**
 * The operator console in a real browser (Chromium or Chrome, headless) after real traffic through
 * `npm start`'s stack: a credited Shopify order and its refund, a quarantined delivery replayed from
 * the page, a dead letter redriven from the page. The screenshot in docs/console.md is taken here.
 */
/** The page's one global the browser-side functions below use (this project compiles without the DOM lib). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null }>;
  body: { textContent: string | null };
};

// CHROMIUM_PATH, else chromium, chromium-browser or google-chrome on PATH (test/support/browser.ts).
const CHROMIUM = findBrowser();
// Taken on every run; written over the committed docs/console.png only when asked (UPDATE_SCREENSHOT=1),
// so that `npm test` leaves the work tree as it found it.
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOT === '1' ? new URL('../../../docs/console.png', import.meta.url) : join(tmpdir(), 'console-test.png');

describe('the operator console in headless Chromium', () => {
  const clock = createManualClock(Date.now());
  // Shopify amounts under the `minor` rule: an order beyond 999999999 units cannot be mapped (quarantined)
  // until the "fix" (major_floor) is deployed, as in the quarantine CLI's test.
  const sources = new Map<string, ConfiguredSource>(loadSources('{"shopify":{"amount":{"rule":"minor"}}}'));
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let browser: Browser;
  let page: Page;
  let consoleUrl = '';
  const secret = () => stack.webhookSecrets.shopify[0]!;
  const post = async (request: { path: string; headers: Record<string, string>; body: string }) => {
    const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  };
  const emulatorClient = async (contracted: boolean) => {
    const res = await fetch(`${stack.urls.emulator}/__emulator/clients/${stack.openApi.clientId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contracted }),
    });
    expect(res.status).toBe(200);
  };
  const pageText = () => page.evaluate(() => document.body.textContent);
  const waitForText = (text: string, selector = 'body') =>
    page.waitForFunction((t, s) => document.querySelector(s)?.textContent?.includes(t) ?? false, { timeout: 15_000 }, text, selector);
  // The page redraws its tables every poll: find and click in one step, so the node cannot be replaced in between.
  const click = (selector: string) => page.$eval(selector, (node) => (node as unknown as { click(): void }).click());
  const pointsOf = async (externalId: string) => (await handle.openapi.getMemberByExternalId('shopify', externalId)).point;

  beforeAll(async () => {
    stack = await startLocalStack({
      emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH),
      receiveOverrides: { sources },
      queue: { clock, visibilityTimeoutMs: 5_000, maxReceiveCount: 2 },
    });
    handle = handleOf(stack);
    consoleUrl = `${stack.urls.intake}/__local/console/`;
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--headless'] });
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    page.on('dialog', (dialog) => void dialog.accept());
  });
  afterAll(async () => {
    await browser?.close();
    await handle?.close();
    await stack?.close();
  });

  let quarantineId = '';

  it('shows a credited order with its points and exact amount, its refund with the debit, and a quarantined delivery', async () => {
    const order = await deliverShopifyOrder(
      stack,
      { orderId: '8100000000000000001', name: '#8101', customerId: '1001', subtotal: '12000', tax: '1200', currency: 'JPY' },
      'console-order-1',
    );
    expect(order.status).toBe(202);
    await handle.waitForIdle();
    const refund = shopifyRefundCreate(
      { refundId: '8200000000000000001', orderId: '8100000000000000001', subtotal: '3000', tax: '300', currency: 'JPY' },
      secret(),
      'console-refund-1',
      Date.now(),
    );
    expect((await post(refund)).status).toBe(202);
    await handle.waitForIdle();
    const kept = await deliverShopifyOrder(
      stack,
      { orderId: '8100000000000000002', name: '#8102', customerId: '1001', subtotal: '12345678.90', tax: '0.00', currency: 'USD' },
      'console-quarantined-1',
    );
    expect(kept.body.status).toBe('quarantined');
    quarantineId = kept.body.id!;

    await page.goto(consoleUrl);
    await waitForText(quarantineId, '#quarantine');
    const order1 = await page.$eval('tr[data-order="8100000000000000001"]', (tr) => [...tr.cells].map((c) => c.textContent));
    // alice is regular (0.01): 12000 earns 120.
    expect(order1).toEqual([
      expect.any(String),
      'shopify',
      '8100000000000000001',
      'shopify 1001',
      'credited',
      '120',
      '12000 JPY',
      '3000',
      '30',
    ]);
    const refundRow = await page.$eval('tr[data-refund="8200000000000000001"]', (tr) => [...tr.cells].map((c) => c.textContent));
    expect(refundRow.slice(1, 6)).toEqual(['↳ refund', '8200000000000000001', '', 'debited', '-30']);
    const kept1 = await page.$eval(`tr[data-quarantine="${quarantineId}"]`, (tr) => tr.textContent);
    expect(kept1).toContain('console-quarantined-1');
    expect(kept1).toContain('amount exceeds 999999999 units');
  });

  it("shows an order's timeline: ledger transitions and the point-history entries carrying its markers", async () => {
    await click('tr[data-order="8100000000000000001"]');
    await waitForText('point history: debit entry', 'tr[data-timeline="8100000000000000001"]');
    const lines = await page.$$eval('tr[data-timeline="8100000000000000001"] li', (items) => items.map((li) => li.textContent ?? ''));
    expect(lines.some((l) => /ledger: order credited \(\+120\)/.test(l))).toBe(true);
    expect(lines.some((l) => /point history: credit entry \(\+120\)\s+marker lp1:shopify:order:8100000000000000001$/.test(l))).toBe(true);
    expect(lines.some((l) => /ledger: refund 8200000000000000001 debited \(-30\)/.test(l))).toBe(true);
    expect(lines.some((l) => /point history: debit entry \(-30\)/.test(l))).toBe(true);
  });

  it('shows in the timeline what intake and the worker observed: each delivery with its webhook id and answer, the receives, the points calls with their markers', async () => {
    const timeline = 'tr[data-timeline="8100000000000000001"]';
    if (!(await page.$(timeline))) await click('tr[data-order="8100000000000000001"]');
    await waitForText('delivery received: webhook console-order-1', timeline);
    const lines = await page.$$eval(`${timeline} li`, (items) => items.map((li) => li.textContent ?? ''));
    expect(lines.some((l) => /delivery received: webhook console-order-1 orders\/paid, answered HTTP 202 accepted/.test(l))).toBe(true);
    expect(lines.some((l) => /queue receive 1 of message \S+: credited \(ack\)/.test(l))).toBe(true);
    expect(lines.some((l) => /Open API calculatePoints: ok in \d+ ms\s+marker lp1:shopify:order:8100000000000000001$/.test(l))).toBe(true);
    expect(
      lines.some((l) =>
        /delivery received \(refund 8200000000000000001\): webhook console-refund-1 refunds\/create, answered HTTP 202/.test(l),
      ),
    ).toBe(true);
    expect(
      lines.some((l) =>
        /Open API grantPoints \(refund 8200000000000000001\): ok .*\(-30\)\s+marker lp1:shopify:refund:8100000000000000001:8200000000000000001$/.test(
          l,
        ),
      ),
    ).toBe(true);
  });

  it("lists the audit's run with what it found in the runs panel, its reversal of a doubled credit, and the breaker's state", async () => {
    // A credit of the demo's applied a second time (what a late commit leaves): the audit reverses the extra entry.
    const member = await handle.openapi.getMemberByExternalId('shopify', '1001');
    const history = await handle.openapi.listPoints(member.id, { perPage: 100 });
    const doubled = history.points.find((p) => p.remarks?.startsWith('lp1:shopify:order:'))!;
    await handle.openapi.grantPoints(member.id, { point: doubled.point, remarks: doubled.remarks! });
    // The scheduled audit's own function, built from the local stack's environment (its ledger, the emulator).
    const audit = makeAuditHandler(
      auditDepsFromEnv(stack.handlerEnv, {
        logger: { info: () => undefined, warn: () => undefined },
        metrics: { addMetric: () => undefined, publishStoredMetrics: () => undefined },
      }),
    );
    const summary = await audit();
    await waitForText('audit: orders=', '#runs');
    const row = await page.$eval('#runs tr[data-run="audit"]', (tr) => [...tr.cells].map((c) => c.textContent));
    expect(row[0]).toBe('audit');
    expect(row.slice(3, 5)).toEqual(['ok', String(summary.drift)]);
    expect(row[5]).toContain(`audit: orders=${summary.orders} refunds=${summary.refunds} drift=${summary.drift}`);
    expect(summary).toMatchObject({ duplicates: 1, reversed: 1 });
    await waitForText(member.id, '#reversals');
    const reversal = await page.$eval('#reversals tbody tr', (tr) => [...tr.cells].map((c) => c.textContent));
    expect(reversal.slice(1, 8)).toEqual([
      member.id,
      decodeURIComponent(doubled.remarks!.split(':')[3]!),
      expect.any(String),
      String(doubled.point),
      String(doubled.point),
      '0',
      'reversed',
    ]);
    expect(await page.$eval('#breaker', (p) => p.textContent)).toContain('circuit breaker: no transition reported');
  });

  it('lists a dead letter with the reason from the ledger, and redrives it from the page', async () => {
    await emulatorClient(false);
    const paid = await deliverShopifyOrder(
      stack,
      { orderId: '8100000000000000003', name: '#8103', customerId: '1002', subtotal: '2000', tax: '200', currency: 'JPY' },
      'console-dlq-1',
    );
    expect(paid.status).toBe(202);
    // Two receives (the limit here), each failing and retried after the poison backoff: then the dead-letter list.
    for (let receive = 1; receive <= 2; receive++) {
      await stack.queue.settled();
      clock.advance(poisonDeferralSeconds(receive) * 1000);
    }
    await stack.queue.settled();
    expect(stack.queue.deadLetters()).toHaveLength(1);
    await waitForText('8100000000000000003', '#dlq');
    const lastError = (await stack.ledger.getOrder({ source: 'shopify', orderId: '8100000000000000003' }))?.lastError;
    expect(lastError).toBeTruthy();
    expect(await page.$eval('#dlq tbody', (t) => t.textContent)).toContain(lastError);
    await emulatorClient(true);
    // The picture for docs/console.md: orders, a timeline open, the quarantine and a dead letter.
    await waitForText('point history: credit entry', 'tr[data-timeline="8100000000000000001"]');
    await writeFile(SCREENSHOT, await page.screenshot({ fullPage: true }));

    const before = await pointsOf('1002');
    await page.click('#redrive');
    await waitForText('moved 1 message(s) back to the queue', '#message');
    await handle.waitForIdle();
    // bob is gold (0.05): 2000 earns 100, once.
    expect(await pointsOf('1002')).toBe(before + 100);
    await waitForText('no dead letters', '#dlq');
    await waitForText('credited', 'tr[data-order="8100000000000000003"] td:nth-child(5)');
  });

  it('replays the quarantined delivery from the page once it is fixed, and it is credited once', async () => {
    const before = await pointsOf('1001');
    sources.set('shopify', loadSources('{"shopify":{"amount":{"rule":"major_floor"}}}').get('shopify')!);
    await click(`tr[data-quarantine="${quarantineId}"] button.replay`);
    await waitForText(`${quarantineId} replayed: accepted shopify:order:8100000000000000002`, '#message');
    await handle.waitForIdle();
    await waitForText('replayed: accepted', `tr[data-quarantine="${quarantineId}"]`);
    expect(await page.$(`tr[data-quarantine="${quarantineId}"] button.replay`)).toBeNull();
    // The page polls: the row appears pending, then credited.
    await waitForText('credited', 'tr[data-order="8100000000000000002"] td:nth-child(5)');
    const row = await page.$eval('tr[data-order="8100000000000000002"]', (tr) => [...tr.cells].map((c) => c.textContent));
    const credited = Number(row[5]);
    expect(row[4]).toBe('credited');
    expect(credited).toBeGreaterThan(0);
    expect(await pointsOf('1001')).toBe(before + credited);
    const history = await handle.openapi.listPoints((await handle.openapi.getMemberByExternalId('shopify', '1001')).id, { perPage: 1000 });
    expect(history.points.filter((p) => p.remarks === 'lp1:shopify:order:8100000000000000002')).toHaveLength(1);
    expect(await pageText()).not.toContain('could not refresh');
  });

  it('filters the orders by customer and by outcome', async () => {
    const shown = () => page.$$eval('tr[data-order]', (rows) => rows.map((r) => r.getAttribute('data-order')));
    // Waits for the table to hold exactly these orders: the table shown before the last keystroke's
    // answer arrives may have the same length.
    const waitForOrders = (ids: string[]) =>
      page.waitForFunction(
        (want: string) =>
          Array.from(document.querySelectorAll('tr[data-order]'), (r) =>
            (r as { getAttribute(n: string): string | null }).getAttribute('data-order'),
          ).join() === want,
        { timeout: 15_000 },
        ids.join(),
      );
    await page.type('input[name="customer"]', '1002');
    await waitForOrders(['8100000000000000003']);
    expect(await shown()).toEqual(['8100000000000000003']);
    await page.click('input[name="customer"]', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.type('input[name="outcome"]', 'debited');
    // An order matches by its own outcome or any of its refunds'.
    await waitForOrders(['8100000000000000001']);
    expect(await shown()).toEqual(['8100000000000000001']);
  });

  describe('actions refused from anywhere but the page itself', () => {
    const replay = (headers: Record<string, string>) =>
      fetch(`${consoleUrl}api/replay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ id: quarantineId }),
      });

    it('is never framed: X-Frame-Options DENY, CSP frame-ancestors none and nosniff on the page, the API, a refusal and a 404', async () => {
      const answers = await Promise.all([
        fetch(consoleUrl),
        fetch(`${consoleUrl}api/status`),
        replay({ origin: 'http://127.0.0.1:1' }),
        fetch(`${consoleUrl}api/nowhere`),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 403, 404]);
      for (const a of answers) {
        await a.arrayBuffer();
        expect(a.headers.get('x-frame-options')).toBe('DENY');
        expect(a.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
        expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('refuses a replay posted by another site (a foreign Origin)', async () => {
      const res = await replay({ origin: 'http://evil.example' });
      expect(res.status).toBe(403);
    });

    it('refuses a replay posted by a page on another loopback port', async () => {
      const res = await replay({ origin: 'http://127.0.0.1:1' });
      expect(res.status).toBe(403);
    });

    it('refuses a redrive under a non-loopback Host (DNS rebinding)', async () => {
      const res = await new Promise<number>((resolve, reject) => {
        import('node:http').then(({ request }) => {
          const req = request(`${consoleUrl}api/redrive`, { method: 'POST', headers: { host: 'rebind.evil.example' } }, (r) => {
            r.resume();
            resolve(r.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        }, reject);
      });
      expect(res).toBe(403);
    });
  });
});
