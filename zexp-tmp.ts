import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { startEmulator } from './emulator/index.js';
import { DEFAULT_USER_AGENT, clearTokenCache, createOpenApiClient, staticCredentials } from './shared/openapi/index.js';
import { Answers } from './shared/openapi/schemas.js';
import { createTransport } from './shared/openapi/transport.js';
import { encodePathParam } from './shared/openapi/paths.js';
import { createRateLimiter } from './shared/openapi/rate-limiter.js';
import { parseBody } from './shared/openapi/answers.js';
import { peekToken, tokenCacheKey } from './shared/openapi/token-cache.js';
const CONFIG = { now: '2026-01-15 10:00:00', clients: [{ client_id: 'bench', client_secrets: ['bench-secret'], external_keys: ['shopify'], members: [{ login_id: 'alice', external_ids: { shopify: '1001' } }] }] };
const PATH = '/api/ext/users/external_id/shopify/1001';
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
const emulator = await startEmulator({ config: CONFIG });
const origin = new URL(emulator.url).origin;
clearTokenCache();
const client = createOpenApiClient({ credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'bench', clientSecret: 'bench-secret' }), ratePerMinute: 1_000_000_000 });
const pool = new Pool(origin, { keepAliveTimeout: 30_000 });
const pool2 = new Pool(origin, { connect: { timeout: 3000 }, headersTimeout: 10000, bodyTimeout: 10000, keepAliveTimeout: 30_000 });
const tr = createTransport({});
const tokenRes = await pool.request({ path: '/api/ext/token', method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': DEFAULT_USER_AGENT }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'bench', client_secret: 'bench-secret' }) });
const { access_token } = (await tokenRes.body.json()) as { access_token: string };
const headers = { authorization: `Bearer ${access_token}`, 'user-agent': DEFAULT_USER_AGENT, accept: 'application/json' };
await client.getMemberByExternalId('shopify', '1001');
const ctok = peekToken(tokenCacheKey(emulator.url, 'bench'), Date.now())!.value;
const credsP = Promise.resolve({ baseUrl: emulator.url, clientId: 'bench' });
const limiter = createRateLimiter({ perMinute: 1e9, now: Date.now });
const R = 'GET /api/ext/users/external_id/{external_key}/{external_id}';
const KEY = tokenCacheKey(emulator.url, 'bench');
const mini = (lim: boolean, enc = true, key = true, aw = true) => async () => {
  const k = enc ? encodePathParam('external_key', 'externalKey', 'shopify', R) : 'shopify'; const v = enc ? encodePathParam('external_id', 'externalId', '1001', R) : '1001';
  const creds = aw ? await credsP : { baseUrl: emulator.url, clientId: 'bench' };
  const tk = peekToken(key ? tokenCacheKey(creds.baseUrl, creds.clientId) : KEY, Date.now())!;
  if (lim) limiter.reserve(R);
  const a = await tr.send({ method: 'GET', origin, path: `/api/ext/users/external_id/${k}/${v}`, bearer: tk.value, idempotent: true });
  return parseBody(Answers.member, a, R).member.id;
};
const sides: Record<string, () => Promise<unknown>> = {
  bare: async () => { const res = await pool.request({ path: PATH, method: 'GET', headers }); return JSON.parse(await res.body.text()).member.id; },
  //bareIdem: async () => { const res = await pool.request({ path: PATH, method: 'GET', headers, idempotent: true }); return JSON.parse(await res.body.text()).member.id; },
  //barePool2: async () => { const res = await pool2.request({ path: PATH, method: 'GET', headers }); return JSON.parse(await res.body.text()).member.id; },
  //transport: async () => { const a = await tr.send({ method: 'GET', origin, path: PATH, bearer: access_token, idempotent: true }); return JSON.parse(a.text).member.id; },
  trParse: async () => { const a = await tr.send({ method: 'GET', origin, path: PATH, bearer: access_token, idempotent: true }); return parseBody(Answers.member, a, 'r').member.id; },
  mini: mini(false),
  //noEnc: mini(false, false),
  //noKey: mini(false, true, false),
  //noAw: mini(false, true, true, false),
  //trAwait: async () => { await Promise.resolve(); await Promise.resolve(); await Promise.resolve(); const a = await tr.send({ method: 'GET', origin, path: PATH, bearer: access_token, idempotent: true }); return parseBody(Answers.member, a, 'r').member.id; },
  //trCtok: async () => { const a = await tr.send({ method: 'GET', origin, path: PATH, bearer: ctok, idempotent: true }); return JSON.parse(a.text).member.id; },
  client: () => client.getMemberByExternalId('shopify', '1001'),
};
const names = Object.keys(sides);
const us: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let i = 0; i < 300; i++) for (const n of names) await sides[n]!();
const N = Number(process.argv[2] ?? 3000);
for (let i = 0; i < N; i++) for (let j = 0; j < names.length; j++) { const n = names[(i + j) % names.length]!; const t = performance.now(); await sides[n]!(); us[n]!.push((performance.now() - t) * 1000); }
const b = us['bare']!;
for (const n of names) console.log(n.padEnd(10), 'p50', median(us[n]!).toFixed(1), 'paired', median(us[n]!.map((x, i) => x - b[i]!)).toFixed(1));
await client.close(); await tr.close(); await pool.close(); await pool2.close(); await emulator.close();
