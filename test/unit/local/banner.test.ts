import { describe, expect, it } from 'vitest';
import { loadConfigFile, DEMO_CONFIG_PATH } from '../../../stand-ins/openapi/index.js';
import { bannerLines, type BannerInput } from '../../../local/index.js';

async function banner(overrides: Partial<BannerInput> = {}): Promise<string> {
  const input: BannerInput = {
    urls: { intake: 'http://127.0.0.1:3000', emulator: 'http://127.0.0.1:8787', dynamodb: 'http://127.0.0.1:8000' },
    emulatorConfigPath: DEMO_CONFIG_PATH,
    emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH),
    clientId: 'demo-client',
    clientSecret: 'demo-secret',
    demoEmulatorConfig: true,
    webhookSecrets: { shopify: ['demo-shopify-secret'], pos: ['demo-pos-secret-for-local-use-only'] },
    defaulted: { shopify: true, pos: true },
    tableName: 'points-ledger',
    visibilityTimeoutSeconds: 10,
    maxReceiveCount: 5,
    ...overrides,
  };
  return bannerLines(input).join('\n');
}

describe('the npm start banner', () => {
  it('dates its example requests when it is printed, so they are never too old to paste', async () => {
    const text = await banner({ now: Date.parse('2028-03-01T01:02:03Z') });
    expect(text).toContain('2028-03-01T01:02:03+00:00');
    expect(text).toContain('2028-03-01T10:02:03+09:00');
    expect(text).not.toContain('2026-01-15');
  });

  it('shows the Shopify example as a Japanese shop sends it: prices including consumption tax', async () => {
    const text = await banner();
    expect(text).toContain('"taxes_included":true');
    expect(text).toContain('"current_subtotal_price":"13200"');
  });

  it('shows the demo default secrets, so the printed requests can be pasted as they are', async () => {
    const text = await banner();
    expect(text).toContain('SHOPIFY_WEBHOOK_SECRET=demo-shopify-secret (demo default)');
    expect(text).toContain('POS_WEBHOOK_SECRETS=demo-pos-secret-for-local-use-only (demo default)');
    expect(text).toContain("-hmac 'demo-pos-secret-for-local-use-only'");
  });

  it('never prints secrets set in the environment or a client secret from your own emulator configuration', async () => {
    const text = await banner({
      webhookSecrets: { shopify: ['shop-secret-from-env', 'old-shop-secret'], pos: ['pos-secret-from-env'] },
      defaulted: { shopify: false, pos: false },
      clientSecret: 'client-secret-from-file',
      demoEmulatorConfig: false,
      emulatorConfigPath: '/somewhere/emulator.json',
    });
    for (const secret of ['shop-secret-from-env', 'old-shop-secret', 'pos-secret-from-env', 'client-secret-from-file']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('SHOPIFY_WEBHOOK_SECRET: 2 secret(s) from the environment (not shown)');
    // The paste-time POS script reads the secret from the same variable instead.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion the banner prints, not a JS template
    expect(text).toContain('-hmac "${POS_WEBHOOK_SECRETS%%,*}"');
  });

  it('lists every fixed route and port', async () => {
    const text = await banner();
    for (const part of [
      'POST /webhooks/shopify',
      'POST /webhooks/pos',
      'GET /healthz',
      'http://127.0.0.1:3000',
      'http://127.0.0.1:8787',
      'http://127.0.0.1:8000',
    ]) {
      expect(text).toContain(part);
    }
  });

  it('prefixes the follow-up commands with PORT when the intake listens off the default port', async () => {
    const text = await banner({
      urls: { intake: 'http://127.0.0.1:3901', emulator: 'http://127.0.0.1:3902', dynamodb: 'http://127.0.0.1:3903' },
    });
    expect(text).toContain(
      'Then: PORT=3901 npm run demo (the full scenario) | PORT=3901 npm run ledger -- shopify 5100000000000000001 | PORT=3901 npm run redrive',
    );
  });

  it('shows the follow-up commands without PORT on the default port', async () => {
    const text = await banner();
    expect(text).toContain('Then: npm run demo (the full scenario) | npm run ledger -- shopify 5100000000000000001 | npm run redrive');
  });
});
