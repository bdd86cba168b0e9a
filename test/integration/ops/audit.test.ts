import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG_PATH, loadConfigFile } from '../../../stand-ins/openapi/index.js';
import { cliCommand } from '../../../ops/index.js';
import { demoCommand } from '../../../demo/index.js';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { createOpenApiClient, staticCredentials } from '../../../shared/openapi/index.js';
import { purchaseMarker } from '../../../shared/points/index.js';

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { print: (l: string) => void out.push(l), printError: (l: string) => void err.push(l) } };
}

const SHOPIFY_SECRET = 'audit-cli-shopify-secret';
const POS_SECRET = 'audit-cli-pos-secret-of-32-characters';

describe('npm run audit against a running local stack', () => {
  let stack: LocalStack;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startLocalStack({
      emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH),
      webhookSecrets: { shopify: [SHOPIFY_SECRET], pos: [POS_SECRET] },
      tableName: 'audit-cli-ledger',
    });
    // Only PORT points at the stack, as in a second terminal.
    env = { PORT: new URL(stack.urls.intake).port, SHOPIFY_WEBHOOK_SECRET: SHOPIFY_SECRET, POS_WEBHOOK_SECRETS: POS_SECRET };
    expect(await demoCommand(env, captured().output)).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('finds the books balanced after the demo: exit 0 and the fixed last line', async () => {
    const { out, output } = captured();
    const code = await cliCommand(['audit'], env, output);
    expect(out).toEqual(['audit: orders=10 refunds=11 drift=0 duplicates=0 reversed=0']);
    expect(code).toBe(0);
  });

  it('refuses a --since it cannot read, changing nothing', async () => {
    const { err, output } = captured();
    expect(await cliCommand(['audit', '--since', 'yesterday'], env, output)).toBe(2);
    expect(err[0]!.split('\n')[0]).toMatch(/^--since takes an ISO date .* not "yesterday"$/);
  });

  it('counts nothing before a --since in the future', async () => {
    const { out, output } = captured();
    expect(await cliCommand(['audit', '--since', '2999-01-01'], env, output)).toBe(0);
    expect(out).toEqual(['audit: orders=0 refunds=0 drift=0 duplicates=0 reversed=0']);
  });

  // Runs last: it doubles a credit of the demo's.
  it('reverses a doubled credit once, lists it as a finding (JSON lines with --json) and exits 1; a second run exits 0', async () => {
    const api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
    try {
      // alice's order from the demo, granted a second time by someone else with our marker.
      const alice = await api.getMemberByExternalId('shopify', '1001');
      const history = await api.listPoints(alice.id, { perPage: 100 });
      const marker = history.points.map((p) => p.remarks).find((r) => r?.startsWith('lp1:shopify:order:'))!;
      const balance = (await api.getMember(alice.id)).point;
      await api.grantPoints(alice.id, { point: 1, remarks: marker });
      const orderId = decodeURIComponent(marker.split(':')[3]!);
      expect(marker).toBe(purchaseMarker('shopify', orderId));

      const text = captured();
      expect(await cliCommand(['audit'], env, text.output)).toBe(1);
      expect(text.out).toEqual([
        expect.stringMatching(
          new RegExp(`^drift duplicate_credit: shopify order ${orderId}, customer ${alice.id}: 2 history entries .* \\(\\+1\\) reversed`),
        ),
        'audit: orders=10 refunds=11 drift=1 duplicates=1 reversed=1',
      ]);
      expect((await api.getMember(alice.id)).point).toBe(balance);

      const again = captured();
      expect(await cliCommand(['audit'], env, again.output)).toBe(0);
      expect(again.out).toEqual(['audit: orders=10 refunds=11 drift=0 duplicates=0 reversed=0']);

      await api.grantPoints(alice.id, { point: 1, remarks: marker });
      const json = captured();
      expect(await cliCommand(['audit', '--json'], env, json.output)).toBe(1);
      expect(JSON.parse(json.out[0]!)).toMatchObject({
        type: 'drift',
        kind: 'duplicate_credit',
        source: 'shopify',
        orderId,
        customerId: alice.id,
        marker,
      });
      expect(json.out.at(-1)).toBe('audit: orders=10 refunds=11 drift=1 duplicates=1 reversed=1');
      expect((await api.getMember(alice.id)).point).toBe(balance);
    } finally {
      await api.close();
    }
  });
});
