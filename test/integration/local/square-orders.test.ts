import { describe, expect, it } from 'vitest';
import type { EmulatorConfig } from '../../../stand-ins/openapi/index.js';
import { runDemo } from '../../../demo/index.js';
import { squarePayment, squareRefund } from '../../../kit/webhooks/index.js';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { withDemoStack } from '../../support/local-stack.js';

/**
 * A Japanese till on Square with the web shop's basis (`subtotal_excluding_tax`): `npm start`'s own
 * Square Orders stand-in holds the payment's order, and the worker reads it before the points call.
 */
describe("a Square sale on its order's amount without tax, through the local stack", () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let demoConfig: EmulatorConfig;
  withDemoStack({ env: { SOURCES_CONFIG: JSON.stringify({ square: { amount: { basis: 'subtotal_excluding_tax' } } }) } }, (made) => {
    ({ stack, handle, demoConfig } = made);
  });

  const frank = 'JDKYHBWT1D4F8MFH63DBMEN8Y4'; // gold: 5 %
  const balance = async () => (await handle.openapi.getMemberByExternalId('square', frank)).point;
  const yen = (amount: number) => ({ amount, currency: 'JPY' });
  const send = async (req: { path: string; headers: Record<string, string>; body: string }) => {
    const res = await fetch(`${stack.urls.intake}${req.path}`, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.status).toBe(202);
    await handle.waitForIdle();
  };
  const signing = () => ({ key: stack.webhookSecrets.square[0]!, notificationUrl: stack.squareNotificationUrl });
  const putOrder = async (order: unknown) => {
    const res = await fetch(`${stack.urls.squareOrders}/__square/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(order),
    });
    expect(res.status).toBe(201);
  };

  it('earns on ¥10,000 for a ¥11,000 sale including ¥1,000 tax, and its half refund takes back half', async () => {
    await putOrder({ id: 'O-SQJP1', line_items: [{ total_money: yen(11_000), total_tax_money: yen(1_000) }], total_money: yen(11_000) });
    const before = await balance();
    const sale = { paymentId: 'SQJP1', customerId: frank, status: 'COMPLETED' as const, amount: 11_000, tip: 0, currency: 'JPY' };
    await send(squarePayment('payment.updated', sale, signing(), 'jp-evt-1', Date.now()));
    expect(await balance()).toBe(before + 500);
    await send(
      squareRefund(
        'refund.updated',
        { refundId: 'SQJP1_R1', paymentId: 'SQJP1', status: 'COMPLETED', amount: 5_500, currency: 'JPY' },
        signing(),
        'jp-evt-2',
        Date.now(),
      ),
    );
    expect(await balance()).toBe(before + 250);
  });

  it('earns nothing for a gift card sold at the till, and the other lines as usual', async () => {
    await putOrder({
      id: 'O-SQJP2',
      line_items: [
        { total_money: yen(2_200), total_tax_money: yen(200) },
        { item_type: 'GIFT_CARD', total_money: yen(5_000) },
      ],
      total_money: yen(7_200),
    });
    const before = await balance();
    const sale = { paymentId: 'SQJP2', customerId: frank, status: 'COMPLETED' as const, amount: 7_200, tip: 0, currency: 'JPY' };
    await send(squarePayment('payment.updated', sale, signing(), 'jp-evt-3', Date.now()));
    expect(await balance()).toBe(before + 100); // 5 % of ¥2,000
  });

  it('reads the order once for a purchase delivered twice', async () => {
    await putOrder({ id: 'O-SQJP3', line_items: [{ total_money: yen(3_300), total_tax_money: yen(300) }], total_money: yen(3_300) });
    const sale = { paymentId: 'SQJP3', customerId: frank, status: 'COMPLETED' as const, amount: 3_300, tip: 0, currency: 'JPY' };
    const before = await balance();
    await send(squarePayment('payment.updated', sale, signing(), 'jp-evt-4', Date.now()));
    const reads = stack.standIns.squareOrders.reads();
    await send(squarePayment('payment.updated', sale, signing(), 'jp-evt-5', Date.now()));
    expect(await balance()).toBe(before + 150);
    expect(stack.standIns.squareOrders.reads()).toBe(reads);
  });

  it('earns on its share of the order for a payment that paid part of it (split tender)', async () => {
    await putOrder({ id: 'O-SQJP4', line_items: [{ total_money: yen(11_000), total_tax_money: yen(1_000) }], total_money: yen(11_000) });
    const before = await balance();
    const part = { paymentId: 'SQJP4', customerId: frank, status: 'COMPLETED' as const, amount: 5_500, tip: 0, currency: 'JPY' };
    await send(squarePayment('payment.updated', part, signing(), 'jp-evt-6', Date.now()));
    expect(await balance()).toBe(before + 250); // half the order: 5 % of ¥5,000
  });

  it("plays the demo with the till's order read from the stand-in: ¥12,000 incl. ¥1,090 tax earns on ¥10,910", async () => {
    const before = await balance();
    const printed: string[] = [];
    const result = await runDemo(
      {
        ...handle,
        emulatorConfig: demoConfig,
        secrets: {
          shopify: stack.webhookSecrets.shopify[0]!,
          pos: stack.webhookSecrets.pos[0]!,
          square: { key: stack.webhookSecrets.square[0]!, notificationUrl: stack.squareNotificationUrl },
        },
      },
      (line) => printed.push(line),
    );
    expect(result.failures).toEqual([]);
    expect(printed.join('\n')).toMatch(/payment\.updated, customer matched later +202 +credited +\+545/);
    expect(await balance()).toBe(before);
  });
});
