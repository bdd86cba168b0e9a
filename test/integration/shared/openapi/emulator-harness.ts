/**
 * The client's integration tests: the real emulator (test/support/emulator.ts) with a configuration
 * of three clients, plus clients of this package wired to it.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestEmulator, type ClientStats, type FaultSpec, type TestEmulator } from '../../../support/emulator.js';
import {
  clearTokenCache,
  createOpenApiClient,
  staticCredentials,
  type CredentialsProvider,
  type OpenApiClient,
  type OpenApiClientOptions,
  type OpenApiCredentials,
} from '../../../../shared/openapi/index.js';

export const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';
export const BOB = '8f6d2c1e-0002-4000-8000-000000000002';
export const UNKNOWN_MEMBER = '8f6d2c1e-9999-4000-8000-000000009999';

/** One contracted client using points, one without the point feature, one without a contract. */
export function testConfig() {
  return {
    now: '2026-01-15 10:00:00',
    clients: [
      {
        client_id: 'shop',
        client_secrets: ['shop-secret'],
        ranks: { regular: 0.01, gold: 0.05 },
        custom_fields: [
          { column: 'column01', key: 'birthday', type: 'date' },
          { column: 'column02', key: 'visit', type: 'datetime' },
        ],
        external_keys: ['shopify', 'pos_card'],
        members: [
          {
            id: ALICE,
            unique_id: 'M0001',
            login_id: 'alice',
            password: 'pass1234',
            rank: 'gold',
            external_ids: { shopify: '1001', pos_card: 'PC-1' },
          },
          { id: BOB, unique_id: 'M0002', login_id: 'bob', password: 'pass1234', external_ids: { shopify: '1002' } },
        ],
      },
      { client_id: 'nopoints', client_secrets: ['np-secret'], uses_points: false, members: [{ id: ALICE, login_id: 'alice' }] },
      { client_id: 'lapsed', client_secrets: ['lapsed-secret'], contracted: false },
    ],
  };
}

export interface Harness {
  url: string;
  emulator: TestEmulator;
  /** Fresh emulator state and an empty token cache. */
  reset(config?: unknown): Promise<void>;
  advanceClock(seconds: number): Promise<void>;
  fault(f: FaultSpec): Promise<void>;
  stats(clientId?: string): Promise<ClientStats>;
  /** Total requests the emulator counted for a client, all routes. */
  totalRequests(clientId?: string): Promise<number>;
  patchClient(clientId: string, patch: Record<string, unknown>): Promise<void>;
  handoverToken(memberId: string, ttlSeconds?: number, clientId?: string): Promise<string>;
  setDeviceChange(memberId: string, on: boolean, clientId?: string): Promise<void>;
  credentials(clientId?: string, secret?: string): OpenApiCredentials;
  client(opts?: Partial<OpenApiClientOptions> & { clientId?: string; secret?: string }): OpenApiClient;
  close(): Promise<void>;
}

const SECRETS: Record<string, string> = { shop: 'shop-secret', nopoints: 'np-secret', lapsed: 'lapsed-secret' };

export async function startHarness(): Promise<Harness> {
  const emulator = await startTestEmulator(testConfig());
  const url = emulator.url;
  const clients: OpenApiClient[] = [];
  const emptyStats: ClientStats = { routes: {}, token_requests: 0, missing_user_agent: 0 };
  const h: Harness = {
    url,
    emulator,
    async reset(config = testConfig()) {
      clearTokenCache();
      await emulator.reset(config);
    },
    advanceClock: (seconds) => emulator.advanceClock(seconds),
    async fault(f) {
      await emulator.addFault(f);
    },
    async stats(clientId = 'shop') {
      return (await emulator.stats(clientId)) ?? emptyStats;
    },
    async totalRequests(clientId = 'shop') {
      const s = await h.stats(clientId);
      return Object.values(s.routes).reduce((n, r) => n + r.total, 0);
    },
    patchClient: (clientId, patch) => emulator.patchClient(clientId, patch),
    handoverToken: (memberId, ttlSeconds = 600, clientId = 'shop') => emulator.handoverToken(clientId, memberId, ttlSeconds),
    setDeviceChange: (memberId, on, clientId = 'shop') => emulator.setDeviceChange(clientId, memberId, on),
    credentials(clientId = 'shop', secret = SECRETS[clientId] ?? '') {
      return { baseUrl: url, clientId, clientSecret: secret };
    },
    client(opts = {}) {
      const { clientId, secret, ...rest } = opts;
      const c = createOpenApiClient({ credentials: staticCredentials(h.credentials(clientId, secret)), ...rest });
      clients.push(c);
      return c;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
  return h;
}

/**
 * The file's harness: started before its tests (then `onStart`, to build the file's clients), reset
 * before each test (fresh emulator state, empty token cache), closed with its clients after them.
 */
export function useHarness(onStart: (h: Harness) => void): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness();
    onStart(h);
  });
  afterAll(async () => h?.close());
  beforeEach(async () => h?.reset());
}

/** A provider that counts how often it is asked (proves a refusal happened before anything else). */
export function countingCredentials(inner: CredentialsProvider): CredentialsProvider & { calls: number } {
  const p = {
    calls: 0,
    get(opts?: { forceRefresh?: boolean }) {
      p.calls++;
      return inner.get(opts);
    },
  };
  return p;
}

/** The rejection of `p` (fails the test if `p` resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}
