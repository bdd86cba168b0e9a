import { describe, expect, it } from 'vitest';
import type { EmulatorConfig } from '../../../stand-ins/openapi/index.js';
import { runDemo } from '../../../demo/index.js';
import { squarePayment } from '../../../kit/webhooks/index.js';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { withDemoStack } from '../../support/local-stack.js';

/** `npm start`'s Square route: the demo key, the default notification URL, the demo's Square customer. */
describe('the local stack serves Square', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let demoConfig: EmulatorConfig;

  withDemoStack({}, (made) => {
    ({ stack, handle, demoConfig } = made);
  });

  const frank = 'JDKYHBWT1D4F8MFH63DBMEN8Y4';
  const balance = async () => (await handle.openapi.getMemberByExternalId('square', frank)).point;
  const sale = (paymentId: string) => ({
    paymentId,
    customerId: frank,
    status: 'COMPLETED' as const,
    amount: 2_000,
    tip: 0,
    currency: 'JPY',
  });

  it("verifies against the intake's own /webhooks/square by default and credits the Square customer", async () => {
    expect(stack.squareNotificationUrl).toBe(`${stack.urls.intake}/webhooks/square`);
    const before = await balance();
    const signing = { key: stack.webhookSecrets.square[0]!, notificationUrl: stack.squareNotificationUrl };
    const req = squarePayment('payment.updated', sale('SQLOCAL1'), signing, 'local-evt-1', Date.now());
    const res = await fetch(`${stack.urls.intake}${req.path}`, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.status).toBe(202);
    await handle.waitForIdle();
    expect(await balance()).toBe(before + 100); // frank is gold: 5% of ¥2,000
  });

  it('refuses a delivery signed for another notification URL with 401, queueing nothing', async () => {
    const signing = { key: stack.webhookSecrets.square[0]!, notificationUrl: 'https://elsewhere.example.com/webhooks/square' };
    const req = squarePayment('payment.updated', sale('SQLOCAL2'), signing, 'local-evt-2', Date.now());
    const sent = (await handle.queueStats()).sent;
    const res = await fetch(`${stack.urls.intake}${req.path}`, { method: 'POST', headers: req.headers, body: req.body });
    expect(res.status).toBe(401);
    expect((await handle.queueStats()).sent).toBe(sent);
  });

  it("plays the demo's Square sale, late customer, retry and refunds with the balance back where it started", async () => {
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
    expect(printed.join('\n')).toMatch(/payment\.updated, customer matched later +202 +credited +\+600/);
    expect(await balance()).toBe(before);
  });
});
