/**
 * What the Open API client costs per call over a bare undici request to the same emulator route, in
 * the same run (target: client / bare <= 1.10), and how many calls per second it carries over a warm
 * pool. Prints figures; never passes or fails on time.
 *
 *   npx tsx bench/client.ts [--calls 400] [--rounds 5] [--concurrency 16] [--throughput-calls 4000]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Pool } from 'undici';
import { startEmulator } from '../stand-ins/openapi/index.js';
import {
  Answers,
  clearTokenCache,
  createOpenApiClient,
  DEFAULT_TIMEOUTS,
  DEFAULT_USER_AGENT,
  staticCredentials,
} from '../shared/openapi/index.js';

export interface ClientBenchOptions {
  /** Sequential call pairs (one bare, one through the client) per round (default 400). */
  calls?: number;
  /** Rounds of `calls` pairs; within a pair the two sides alternate going first (default 5). */
  rounds?: number;
  /** Concurrent callers in the throughput run (default 16). */
  concurrency?: number;
  /** Calls in the throughput run (default 4000). */
  throughputCalls?: number;
}

export interface ClientBenchFigures {
  route: string;
  callsPerSide: number;
  /** Median and mean latency of one sequential call, microseconds. */
  bare: { p50Us: number; meanUs: number };
  client: { p50Us: number; meanUs: number };
  /** client p50 / bare p50 (target <= 1.10). */
  ratio: number;
  /** client mean / bare mean. */
  ratioMean: number;
  /** What the client adds per call: median of paired differences, microseconds. */
  overheadUs: number;
  /** (bare p50 + overheadUs) / bare p50: the ratio with machine noise paired out. */
  ratioPaired: number;
  /** Bare request + the client's zod validation of the answer. */
  bareValidated: { p50Us: number; meanUs: number };
  /**
   * A bare request over Node's http module with a keep-alive agent (what the client's transport uses
   * since issue 18), and the client against it: the client's own overhead without the HTTP stack's.
   */
  bareNodeHttp: { p50Us: number; meanUs: number; clientRatio: number };
  /** Part of overheadUs that is the zod validation of the answer (median of paired differences). */
  validationUs: number;
  throughput: { concurrency: number; calls: number; clientCallsPerSecond: number; bareCallsPerSecond: number };
}

const CONFIG = {
  now: '2026-01-15 10:00:00',
  clients: [
    {
      client_id: 'bench',
      client_secrets: ['bench-secret'],
      external_keys: ['shopify'],
      members: [{ login_id: 'alice', external_ids: { shopify: '1001' } }],
    },
  ],
};
const PATH = '/api/ext/users/external_id/shopify/1001';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round1 = (x: number) => Math.round(x * 10) / 10;

/** Times the sides call by call, rotating which goes first, so all see the same machine. */
async function timeInterleaved(n: number, sides: Array<{ call: () => Promise<unknown>; us: number[] }>) {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < sides.length; j++) {
      const side = sides[(i + j) % sides.length];
      if (!side) continue;
      const t = performance.now();
      await side.call();
      side.us.push((performance.now() - t) * 1000);
    }
  }
}

async function throughput(total: number, concurrency: number, call: () => Promise<unknown>): Promise<number> {
  let left = total;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await call();
    }),
  );
  return total / ((performance.now() - t) / 1000);
}

export async function runClientBench(opts: ClientBenchOptions = {}): Promise<ClientBenchFigures> {
  const calls = opts.calls ?? 400;
  const rounds = opts.rounds ?? 5;
  const concurrency = opts.concurrency ?? 16;
  const throughputCalls = opts.throughputCalls ?? 4000;

  const emulator = await startEmulator({ config: CONFIG });
  const origin = new URL(emulator.url).origin;
  clearTokenCache();
  // The limiter's default budget (2000/min) would dominate a benchmark; this measures the client's own cost.
  const client = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'bench', clientSecret: 'bench-secret' }),
    ratePerMinute: 1_000_000_000,
  });
  // The same pool settings as the client's transport (timeouts arm timers per request): like with like.
  const pool = new Pool(origin, {
    connect: { timeout: DEFAULT_TIMEOUTS.connectMs },
    headersTimeout: DEFAULT_TIMEOUTS.headersMs,
    bodyTimeout: DEFAULT_TIMEOUTS.bodyMs,
    keepAliveTimeout: 30_000,
  });
  const agent = new HttpAgent({ keepAlive: true });
  try {
    const tokenRes = await pool.request({
      path: '/api/ext/token',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': DEFAULT_USER_AGENT },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'bench', client_secret: 'bench-secret' }),
    });
    const { access_token } = (await tokenRes.body.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${access_token}`, 'user-agent': DEFAULT_USER_AGENT, accept: 'application/json' };

    // The bare side does what any caller must: send, read the body, parse the JSON.
    const bare = async () => {
      const res = await pool.request({ path: PATH, method: 'GET', headers });
      const body = JSON.parse(await res.body.text()) as { member: { id: string } };
      if (res.statusCode !== 200) throw new Error(`bare request answered ${res.statusCode}`);
      return body.member.id;
    };
    // The bare request plus the response validation the client does (the same compiled zod schema):
    // splits the client's cost into "validating the answer" and "everything else".
    const memberAnswer = Answers.member();
    const bareValidated = async () => {
      const res = await pool.request({ path: PATH, method: 'GET', headers });
      return memberAnswer.parse(JSON.parse(await res.body.text())).member.id;
    };
    const viaClient = () => client.getMemberByExternalId('shopify', '1001');
    const target = new URL(origin);
    const bareNode = () =>
      new Promise<string>((resolve, reject) => {
        const req = httpRequest({ agent, hostname: target.hostname, port: target.port, path: PATH, method: 'GET', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { member: { id: string } }).member.id));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });

    // Warm both: connections open, token cached, JIT settled.
    for (let i = 0; i < 200; i++) {
      await bare();
      await viaClient();
    }

    const bareUs: number[] = [];
    const validatedUs: number[] = [];
    const clientUs: number[] = [];
    const nodeUs: number[] = [];
    for (let i = 0; i < 200; i++) await bareNode();
    const sides = [
      { call: bare, us: bareUs },
      { call: bareNode, us: nodeUs },
      { call: bareValidated, us: validatedUs },
      { call: viaClient, us: clientUs },
    ];
    for (let r = 0; r < rounds; r++) await timeInterleaved(calls, sides);

    const bareTput = await throughput(throughputCalls, concurrency, bare);
    const clientTput = await throughput(throughputCalls, concurrency, viaClient);

    const b50 = median(bareUs);
    const c50 = median(clientUs);
    // Paired differences: each client call against the bare call next to it (robust to load drift).
    // Paired by call: the two arrays have one entry per interleaved round.
    const paired = median(clientUs.map((c, i) => c - (bareUs[i] ?? c)));
    const pairedValidation = median(validatedUs.map((v, i) => v - (bareUs[i] ?? v)));
    return {
      route: `GET ${PATH}`,
      callsPerSide: calls * rounds,
      bare: { p50Us: round1(b50), meanUs: round1(mean(bareUs)) },
      client: { p50Us: round1(c50), meanUs: round1(mean(clientUs)) },
      ratio: Math.round((c50 / b50) * 1000) / 1000,
      ratioMean: Math.round((mean(clientUs) / mean(bareUs)) * 1000) / 1000,
      overheadUs: round1(paired),
      ratioPaired: Math.round(((b50 + paired) / b50) * 1000) / 1000,
      validationUs: round1(pairedValidation),
      bareValidated: { p50Us: round1(median(validatedUs)), meanUs: round1(mean(validatedUs)) },
      bareNodeHttp: {
        p50Us: round1(median(nodeUs)),
        meanUs: round1(mean(nodeUs)),
        clientRatio: Math.round((c50 / median(nodeUs)) * 1000) / 1000,
      },
      throughput: {
        concurrency,
        calls: throughputCalls,
        clientCallsPerSecond: Math.round(clientTput),
        bareCallsPerSecond: Math.round(bareTput),
      },
    };
  } finally {
    await client.close();
    await pool.close();
    agent.destroy();
    await emulator.close();
  }
}

function printFigures(f: ClientBenchFigures): void {
  console.log(`Open API client vs bare undici, ${f.route}, ${f.callsPerSide} sequential calls each (interleaved)`);
  console.log(`  bare    p50 ${f.bare.p50Us} us   mean ${f.bare.meanUs} us`);
  console.log(`  bare + zod validation  p50 ${f.bareValidated.p50Us} us   mean ${f.bareValidated.meanUs} us`);
  console.log(`  client  p50 ${f.client.p50Us} us   mean ${f.client.meanUs} us`);
  console.log(
    `  bare node:http p50 ${f.bareNodeHttp.p50Us} us (the client's HTTP stack); client / bare node:http ${f.bareNodeHttp.clientRatio}`,
  );
  console.log(`  ratio   p50 ${f.ratio}   mean ${f.ratioMean}   paired ${f.ratioPaired}   (target <= 1.10)`);
  console.log(`  client overhead ${f.overheadUs} us/call (median of paired differences), of which answer validation ${f.validationUs} us`);
  console.log(
    `  warm pool, ${f.throughput.concurrency} concurrent callers, ${f.throughput.calls} calls: ` +
      `client ${f.throughput.clientCallsPerSecond} calls/s, bare ${f.throughput.bareCallsPerSecond} calls/s`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      calls: { type: 'string' },
      rounds: { type: 'string' },
      concurrency: { type: 'string' },
      'throughput-calls': { type: 'string' },
    },
  });
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const figures = await runClientBench({
    calls: num(values.calls),
    rounds: num(values.rounds),
    concurrency: num(values.concurrency),
    throughputCalls: num(values['throughput-calls']),
  });
  printFigures(figures);
}
