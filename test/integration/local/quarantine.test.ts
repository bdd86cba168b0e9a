import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { cliCommand } from '../../../ops/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { handleOf, type LocalStack, type LocalStackHandle, startLocalStack } from '../../../local/index.js';
import { type ConfiguredSource, loadSources } from '../../../shared/sources/index.js';

/**
 * The quarantine end to end on the local stack: a delivery that intake cannot map (an amount beyond
 * what the canonical event carries under the `minor` rule) is answered 200 and kept; after the "fix"
 * (the source's settings changed to `major_floor`, as a redeploy would) `npm run quarantine -- replay`
 * sends it through intake again and the customer is credited.
 */
describe('npm run quarantine against the local stack', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  const sources = new Map<string, ConfiguredSource>(loadSources('{"shopify":{"amount":{"rule":"minor"}}}'));
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await cliCommand(
      ['quarantine', ...args],
      { PORT: new URL(stack.urls.intake).port },
      { print: (l) => lines.push(l), printError: (l) => lines.push(l) },
    );
    return { code, lines };
  };
  const order = () =>
    shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '7700000000000000001', name: '#Q1', customerId: '1001', subtotal: '12345678.90', tax: '0.00', currency: 'USD' },
      stack.webhookSecrets.shopify[0]!,
      'quarantine-wh-1',
      Date.now(),
    );
  const post = (request: ReturnType<typeof order>, body = request.body) =>
    fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body });

  beforeAll(async () => {
    stack = await startLocalStack({ emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH), receiveOverrides: { sources } });
    handle = handleOf(stack);
  });
  afterAll(async () => {
    await handle?.close();
    await stack?.close();
  });

  let id = '';
  let sent: ReturnType<typeof order>;

  it('answers an authentic delivery it cannot map 200 "quarantined" with the reason', async () => {
    sent = order();
    const res = await post(sent);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { status: string; id: string; reason: string };
    expect(answer).toMatchObject({ status: 'quarantined', reason: expect.stringContaining('amount exceeds 999999999 units') });
    id = answer.id;
  });

  it('still answers a forged delivery 401 and keeps nothing of it', async () => {
    const request = order();
    const res = await post(request, request.body.replace('#Q1', '#Q2'));
    expect(res.status).toBe(401);
    expect((await cli('list')).lines.filter((l) => l.startsWith('q-'))).toHaveLength(1);
  });

  it('lists the kept delivery with its source and reason', async () => {
    const { code, lines } = await cli('list');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(new RegExp(`^${id}  quarantined  shopify  .*  1 delivery  invalid_payload: .*amount exceeds`));
    expect(lines.at(-1)).toBe('1 quarantined, 0 replayed');
  });

  it('lists the topic, the order and when the delivery was first and last seen', async () => {
    const JST = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} JST \(\+09:00\)`;
    await post(sent);
    const { lines } = await cli('list');
    expect(lines[0]).toMatch(
      // When, in Japan time with the offset (shared/time).
      new RegExp(`^${id}  quarantined  shopify  orders/paid  order 7700000000000000001  first ${JST} last ${JST}  2 deliveries  `),
    );
  });

  it('shows the delivery verbatim: the exact body and the Shopify headers', async () => {
    const { code, lines } = await cli('show', id);
    expect(code).toBe(0);
    const shown = JSON.parse(lines.join('\n'));
    expect(shown.body).toBe(sent.body);
    expect(shown).toMatchObject({
      source: 'shopify',
      bodyEncoding: 'utf8',
      headers: { 'x-shopify-topic': 'orders/paid', 'x-shopify-webhook-id': 'quarantine-wh-1' },
    });
  });

  it('keeps it quarantined when replayed before the fix', async () => {
    const { code, lines } = await cli('replay', id);
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringContaining(`${id} not replayed: still quarantined`)]);
  });

  it('replays it through intake after the fix, and the customer is credited', async () => {
    const before = (await handle.openapi.getMemberByExternalId('shopify', '1001')).point;
    sources.set('shopify', loadSources('{"shopify":{"amount":{"rule":"major_floor"}}}').get('shopify')!);
    const { code, lines } = await cli('replay', '--all');
    expect(code).toBe(0);
    expect(lines).toEqual([`${id} replayed: accepted shopify:order:7700000000000000001`, '1 of 1 replayed']);
    await handle.waitForIdle();
    expect(await handle.ledger.getOrder({ source: 'shopify', orderId: '7700000000000000001' })).toMatchObject({
      outcome: 'credited',
      eligibleExact: '12345678.9',
    });
    expect((await handle.openapi.getMemberByExternalId('shopify', '1001')).point).toBeGreaterThan(before);
    expect((await cli('list')).lines.at(-1)).toBe('0 quarantined, 1 replayed');
  });
});
