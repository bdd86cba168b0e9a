import { describe, expect, it } from 'vitest';
import type { SecretReader } from '../../../../shared/config/secret-reader.js';
import {
  secretsManagerWebhookSecrets,
  webhookSecretsFromEnvironment,
  WebhookSecretsError,
} from '../../../../shared/config/webhook-secrets.js';

/**
 * An in-memory SecretReader standing in for Secrets Manager, which cannot run here (the boundary);
 * it counts reads so caching is observable.
 */
function memoryReader(values: Record<string, string>) {
  const reads: { id: string; force: boolean }[] = [];
  const reader: SecretReader = {
    async read(id, opts) {
      reads.push({ id, force: opts?.forceRefresh ?? false });
      const value = values[id];
      if (value === undefined) throw new Error(`no secret ${id}`);
      return value;
    },
  };
  return { reader, reads, values };
}

const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:shopify-webhook-AbCdEf';

async function kindOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return e instanceof WebhookSecretsError ? e.kind : 'other';
  }
}

describe('secretsManagerWebhookSecrets', () => {
  it('returns every secret of the source, current first', async () => {
    const { reader } = memoryReader({ [ARN]: '{"secrets": ["new", "old"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader });
    expect(await secrets.get('shopify')).toEqual(['new', 'old']);
  });

  it('reads Secrets Manager once per TTL, then again so a rotation shows', async () => {
    let now = 0;
    const mem = memoryReader({ [ARN]: '{"secrets": ["one"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: mem.reader, ttlMs: 1000, now: () => now });
    await secrets.get('shopify');
    now = 999;
    await secrets.get('shopify');
    expect(mem.reads).toHaveLength(1);
    mem.values[ARN] = '{"secrets": ["two", "one"]}';
    now = 1000;
    expect(await secrets.get('shopify')).toEqual(['two', 'one']);
    expect(mem.reads).toEqual([{ id: ARN, force: false }, { id: ARN, force: true }]);
  });

  it('honours a forced refresh at most once per minimum interval', async () => {
    let now = 0;
    const mem = memoryReader({ [ARN]: '{"secrets": ["one"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: mem.reader, minRefreshMs: 60_000, now: () => now });
    await secrets.get('shopify');
    now = 30_000;
    await secrets.get('shopify', { forceRefresh: true });
    expect(mem.reads).toHaveLength(1);
    now = 60_000;
    await secrets.get('shopify', { forceRefresh: true });
    expect(mem.reads).toHaveLength(2);
  });

  it('shares one read between concurrent callers', async () => {
    const mem = memoryReader({ [ARN]: '{"secrets": ["one"]}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN }, reader: mem.reader });
    await Promise.all([secrets.get('shopify'), secrets.get('shopify'), secrets.get('shopify')]);
    expect(mem.reads).toHaveLength(1);
  });

  it('says which source is not configured, unreadable, or malformed, without the secret text', async () => {
    const mem = memoryReader({ [ARN]: '{"secret": "hunter2-value"}' });
    const secrets = secretsManagerWebhookSecrets({ secretIds: { shopify: ARN, pos: 'missing' }, reader: mem.reader });
    expect(await kindOf(secrets.get('square'))).toBe('not_configured');
    expect(await kindOf(secrets.get('pos'))).toBe('unavailable');
    const error = await secrets.get('shopify').catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ kind: 'malformed', source: 'shopify' });
    expect(String(error)).not.toContain('hunter2');
  });
});

describe('webhookSecretsFromEnvironment', () => {
  it('reads local secrets, comma-separated, from SHOPIFY_WEBHOOK_SECRET and POS_WEBHOOK_SECRETS', async () => {
    const secrets = webhookSecretsFromEnvironment({ SHOPIFY_WEBHOOK_SECRET: 'a, b', POS_WEBHOOK_SECRETS: 'p1' });
    expect(await secrets.get('shopify')).toEqual(['a', 'b']);
    expect(await secrets.get('pos')).toEqual(['p1']);
    expect(await kindOf(secrets.get('shopify-eu'))).toBe('not_configured');
  });

  it('uses WEBHOOK_SECRET_ARNS through the given reader when set', async () => {
    const mem = memoryReader({ [ARN]: '{"secrets": ["from-sm"]}' });
    const secrets = webhookSecretsFromEnvironment({ WEBHOOK_SECRET_ARNS: JSON.stringify({ shopify: ARN }), SHOPIFY_WEBHOOK_SECRET: 'local' }, { reader: mem.reader });
    expect(await secrets.get('shopify')).toEqual(['from-sm']);
  });

  it('refuses WEBHOOK_SECRET_ARNS that is not a JSON object of ids', () => {
    expect(() => webhookSecretsFromEnvironment({ WEBHOOK_SECRET_ARNS: '["arn"]' })).toThrow(/WEBHOOK_SECRET_ARNS must be a JSON object/);
  });
});
