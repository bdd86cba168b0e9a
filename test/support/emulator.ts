/**
 * Test helper: the real emulator in-process on a free port, plus its admin calls
 * (stand-ins/openapi/README.md, "Admin API"). Share one per test file and `reset()` between tests.
 */
import { startEmulator } from '../../stand-ins/openapi/index.js';

export interface FaultSpec {
  method?: string;
  path: string;
  fault: 'error_500' | 'delay' | 'reset_before' | 'reset_after_commit' | 'status' | 'late_commit';
  times?: number;
  delay_ms?: number;
  /** `status` fault (and `late_commit` answering "status"): the answer's status (4xx/5xx), body (sent as is) and headers. */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** `late_commit`: the answer given at once; the operation runs `commit_after_ms` of real time after the request arrived. */
  answer?: 'reset' | 'hold' | 'status';
  commit_after_ms?: number;
}

export interface RouteStats {
  total: number;
  max_per_minute: number;
}

export interface ClientStats {
  routes: Record<string, RouteStats>;
  token_requests: number;
  missing_user_agent: number;
}

export interface TestEmulator {
  url: string;
  close(): Promise<void>;
  /** Back to `config`, or to the configuration it started with. */
  reset(config?: unknown): Promise<void>;
  /** Any admin call; `path` is relative to /__emulator. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  now(): Promise<string>;
  setClock(now: string): Promise<void>;
  advanceClock(seconds: number): Promise<void>;
  addFault(fault: FaultSpec): Promise<string>;
  clearFaults(): Promise<void>;
  stats(clientId: string): Promise<ClientStats | undefined>;
  patchClient(clientId: string, patch: Record<string, unknown>): Promise<void>;
  handoverToken(clientId: string, memberId: string, ttlSeconds?: number): Promise<string>;
  setDeviceChange(clientId: string, memberId: string, deviceChange: boolean): Promise<void>;
}

/** A client configuration with the contract's defaults plus `overrides`. */
export function testClient(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: 'test-client',
    client_secrets: ['test-secret'],
    external_keys: ['shopify', 'pos_card'],
    ranks: { regular: 0.01, gold: 0.05 },
    default_rank: 'regular',
    ...overrides,
  };
}

/** Starts the emulator with `config` (default: one `testClient()` with the clock frozen at 2026-01-15 10:00:00). */
export async function startTestEmulator(config: unknown = { now: '2026-01-15 10:00:00', clients: [testClient()] }): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, config });
  const base = `${emulator.url}/__emulator`;

  async function admin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }
  async function ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await admin<T>(method, path, body);
    if (r.status >= 300) throw new Error(`admin ${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  }

  return {
    url: emulator.url,
    close: () => emulator.close(),
    admin,
    reset: async (cfg) => {
      await ok('POST', '/reset', cfg);
    },
    now: async () => (await ok<{ now: string }>('GET', '/clock')).now,
    setClock: async (now) => {
      await ok('POST', '/clock', { now });
    },
    advanceClock: async (seconds) => {
      await ok('POST', '/clock', { advance_seconds: seconds });
    },
    addFault: async (fault) => (await ok<{ id: string }>('POST', '/faults', fault)).id,
    clearFaults: async () => {
      await ok('DELETE', '/faults');
    },
    stats: async (clientId) => (await ok<{ clients: Record<string, ClientStats> }>('GET', '/stats')).clients[clientId],
    patchClient: async (clientId, patch) => {
      await ok('PATCH', `/clients/${encodeURIComponent(clientId)}`, patch);
    },
    handoverToken: async (clientId, memberId, ttlSeconds = 600) =>
      (
        await ok<{ token: string }>('POST', `/clients/${encodeURIComponent(clientId)}/handover-tokens`, {
          member_id: memberId,
          ttl_seconds: ttlSeconds,
        })
      ).token,
    setDeviceChange: async (clientId, memberId, deviceChange) => {
      await ok('PATCH', `/clients/${encodeURIComponent(clientId)}/members/${encodeURIComponent(memberId)}`, {
        device_change: deviceChange,
      });
    },
  };
}
