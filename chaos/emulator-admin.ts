import { request } from 'undici';

/**
 * The emulator's admin API (/__emulator, described in stand-ins/openapi/README.md) and independent reads of
 * the Open API with plain HTTP: the final check must not go through the product's own client.
 */

/** The emulator faults the chaos runs draw (faults.ts). */
export type FaultKind = 'error_500' | 'delay' | 'reset_before' | 'reset_after_commit';

interface FaultSelector {
  method?: string;
  path: string;
  times: number;
}

/**
 * A fault as the emulator's admin API takes it: one the runs draw, or a `late_commit` (answered at once,
 * run `commit_after_ms` of real time later; `status`, `body`, `headers` with the answer "status").
 */
export type FaultSpec =
  | (FaultSelector & { fault: FaultKind; delay_ms?: number })
  | (FaultSelector & {
      fault: 'late_commit';
      answer: 'reset' | 'hold' | 'status';
      commit_after_ms: number;
      status?: number;
      body?: string;
      headers?: Record<string, string>;
    });

export interface RouteStats {
  total: number;
  max_per_minute: number;
}

export interface EmulatorStats {
  clients: Record<string, { routes: Record<string, RouteStats>; token_requests: number; missing_user_agent: number }>;
}

async function call(url: string, method: 'GET' | 'POST' | 'DELETE' | 'PATCH', body?: unknown): Promise<unknown> {
  const response = await request(url, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': 'chaos-admin' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: HTTP ${response.statusCode} ${text.slice(0, 200)}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export function emulatorAdmin(baseUrl: string) {
  const admin = `${baseUrl.replace(/\/$/, '')}/__emulator`;
  return {
    addFault: (fault: FaultSpec) => call(`${admin}/faults`, 'POST', fault) as Promise<{ id: string }>,
    clearFaults: () => call(`${admin}/faults`, 'DELETE'),
    stats: () => call(`${admin}/stats`, 'GET') as Promise<EmulatorStats>,
    advanceClock: (seconds: number) => call(`${admin}/clock`, 'POST', { advance_seconds: seconds }) as Promise<{ now: string }>,
    clock: () => call(`${admin}/clock`, 'GET') as Promise<{ now: string }>,
    reset: (config?: unknown) => call(`${admin}/reset`, 'POST', config),
    /** Changes client settings, e.g. `{ history_lag_ms: 3000 }` (a point history that many ms behind). */
    patchClient: (clientId: string, patch: Record<string, unknown>) =>
      call(`${admin}/clients/${encodeURIComponent(clientId)}`, 'PATCH', patch),
    /** A single-use handover token for the member, as the membership system issues one for its link button. */
    handoverToken: async (clientId: string, memberId: string, ttlSeconds = 600) =>
      (
        (await call(`${admin}/clients/${encodeURIComponent(clientId)}/handover-tokens`, 'POST', {
          member_id: memberId,
          ttl_seconds: ttlSeconds,
        })) as { token: string }
      ).token,
  };
}
export type EmulatorAdmin = ReturnType<typeof emulatorAdmin>;

/** A client's requests so far per route (the emulator's stats keys), for the fault injector's pacing. */
export async function routeRequestsOf(admin: Pick<EmulatorAdmin, 'stats'>, clientId: string): Promise<Record<string, number>> {
  const routes = (await admin.stats()).clients[clientId]?.routes ?? {};
  return Object.fromEntries(Object.entries(routes).map(([route, r]) => [route, r.total]));
}

export interface UpstreamMember {
  id: string;
  point: number;
}

export interface UpstreamEntry {
  id: string;
  point: number;
  title: string | null;
  remarks: string | null;
  created_at: string;
}

/** Reads balances and histories over plain HTTP with its own token. */
export function upstreamReader(options: { baseUrl: string; clientId: string; clientSecret: string }) {
  const base = options.baseUrl.replace(/\/$/, '');
  let token: string | undefined;
  const headers = (): Record<string, string> => ({ authorization: `Bearer ${token ?? ''}`, 'user-agent': 'chaos-check' });

  async function ensureToken(): Promise<void> {
    if (token) return;
    const response = await request(`${base}/api/ext/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'chaos-check' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret }),
    });
    const body = (await response.body.json()) as { access_token?: string };
    if (response.statusCode !== 200 || !body.access_token) throw new Error(`token request failed: HTTP ${response.statusCode}`);
    token = body.access_token;
  }

  async function get(path: string): Promise<{ status: number; body: unknown }> {
    await ensureToken();
    const response = await request(`${base}${path}`, { method: 'GET', headers: headers() });
    const text = await response.body.text();
    return { status: response.statusCode, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  }

  return {
    /** null when the membership service answers "member not found". */
    async memberByExternalId(key: string, externalId: string): Promise<UpstreamMember | null> {
      const { status, body } = await get(`/api/ext/users/external_id/${encodeURIComponent(key)}/${encodeURIComponent(externalId)}`);
      if (status === 400) return null;
      if (status !== 200) throw new Error(`member lookup ${key}/${externalId}: HTTP ${status}`);
      const member = (body as { member: { id: string; point: number } }).member;
      return { id: member.id, point: member.point };
    },
    async history(memberId: string): Promise<UpstreamEntry[]> {
      const entries: UpstreamEntry[] = [];
      for (let page = 1; ; page += 1) {
        const { status, body } = await get(`/api/ext/users/${encodeURIComponent(memberId)}/points?per_page=1000&page=${page}`);
        if (status !== 200) throw new Error(`history of ${memberId}: HTTP ${status}`);
        const data = body as { points: UpstreamEntry[]; last_page: number };
        entries.push(
          ...data.points.map((p) => ({ id: String(p.id), point: p.point, title: p.title, remarks: p.remarks, created_at: p.created_at })),
        );
        if (page >= data.last_page) return entries;
      }
    },
  };
}
