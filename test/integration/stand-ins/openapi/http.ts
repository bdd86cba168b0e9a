/**
 * Raw HTTP calls to the emulator's /api/ext endpoints, as a client of the Open API would make them, and
 * the per-file emulator the tests make them to (`useEmulator`).
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestEmulator, testClient, type TestEmulator } from '../../../support/emulator.js';

export const NOW = '2026-01-15 10:00:00';
export const ALICE = '00000000-0000-4000-8000-00000000000a';
export const BOB = '00000000-0000-4000-8000-00000000000b';

/** One points client with a custom field of each type, two seed customers; a client without points; an uncontracted one. */
export function fixtureConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    now: NOW,
    clients: [
      testClient({
        custom_fields: [
          { column: 'column01', key: 'nickname', type: 'string' },
          { column: 'column02', key: 'shoe_size', type: 'number' },
          { column: 'column03', key: 'birthday', type: 'date' },
          { column: 'column04', key: 'visited_at', type: 'datetime' },
        ],
        members: [
          { id: ALICE, unique_id: 'U-ALICE', login_id: 'alice', password: 'pass1234', external_ids: { shopify: '1001', pos_card: 'PC-1' } },
          { id: BOB, unique_id: 'U-BOB', login_id: 'bob', password: 'secret99', rank: 'gold', external_ids: { shopify: '1002' } },
        ],
        ...overrides,
      }),
      testClient({ client_id: 'nopoints', client_secrets: ['np-secret'], uses_points: false, members: [{ id: ALICE }] }),
      testClient({ client_id: 'ended', client_secrets: ['ended-secret'], contracted: false }),
    ],
  };
}

/** The Open API's structured error body (token, 404, 405, 500): one message, repeated in all_errors, and a code. */
export function structuredError(message: string, code: string): Record<string, unknown> {
  return { status: false, errors: [message], all_errors: [message], error_code: code };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers field by field; unknown would need a cast per assertion.
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as application/x-www-form-urlencoded instead of JSON. */
  form?: Record<string, string>;
  /** Sent as multipart/form-data. */
  multipart?: Record<string, string>;
  headers?: Record<string, string>;
  /** Override the access token ('' sends no Authorization header). */
  token?: string;
}

export async function request(baseUrl: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { 'user-agent': 'emulator-tests', ...opts.headers };
  let body: string | FormData | undefined;
  if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  } else if (opts.multipart) {
    const fd = new FormData();
    for (const [k, v] of Object.entries(opts.multipart)) fd.append(k, v);
    body = fd;
  } else if (opts.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  if (opts.token !== undefined && opts.token !== '') headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export interface Api {
  token: string;
  call(method: string, path: string, opts?: CallOptions): Promise<Reply>;
  get(path: string): Promise<Reply>;
  post(path: string, body?: unknown): Promise<Reply>;
  put(path: string, body: unknown): Promise<Reply>;
  del(path: string, body?: unknown): Promise<Reply>;
}

export async function fetchToken(emu: TestEmulator, clientId = 'test-client', secret = 'test-secret'): Promise<string> {
  const r = await request(emu.url, 'POST', '/api/ext/token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
  });
  if (r.status !== 200) throw new Error(`token request answered ${r.status}: ${r.text}`);
  return r.body.access_token as string;
}

/** A client of `clientId` holding a fresh token. */
export async function connect(emu: TestEmulator, clientId = 'test-client', secret = 'test-secret'): Promise<Api> {
  const token = await fetchToken(emu, clientId, secret);
  const call = (method: string, path: string, opts: CallOptions = {}) => request(emu.url, method, path, { token, ...opts });
  return {
    token,
    call,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body === undefined ? {} : { body }),
    put: (path, body) => call('PUT', path, { body }),
    del: (path, body) => call('DELETE', path, body === undefined ? {} : { body }),
  };
}

export interface EmulatorUnderTest {
  /** The file's emulator, started before its first test and reset before each. */
  emu: TestEmulator;
  /** test-client holding a fresh token, taken before each test (unless `connect: false`). */
  api: Api;
  /** Takes a fresh token into `api`: after a reset to another configuration, or a clock move. */
  reconnect(): Promise<void>;
}

/**
 * Registers the hooks that give a test file one emulator started with `config`, reset before each
 * test. `emu` and `api` are filled in place by those hooks (the objects they copy hold closures
 * only), so a test uses them as it would the objects themselves.
 */
export function useEmulator(config = fixtureConfig(), opts: { connect?: boolean } = {}): EmulatorUnderTest {
  const emu = {} as TestEmulator;
  const api = {} as Api;
  const reconnect = async () => {
    Object.assign(api, await connect(emu));
  };
  beforeAll(async () => {
    Object.assign(emu, await startTestEmulator(config));
  });
  afterAll(() => emu.close());
  beforeEach(async () => {
    await emu.reset();
    if (opts.connect ?? true) await reconnect();
  });
  return { emu, api, reconnect };
}
