/**
 * Emulator throughput for the realistic mix the worker sends (external-ID lookup, calculation grant,
 * history read), over keep-alive connections. The emulator runs in its own process (the CLI), as it does
 * under load tests, so the load generator does not share its event loop.
 *
 *   npx tsx bench/emulator.ts [--seconds 10] [--connections 32]
 *
 * Prints figures; never passes or fails on time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

export interface EmulatorBenchOptions {
  /** Measured time (default 10 s), after a 1 s warm-up. */
  durationMs?: number;
  /** Keep-alive connections (default 32). */
  connections?: number;
  /** Customers the load spreads over (default 200). */
  members?: number;
  /** Bench an emulator already running at this URL (its configuration must hold the bench client); default: start one. */
  url?: string;
}

export interface EmulatorBenchResult {
  requestsPerSecond: number;
  requests: number;
  errors: number;
  durationMs: number;
  connections: number;
  cores: number;
  /** CPU time the emulator process spent per request (Linux /proc; undefined elsewhere or for a given url). */
  emulatorCpuMsPerRequest: number | undefined;
  /** Mean latency per request kind, ms. */
  meanLatencyMs: { lookup: number; calculation: number; history: number };
}

const CLIENT_ID = 'bench-client';
const SECRET = 'bench-secret';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

function benchConfig(members: number): unknown {
  return {
    now: '2026-01-15 10:00:00',
    clients: [
      {
        client_id: CLIENT_ID,
        client_secrets: [SECRET],
        ranks: { regular: 0.01, gold: 0.05 },
        members: Array.from({ length: members }, (_, i) => ({
          id: `b0000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          external_ids: { shopify: String(100_000 + i) },
          rank: i % 5 === 0 ? 'gold' : 'regular',
        })),
      },
    ],
  };
}

/** User + system CPU ms of a process, from /proc (Linux); undefined when unreadable. */
async function processCpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

async function startEmulatorProcess(members: number): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'emulator-bench-'));
  const file = join(dir, 'config.json');
  await writeFile(file, JSON.stringify(benchConfig(members)));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'stand-ins/openapi/cli.ts', '--port', '0', '--config', file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /emulator listening on (\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function runEmulatorBench(opts: EmulatorBenchOptions = {}): Promise<EmulatorBenchResult> {
  const durationMs = opts.durationMs ?? 10_000;
  const connections = opts.connections ?? 32;
  const members = opts.members ?? 200;
  const started = opts.url === undefined ? await startEmulatorProcess(members) : undefined;
  const url = opts.url ?? started?.url;
  if (url === undefined) throw new Error('bench: the emulator did not start');
  const pool = new Pool(url, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
  try {
    const tokenRes = await pool.request({
      method: 'POST',
      path: '/api/ext/token',
      headers: { 'content-type': 'application/json', 'user-agent': 'emulator-bench' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: SECRET }),
    });
    const { access_token: token } = (await tokenRes.body.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${token}`, 'user-agent': 'emulator-bench' };
    const jsonHeaders = { ...headers, 'content-type': 'application/json' };

    let counting = false;
    let stop = false;
    let requests = 0;
    let errors = 0;
    // Per kind: total ms and count.
    const latency = { lookup: { ms: 0, n: 0 }, calculation: { ms: 0, n: 0 }, history: { ms: 0, n: 0 } };

    const timed = async (kind: keyof typeof latency, call: () => Promise<{ statusCode: number; body: { text(): Promise<string> } }>) => {
      const t0 = performance.now();
      const res = await call();
      const text = await res.body.text();
      if (counting) {
        requests++;
        if (res.statusCode !== 200) errors++;
        latency[kind].ms += performance.now() - t0;
        latency[kind].n += 1;
      }
      return text;
    };

    const worker = async (w: number): Promise<void> => {
      for (let i = w; !stop; i += connections) {
        const n = i % members;
        const shopify = String(100_000 + n);
        const text = await timed('lookup', () =>
          pool.request({ method: 'GET', path: `/api/ext/users/external_id/shopify/${shopify}`, headers }),
        );
        const id = (JSON.parse(text) as { member: { id: string } }).member.id;
        await timed('calculation', () =>
          pool.request({
            method: 'POST',
            path: `/api/ext/users/${id}/points/calculation`,
            headers: jsonHeaders,
            body: JSON.stringify({ amount: 1000 + (i % 9000), title: 'Order', remarks: `bench:${i}` }),
          }),
        );
        await timed('history', () => pool.request({ method: 'GET', path: `/api/ext/users/${id}/points?per_page=20`, headers }));
      }
    };

    const workers = Array.from({ length: connections }, (_, w) => worker(w));
    await new Promise((r) => setTimeout(r, 1000)); // warm-up: JIT, connections
    const cpu0 = await processCpuMs(started?.pid);
    counting = true;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, durationMs));
    counting = false;
    const elapsed = performance.now() - t0;
    const cpu1 = await processCpuMs(started?.pid);
    stop = true;
    await Promise.all(workers);
    const mean = (k: keyof typeof latency) => (latency[k].n === 0 ? 0 : Math.round((latency[k].ms / latency[k].n) * 100) / 100);
    return {
      requestsPerSecond: Math.round((requests / elapsed) * 1000),
      requests,
      errors,
      durationMs: Math.round(elapsed),
      connections,
      emulatorCpuMsPerRequest:
        cpu0 === undefined || cpu1 === undefined || requests === 0 ? undefined : Math.round(((cpu1 - cpu0) / requests) * 1000) / 1000,
      cores: typeof availableParallelism === 'function' ? availableParallelism() : cpus().length,
      meanLatencyMs: { lookup: mean('lookup'), calculation: mean('calculation'), history: mean('history') },
    };
  } finally {
    await pool.close();
    await started?.stop();
  }
}

export function formatEmulatorBench(r: EmulatorBenchResult): string {
  return [
    `emulator: ${r.requestsPerSecond} requests/s (external-ID lookup + calculation grant + history read)`,
    `  ${r.requests} requests in ${r.durationMs} ms over ${r.connections} keep-alive connections, ${r.errors} errors, ${r.cores} cores`,
    r.emulatorCpuMsPerRequest === undefined
      ? '  emulator CPU per request: not measured'
      : `  emulator CPU per request: ${r.emulatorCpuMsPerRequest} ms (about ${Math.round(1000 / r.emulatorCpuMsPerRequest)} requests/s per core it has to itself)`,
    `  mean latency ms: lookup ${r.meanLatencyMs.lookup}, calculation ${r.meanLatencyMs.calculation}, history ${r.meanLatencyMs.history}`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' } } });
  const result = await runEmulatorBench({ durationMs: Number(values.seconds) * 1000, connections: Number(values.connections) });
  console.log(formatEmulatorBench(result));
}
