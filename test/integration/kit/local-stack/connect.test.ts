import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, type EmulatorConfig, loadConfigFile } from '../../../../stand-ins/openapi/index.js';
import { cliCommand } from '../../../../ops/index.js';
import { demoCommand } from '../../../../demo/index.js';
import { shopifyOrderWebhook } from '../../../../kit/webhooks/index.js';
import { createManualClock, type LocalStack, readStackInfo, startLocalStack } from '../../../../local/index.js';
import { processingSettingsFromEnv } from '../../../../shared/config/index.js';

/** A port nothing listens on: where the demo and the CLI would look if they trusted their own environment. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function captured() {
  const lines: string[] = [];
  return { lines, out: { print: (l: string) => void lines.push(l), printError: (l: string) => void lines.push(l) } };
}

// Not the demo defaults, so a command only gets them right by reading the same variables as npm start.
const SHOPIFY_SECRET = 'connect-test-shopify-secret';
const POS_SECRET = 'connect-test-pos-secret-0123456789';

describe('the demo and the CLI against a running stack on non-default ports', () => {
  const clock = createManualClock(Date.now());
  let demoConfig: EmulatorConfig;
  let stack: LocalStack;
  /** What a user would set in the second terminal: only PORT points at the stack. */
  let env: NodeJS.ProcessEnv;
  let tempDir: string;

  beforeAll(async () => {
    demoConfig = await loadConfigFile(DEMO_CONFIG_PATH);
    // Every port free and picked at start, so none is a default; the manual clock lets the
    // dead-letter test move visibility timeouts without waiting.
    stack = await startLocalStack({
      emulatorConfig: demoConfig,
      webhookSecrets: { shopify: [SHOPIFY_SECRET], pos: [POS_SECRET] },
      tableName: 'connect-test-ledger',
      queue: { clock, visibilityTimeoutMs: 5_000, maxReceiveCount: 1 },
    });
    env = {
      PORT: new URL(stack.urls.intake).port,
      EMULATOR_PORT: String(await closedPort()),
      DYNAMODB_PORT: String(await closedPort()),
      SHOPIFY_WEBHOOK_SECRET: SHOPIFY_SECRET,
      POS_WEBHOOK_SECRETS: POS_SECRET,
    };
    tempDir = await mkdtemp(join(tmpdir(), 'local-connect-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('tells on GET /__local/info where its emulator, DynamoDB and stand-ins listen, the Square basis and its worker’s settings, without any secret', async () => {
    const res = await fetch(`${stack.urls.intake}/__local/info`);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text)).toEqual({
      emulator: { url: stack.urls.emulator, clientId: 'demo-client' },
      dynamodb: { url: stack.urls.dynamodb, tableName: 'connect-test-ledger', quarantineTable: 'webhook-quarantine' },
      shopifyAdmin: { url: stack.urls.shopifyAdmin },
      squareOrders: { url: stack.urls.squareOrders, basis: 'amount' },
      smaregi: { url: stack.urls.smaregi, contractId: 'demo-contract', tillPoints: 'ignore' },
      processing: processingSettingsFromEnv(stack.handlerEnv),
      sourcesConfig: stack.handlerEnv.SOURCES_CONFIG,
    });
    for (const secret of [stack.openApi.clientSecret, SHOPIFY_SECRET, POS_SECRET, stack.standIns.smaregi.webhookSecret])
      expect(text.includes(secret)).toBe(false);
  });

  it('runs the demo through the emulator and DynamoDB the stack names, not EMULATOR_PORT and DYNAMODB_PORT', async () => {
    const { lines, out } = captured();
    const code = await demoCommand(env, out);
    expect(lines.slice(0, 2)).toEqual([
      `demo: using the local stack at ${stack.urls.intake} (npm start)`,
      `demo: its emulator at ${stack.urls.emulator}, DynamoDB at ${stack.urls.dynamodb} (table connect-test-ledger)`,
    ]);
    expect(lines.at(-1)).toBe('demo: all 31 events did what they should');
    expect(code).toBe(0);
  });

  it('tells the user to pass the same SHOPIFY_WEBHOOK_SECRET as npm start when the stack refuses the demo signatures', async () => {
    const wrong = 'not-what-npm-start-was-given';
    const { lines, out } = captured();
    const code = await demoCommand({ ...env, SHOPIFY_WEBHOOK_SECRET: wrong }, out);
    expect(code).toBe(1);
    expect(lines.at(-1)).toBe(
      `demo: the stack at ${stack.urls.intake} refused the demo's Shopify signatures (401; signed with the first secret in SHOPIFY_WEBHOOK_SECRET): ` +
        'pass npm run demo the same SHOPIFY_WEBHOOK_SECRET as npm start',
    );
    // POS was signed right: no hint about it, and no secret printed.
    expect(lines.some((l) => l.includes('POS_WEBHOOK_SECRETS'))).toBe(false);
    expect(lines.some((l) => l.includes(wrong) || l.includes(SHOPIFY_SECRET) || l.includes(POS_SECRET))).toBe(false);
  });

  it('refuses, naming EMULATOR_CONFIG, to run the demo with a configuration whose first client is not the stack login', async () => {
    const other = { clients: demoConfig.clients.map((c) => ({ ...c, client_id: 'another-client' })) };
    const path = join(tempDir, 'other-config.json');
    await writeFile(path, JSON.stringify(other));
    const { lines, out } = captured();
    const code = await demoCommand({ ...env, EMULATOR_CONFIG: path }, out);
    expect(code).toBe(2);
    expect(lines.at(-1)).toBe(
      `demo failed: the local stack logs in to the emulator as client demo-client, but EMULATOR_CONFIG (${path}) names client another-client first: ` +
        'pass the same EMULATOR_CONFIG as npm start',
    );
  });

  it('shows an order with npm run ledger through the stack emulator and DynamoDB', async () => {
    const paid = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '5400000000000000001', name: '#5401', customerId: '1003', subtotal: '3000', tax: '300', currency: 'JPY' },
      SHOPIFY_SECRET,
      'connect-ledger-1',
      Date.now(),
    );
    expect((await fetch(`${stack.urls.intake}${paid.path}`, { method: 'POST', headers: paid.headers, body: paid.body })).status).toBe(202);
    await stack.queue.waitForIdle({ timeoutMs: 10_000 });
    const { lines, out } = captured();
    const code = await cliCommand(['ledger', 'shopify', '5400000000000000001'], env, out);
    expect(lines).toContain('    outcome: credited');
    // carol is regular (0.01): 3000 earns 30, read back from the emulator's point history.
    expect(lines.some((l) => /\+30\s+Purchase #5401\s+lp1:shopify:order:5400000000000000001/.test(l))).toBe(true);
    expect(code).toBe(0);
  });

  it('refuses an order id too long to be one by name with npm run ledger, reading nothing', async () => {
    const { lines, out } = captured();
    const code = await cliCommand(['ledger', 'shopify', '9'.repeat(5000)], env, out);
    expect(code).toBe(2);
    expect(lines.some((l) => l.includes('the order id must be 1 to 256 characters (got 5000)'))).toBe(true);
    expect(lines.some((l) => /ValidationException|at .*\.ts:/.test(l))).toBe(false);
  });

  it('redrives a dead letter with npm run redrive, showing its last error from the stack ledger', async () => {
    const patch = (contracted: boolean) =>
      fetch(`${stack.urls.emulator}/__emulator/clients/demo-client`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contracted }),
      });
    expect((await patch(false)).status).toBe(200);
    const paid = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId: '5400000000000000002', name: '#5402', customerId: '1004', subtotal: '2000', tax: '200', currency: 'JPY' },
      SHOPIFY_SECRET,
      'connect-redrive-1',
      Date.now(),
    );
    expect((await fetch(`${stack.urls.intake}${paid.path}`, { method: 'POST', headers: paid.headers, body: paid.body })).status).toBe(202);
    await stack.queue.settled();
    clock.advance(5_000);
    await stack.queue.settled();
    expect(stack.queue.deadLetters()).toHaveLength(1);
    expect((await patch(true)).status).toBe(200);

    const { lines, out } = captured();
    const code = await cliCommand(['redrive'], env, out);
    expect(code).toBe(0);
    // The last error is read from the ledger in the stack's dynalite (the queue alone does not know it).
    const lastError = (await stack.ledger.getOrder({ source: 'shopify', orderId: '5400000000000000002' }))?.lastError;
    expect(lastError).toBeTruthy();
    expect(lines[0]).toContain(`last error: ${lastError}`);
    expect(lines.at(-1)).toBe('moved 1 message(s) from the dead-letter list back to the queue');
    await stack.queue.waitForIdle({ timeoutMs: 10_000 });
    expect((await stack.ledger.getOrder({ source: 'shopify', orderId: '5400000000000000002' }))?.outcome).toBe('credited');
  });

  it('finds no stack information on a server that is not a local stack', async () => {
    expect(await readStackInfo(stack.urls.emulator)).toBeUndefined();
  });
});

describe('operator commands against a stack started with its own EMULATOR_CONFIG', () => {
  let stack: LocalStack;
  let tempDir: string;

  beforeAll(async () => {
    const demo = await loadConfigFile(DEMO_CONFIG_PATH);
    // A shop's own emulator configuration: another client and secret than the demo's.
    const own = { clients: demo.clients.map((c) => ({ ...c, client_id: 'shop-client', client_secrets: ['shop-client-secret'] })) };
    tempDir = await mkdtemp(join(tmpdir(), 'local-own-config-'));
    const path = join(tempDir, 'emulator.json');
    await writeFile(path, JSON.stringify(own));
    stack = await startLocalStack({ emulatorConfig: own, emulatorConfigPath: path, tableName: 'own-config-ledger' });
  });
  afterAll(async () => {
    await stack?.close();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('log in as the stack does without being given its EMULATOR_CONFIG again', async () => {
    const { lines, out } = captured();
    // Only PORT, as in a second terminal: the stack names its configuration file on /__local/info.
    const code = await cliCommand(['audit'], { PORT: new URL(stack.urls.intake).port }, out);
    expect(lines.at(-1)).toBe('audit: orders=0 refunds=0 drift=0 duplicates=0 reversed=0');
    expect(code).toBe(0);
  });
});
