import { describe, expect, it } from 'vitest';
import { SecretReadError, createSecretsManagerReader } from '../../../../shared/config/index.js';
import { fakeSecretsManager } from './fake-secrets-manager.js';

describe('Secrets Manager reader', () => {
  it('reads a secret once and serves it from cache within the TTL', async () => {
    const { store, client } = fakeSecretsManager({ s: 'v1' });
    let t = 0;
    const reader = createSecretsManagerReader({ client, ttlMs: 1000, now: () => t });
    await reader.read('s');
    t = 999;
    expect(await reader.read('s')).toBe('v1');
    expect(store.calls).toBe(1);
  });

  it('reads again after the TTL, picking up a rotation', async () => {
    const { store, client } = fakeSecretsManager({ s: 'v1' });
    let t = 0;
    const reader = createSecretsManagerReader({ client, ttlMs: 1000, now: () => t });
    await reader.read('s');
    store.values.s = 'v2';
    t = 1000;
    expect(await reader.read('s')).toBe('v2');
  });

  it('reads again at once when asked to force a refresh', async () => {
    const { store, client } = fakeSecretsManager({ s: 'v1' });
    const reader = createSecretsManagerReader({ client, now: () => 0 });
    await reader.read('s');
    store.values.s = 'v2';
    expect(await reader.read('s', { forceRefresh: true })).toBe('v2');
  });

  it('honours a forced refresh at most once per minimum interval when one is set', async () => {
    const { store, client } = fakeSecretsManager({ s: 'v1' });
    let t = 0;
    const reader = createSecretsManagerReader({ client, minForcedRefreshMs: 60_000, now: () => t });
    await reader.read('s');
    store.values.s = 'v2';
    t = 59_999;
    expect(await reader.read('s', { forceRefresh: true })).toBe('v1');
    t = 60_000;
    expect(await reader.read('s', { forceRefresh: true })).toBe('v2');
    expect(store.calls).toBe(2);
  });

  it('shares one read among concurrent callers', async () => {
    const { store, client } = fakeSecretsManager({ s: 'v1' });
    const reader = createSecretsManagerReader({ client });
    await Promise.all([reader.read('s'), reader.read('s', { forceRefresh: true }), reader.read('s')]);
    expect(store.calls).toBe(1);
  });

  it('reports an unreadable secret without its value and reads again next time', async () => {
    const { store, client } = fakeSecretsManager({ s: 'top-secret' });
    const reader = createSecretsManagerReader({ client });
    store.fail = true;
    const err = await reader.read('s').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretReadError);
    expect(err).toMatchObject({ kind: 'unavailable', secretId: 's' });
    store.fail = false;
    expect(await reader.read('s')).toBe('top-secret');
  });

  it('refuses a secret without a SecretString', async () => {
    const { client } = fakeSecretsManager({});
    const reader = createSecretsManagerReader({ client });
    await expect(reader.read('binary')).rejects.toMatchObject({ kind: 'not_a_string' });
  });
});
