import { afterAll, beforeAll } from 'vitest';
import { DEMO_CONFIG_PATH, type EmulatorConfig, loadConfigFile } from '../../stand-ins/openapi/index.js';
import { type ShopifyOrderInput, shopifyOrderWebhook } from '../../kit/webhooks/index.js';
import { cliCommand } from '../../ops/index.js';
import { handleOf, type LocalStack, type LocalStackHandle, type LocalStackOptions, startLocalStack } from '../../local/index.js';

export interface DemoStack {
  stack: LocalStack;
  handle: LocalStackHandle;
  /** The demo's emulator configuration the stack runs (its members, for runDemo). */
  demoConfig: EmulatorConfig;
}

/**
 * Gives the test file `npm start`'s stack with the demo configuration, every port picked free
 * (started before its tests, closed after), through `ready`, which runs once it is up.
 */
export function withDemoStack(options: Omit<LocalStackOptions, 'emulatorConfig'>, ready: (made: DemoStack) => void): void {
  let made: DemoStack | undefined;
  beforeAll(async () => {
    const demoConfig = await loadConfigFile(DEMO_CONFIG_PATH);
    const stack = await startLocalStack({ ...options, emulatorConfig: demoConfig });
    made = { stack, handle: handleOf(stack), demoConfig };
    ready(made);
  });
  afterAll(async () => {
    await made?.handle.close();
    await made?.stack.close();
  });
}

/** Posts a Shopify orders/paid for `order` to the stack's intake, signed with its current secret, dated now. */
export async function deliverShopifyOrder(
  stack: LocalStack,
  order: ShopifyOrderInput,
  webhookId: string,
): Promise<{ status: number; body: Record<string, string> }> {
  const request = shopifyOrderWebhook('orders/paid', 'paid', order, stack.webhookSecrets.shopify[0]!, webhookId, Date.now());
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** `npm run <command> -- <args>` against the stack, as an operator runs it (its PORT only): exit code and every line. */
export async function opsCommandOn(stack: LocalStack, ...args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const out = { print: (l: string) => lines.push(l), printError: (l: string) => lines.push(l) };
  const code = await cliCommand(args, { PORT: new URL(stack.urls.intake).port }, out);
  return { code, text: lines.join('\n') };
}
