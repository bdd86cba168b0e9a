import { describe, expect, it } from 'vitest';
import { createSecretsManagerReader, type SecretsManagerReaderOptions } from '../../../../shared/config/secret-reader.js';
import { WebhookSecretsError } from '../../../../shared/config/errors.js';
import { secretsManagerWebhookSecrets, webhookSecretsFromEnv } from '../../../../shared/config/webhook-secrets.js';
import { fakeSecretsManager } from './fake-secrets-manager.js';

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shopify-webhook-AbCdEf';

async function kindOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof WebhookSecretsError ? e.kind : 'other';
  }
}

/** The real reader (its cache is the only one) over a fake Secrets Manager holding `values`. */
function readerOver(values: Record<string, string>, opts: Omit<SecretsManagerReaderOptions, 'client'> = {}) {
  const sm = fakeSecretsManager(values);
  return { reader: createSecretsManagerReader({ client: sm.client, ...opts }), store: sm.store };
}

describe('secretsManagerWebhookSecrets', () => {
  it('returns every secret of the source, current first', async () => {
    const { reader } = readerOver({ [ARN]: '{"secrets": ["new", "old"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader });
    expect(await secrets.get('shopify')).toEqual(['new', 'old']);
  });

  it('reads Secrets Manager once per TTL, then again so a rotation shows', async () => {
    let now = 0;
    const sm = readerOver({ [ARN]: '{"secrets": ["one"]}' }, { ttlMs: 1000, now: () => now });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: sm.reader });
    await secrets.get('shopify');
    now = 999;
    await secrets.get('shopify');
    expect(sm.store.calls).toBe(1);
    sm.store.values[ARN] = '{"secrets": ["two", "one"]}';
    now = 1000;
    expect(await secrets.get('shopify')).toEqual(['two', 'one']);
    expect(sm.store.calls).toBe(2);
  });

  it('honours a forced refresh at most once per minimum interval', async () => {
    let now = 0;
    const sm = readerOver({ [ARN]: '{"secrets": ["one"]}' }, { minForcedRefreshMs: 60_000, now: () => now });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: sm.reader });
    await secrets.get('shopify');
    now = 30_000;
    await secrets.get('shopify', { forceRefresh: true });
    expect(sm.store.calls).toBe(1);
    now = 60_000;
    await secrets.get('shopify', { forceRefresh: true });
    expect(sm.store.calls).toBe(2);
  });

  it('shares one read between concurrent callers', async () => {
    const sm = readerOver({ [ARN]: '{"secrets": ["one"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: sm.reader });
    await Promise.all([secrets.get('shopify'), secrets.get('shopify'), secrets.get('shopify')]);
    expect(sm.store.calls).toBe(1);
  });

  it('says which source is not configured, unreadable, or malformed, without the secret text', async () => {
    const { reader } = readerOver({ [ARN]: '{"secret": "hunter2-value"}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN, pos: 'missing' }, reader });
    expect(await kindOf(secrets.get('square'))).toBe('not_configured');
    expect(await kindOf(secrets.get('pos'))).toBe('unavailable');
    const error = await secrets.get('shopify').catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ kind: 'malformed', source: 'shopify' });
    expect(String(error)).not.toContain('hunter2');
  });
});

describe('webhookSecretsFromEnv', () => {
  it('reads local secrets, comma-separated, from SHOPIFY_WEBHOOK_SECRET and POS_WEBHOOK_SECRETS', async () => {
    const secrets = webhookSecretsFromEnv({ SHOPIFY_WEBHOOK_SECRET: 'a, b', POS_WEBHOOK_SECRETS: 'p1' });
    expect(await secrets.get('shopify')).toEqual(['a', 'b']);
    expect(await secrets.get('pos')).toEqual(['p1']);
    expect(await kindOf(secrets.get('shopify-eu'))).toBe('not_configured');
  });

  it('uses WEBHOOK_SECRET_ARNS through the given reader when set', async () => {
    const { reader } = readerOver({ [ARN]: '{"secrets": ["from-sm"]}' });
    const secrets = webhookSecretsFromEnv(
      { WEBHOOK_SECRET_ARNS: JSON.stringify({ shopify: ARN }), SHOPIFY_WEBHOOK_SECRET: 'local' },
      { reader },
    );
    expect(await secrets.get('shopify')).toEqual(['from-sm']);
  });

  it('refuses a secret shorter than the minimum for its source, naming the source and the rule, never the value', async () => {
    const secrets = webhookSecretsFromEnv(
      { POS_WEBHOOK_SECRETS: `${'p'.repeat(32)},tooshort-secret` },
      { minLength: (s) => (s === 'pos' ? 32 : 16) },
    );
    const error = await secrets.get('pos').catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ kind: 'malformed', source: 'pos' });
    expect(String(error)).toMatch(/at least 32 characters/);
    expect(String(error)).not.toContain('tooshort');
  });

  it('applies the minimum to secrets read from Secrets Manager too', async () => {
    const { reader } = readerOver({ [ARN]: '{"secrets": ["short-one"]}' });
    const secrets = webhookSecretsFromEnv({ WEBHOOK_SECRET_ARNS: JSON.stringify({ pos: ARN }) }, { reader, minLength: () => 32 });
    expect(await kindOf(secrets.get('pos'))).toBe('malformed');
  });

  it('refuses WEBHOOK_SECRET_ARNS that is not a JSON object of ids', () => {
    expect(() => webhookSecretsFromEnv({ WEBHOOK_SECRET_ARNS: '["arn"]' })).toThrow(/WEBHOOK_SECRET_ARNS must be a JSON object/);
  });
});
