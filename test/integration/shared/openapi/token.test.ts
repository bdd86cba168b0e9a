import type { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { describe, expect, it } from 'vitest';
import { createSecretsManagerReader } from '../../../../shared/config/index.js';
import { createOpenApiClient, secretsManagerCredentials } from '../../../../shared/openapi/index.js';
import { ALICE, BOB, useHarness, type Harness } from './emulator-harness.js';

const BY_EXTERNAL_ID = 'GET /api/ext/users/external_id/{external_key}/{external_id}';
const MEMBER_ROUTE = 'GET /api/ext/users/{id}';

let h: Harness;

useHarness((started) => {
  h = started;
});

describe('Open API client, access token', () => {
  it('fetches one token for 50 concurrent calls', async () => {
    const client = h.client();
    const members = await Promise.all(Array.from({ length: 50 }, () => client.getMemberByExternalId('shopify', '1001')));
    expect(members.every((m) => m.id === ALICE)).toBe(true);
    const stats = await h.stats();
    expect(stats.token_requests).toBe(1);
    expect(stats.routes[BY_EXTERNAL_ID]?.total).toBe(50);
  });

  it('shares the cached token between clients of one container', async () => {
    await h.client().getMember(ALICE);
    await h.client().getMember(BOB);
    expect((await h.stats()).token_requests).toBe(1);
  });

  it('after the service clock passes the 86400 s lifetime, gets one new token and the call succeeds', async () => {
    const client = h.client();
    await client.getMember(ALICE);
    await h.advanceClock(86_400);
    expect((await client.getMember(ALICE)).id).toBe(ALICE);
    const stats = await h.stats();
    expect(stats.token_requests).toBe(2);
    expect(stats.routes[MEMBER_ROUTE]?.total).toBe(3); // first call, the refused one, its repeat
  });

  it('after expiry, 50 concurrent calls refused together share one new token', async () => {
    const client = h.client();
    await client.getMember(ALICE);
    await h.advanceClock(86_400);
    await Promise.all(Array.from({ length: 50 }, () => client.getMember(ALICE)));
    expect((await h.stats()).token_requests).toBe(2);
  });

  it('repeats a refused write once with a new token, granting the points once', async () => {
    const client = h.client();
    await client.getMember(BOB);
    await h.advanceClock(86_400);
    const m = await client.grantPoints(BOB, { point: 7 });
    expect(m.point).toBe(7);
    expect((await client.listPoints(BOB)).total).toBe(1);
  });

  it('renews the token ahead of its expiry by its own clock, without a refused request', async () => {
    let now = 1_000_000;
    const client = h.client({ now: () => now });
    await client.getMember(ALICE);
    now += 86_400_000 - 299_000; // inside the last 5 minutes of the token's life
    await client.getMember(ALICE);
    const stats = await h.stats();
    expect(stats.token_requests).toBe(2);
    expect(stats.routes[MEMBER_ROUTE]?.total).toBe(2);
  });

  it('sends a User-Agent on every request', async () => {
    const client = h.client();
    await client.getMember(ALICE);
    await client.grantPoints(BOB, { point: 1 });
    await client.listPoints(BOB);
    const stats = await h.stats();
    expect(stats.missing_user_agent).toBe(0);
    expect(stats.token_requests).toBe(1);
  });
});

describe('Open API client, credential rotation through Secrets Manager', () => {
  /**
   * Secrets Manager cannot run here: the SDK client is stubbed at its `send` boundary, answering
   * GetSecretValue from an in-memory value the test rotates, and counting the reads.
   */
  function fakeSecretsManager(secret: string) {
    const sm = {
      secret,
      reads: 0,
      async send(command: GetSecretValueCommand) {
        expect(command.input.SecretId).toBe('openapi-secret');
        sm.reads++;
        return { SecretString: JSON.stringify({ base_url: h.url, client_id: 'shop', client_secret: sm.secret }) };
      },
    };
    return sm;
  }

  it('after a rotation, re-reads the secret once on the token refusal and carries on', async () => {
    const sm = fakeSecretsManager('shop-secret');
    const reader = createSecretsManagerReader({ client: sm, ttlMs: 300_000 });
    const client = createOpenApiClient({ credentials: secretsManagerCredentials('openapi-secret', reader) });
    try {
      await client.getMember(ALICE);
      // Rotation: the service now knows only the new secret, the store holds it, and the old
      // token has lapsed; the container still caches the old secret (TTL not reached).
      await h.patchClient('shop', { client_secrets: ['rotated-secret'] });
      sm.secret = 'rotated-secret';
      await h.advanceClock(86_400);
      expect((await client.getMember(ALICE)).id).toBe(ALICE);
      expect(sm.reads).toBe(2);
      expect((await h.stats()).token_requests).toBe(3); // first, refused (old secret), renewed
    } finally {
      await client.close();
    }
  });

  it('reads the secret once for many calls within the TTL', async () => {
    const sm = fakeSecretsManager('shop-secret');
    const reader = createSecretsManagerReader({ client: sm });
    const client = createOpenApiClient({ credentials: secretsManagerCredentials('openapi-secret', reader) });
    try {
      await Promise.all(Array.from({ length: 10 }, () => client.getMember(ALICE)));
      expect(sm.reads).toBe(1);
    } finally {
      await client.close();
    }
  });
});
