import { Pool } from 'undici';
import { clearTokenCache, createOpenApiClient, staticCredentials } from './shared/openapi/index.js';
import { Answers } from './shared/openapi/schemas.js';
const TEXT = '{"member":{"id":"6a59178f-1943-4576-9b2f-3cc0e9321434","unique_id":null,"pin":null,"login_id":"alice","rank":"regular","secret_question":null,"secret_answer":null,"point":0,"total_point":0,"logined":0,"enabled":1,"memo":null,"ud_id":null,"point_geted_at":null,"point_used_at":"--","point_expired_at":"--","point_expired_point":"--","external_ids":{"shopify":"1001"},"logined_at":null,"created_at":"2026-01-15 10:00:00","updated_at":"2026-01-15 10:00:00"}}';
const TOK = '{"access_token":"abc","token_type":"Bearer","expires_in":86400}';
(Pool.prototype as any).request = async function (o: any) { return { statusCode: 200, headers: {}, body: { text: async () => (o.path.endsWith('token') ? TOK : TEXT) } }; };
clearTokenCache();
const client = createOpenApiClient({ credentials: staticCredentials({ baseUrl: 'http://127.0.0.1:1', clientId: 'bench', clientSecret: 'bench-secret' }), ratePerMinute: 1_000_000_000 });
const pool = new Pool('http://127.0.0.1:1');
const headers = { authorization: 'Bearer abc', 'user-agent': 'x', accept: 'application/json' };
const sides: Record<string, () => Promise<unknown>> = {
  bare: async () => { const res: any = await pool.request({ path: '/x', method: 'GET', headers }); return JSON.parse(await res.body.text()).member.id; },
  bareVal: async () => { const res: any = await pool.request({ path: '/x', method: 'GET', headers }); return Answers.member.parse(JSON.parse(await res.body.text())).member.id; },
  client: () => client.getMemberByExternalId('shopify', '1001'),
};
for (let k = 0; k < 3; k++) for (const [n, f] of Object.entries(sides)) {
  for (let i = 0; i < 20000; i++) await f();
  const t = performance.now(); const N = 200000;
  for (let i = 0; i < N; i++) await f();
  console.log(n.padEnd(8), ((performance.now() - t) * 1000 / N).toFixed(2), 'us');
}
