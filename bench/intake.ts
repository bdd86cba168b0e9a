import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptions } from '../infra/bundling.js';
import { depsFromEnv, makeHandler } from '../functions/receive-webhook.js';
import { productionIntakeEnv, productionShop } from './production.js';
import { staticWebhookSecrets } from '../shared/config/index.js';
import type { EventQueue } from '../shared/queue/index.js';
import { apiGatewayEvent, fixture, posHeaders, shopifyHeaders } from '../kit/fixture-webhooks.js';

/**
 * Intake figures: handler invocations per second (in process, queue = in-memory), the minified
 * bundle of functions/receive-webhook.ts (targets: < 150 KB) and its module load time in a fresh
 * Node process (target: < 50 ms). Prints figures; never passes or fails on them.
 *
 * Two bundles are measured, both from the stack's definition (infra/bundling.ts): `sdkExternal` as
 * deployed (`@aws-sdk/*` left to the Lambda runtime's copy) and `full` with the pinned SDK bundled.
 */

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export interface IntakeBenchOptions {
  /** How long each throughput scenario runs, ms (default 1000). */
  durationMs?: number;
  /** Fresh-process module loads per bundle (default 5). */
  loadSamples?: number;
}

export interface BundleFigure {
  /** The .mjs file, bytes (its .map file, shipped beside it, not counted). */
  bytes: number;
  gzipBytes: number;
  loadMsP50: number;
  loadMsMax: number;
  /** p50 with `--enable-source-maps`, which the deployed function runs with (its NODE_OPTIONS). */
  sourceMapsLoadMsP50: number;
}

export interface IntakeBenchFigures {
  /** Handler invocations per second, by outcome. */
  invocationsPerSecond: { shopifyAccepted: number; posAccepted: number; forgedRejected: number; topicIgnored: number };
  bundles: { full: BundleFigure; sdkExternal: BundleFigure };
  /** Load time of an empty module measured the same way: the floor of this machine right now. */
  emptyModuleLoadMsP50: number;
  /** 1-minute load average while measuring (figures on a busy shared machine read high). */
  loadAverage: number;
  targets: { bundleBytes: number; loadMs: number };
}

async function throughput(durationMs: number): Promise<IntakeBenchFigures['invocationsPerSecond']> {
  const discard: EventQueue = { send: async () => undefined };
  const nowS = 1_795_000_000;
  // Built from the environment the production stack gives it; its secrets (Secrets Manager there) given here.
  const handle = makeHandler(
    depsFromEnv(productionIntakeEnv(), {
      secrets: staticWebhookSecrets({ shopify: ['bench-shopify'], pos: ['bench-pos'] }),
      queue: discard,
      now: () => nowS * 1000,
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      recordDelivery: () => undefined,
    }),
  );
  const order = fixture('shopify/orders-paid-usd-discount-shipping.json');
  // The production stage takes its own shop's deliveries only (its shopDomains).
  const shop = { 'x-shopify-shop-domain': productionShop() };
  const sale = fixture('pos/sale.json');
  const events = {
    shopifyAccepted: apiGatewayEvent('shopify', order, shopifyHeaders(order, 'bench-shopify', 'orders/paid', shop)),
    posAccepted: apiGatewayEvent('pos', sale, posHeaders(sale, 'bench-pos', nowS)),
    forgedRejected: apiGatewayEvent('shopify', order, shopifyHeaders(order, 'forged', 'orders/paid', shop)),
    topicIgnored: apiGatewayEvent('shopify', order, shopifyHeaders(order, 'bench-shopify', 'products/update', shop)),
  };
  const result = {} as IntakeBenchFigures['invocationsPerSecond'];
  for (const [name, event] of Object.entries(events) as [keyof typeof events, (typeof events)[keyof typeof events]][]) {
    for (let i = 0; i < 200; i++) await handle(event); // warm-up
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < durationMs) {
      for (let i = 0; i < 50; i++) await handle(event);
      count += 50;
    }
    result[name] = Math.round(count / ((performance.now() - start) / 1000));
  }
  return result;
}

/** Built from the stack's one definition (infra/bundling.ts); `full` with the pinned SDK bundled instead of left to the runtime. */
async function bundle(outfile: string, sdkExternal: boolean): Promise<void> {
  const options = esbuildOptions('receiveWebhook', outfile);
  await build(sdkExternal ? options : { ...options, external: [] });
}

async function loadTimes(file: string, samples: number, nodeFlags: string[] = []): Promise<number[]> {
  const probe = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(file).href)});process.stdout.write(String(performance.now()-t));`;
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const { stdout } = await run(process.execPath, [...nodeFlags, '--input-type=module', '-e', probe], {
      cwd: ROOT,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    times.push(Number(stdout));
  }
  return times.sort((a, b) => a - b);
}

async function bundleFigure(outDir: string, name: string, sdkExternal: boolean, samples: number): Promise<BundleFigure> {
  const outfile = join(outDir, `${name}.mjs`);
  await bundle(outfile, sdkExternal);
  const times = await loadTimes(outfile, samples);
  const withMaps = await loadTimes(outfile, samples, ['--enable-source-maps']);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    bytes: (await stat(outfile)).size,
    gzipBytes: gzipSync(await readFile(outfile)).length,
    loadMsP50: round(times[Math.floor(times.length / 2)] ?? Number.NaN),
    loadMsMax: round(times[times.length - 1] ?? Number.NaN),
    sourceMapsLoadMsP50: round(withMaps[Math.floor(withMaps.length / 2)] ?? Number.NaN),
  };
}

export async function runIntakeBench(opts: IntakeBenchOptions = {}): Promise<IntakeBenchFigures> {
  const outDir = join(ROOT, 'node_modules', '.cache', 'bench-intake');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const samples = opts.loadSamples ?? 5;
  const empty = join(outDir, 'empty.mjs');
  await writeFile(empty, 'export {};\n');
  const emptyTimes = await loadTimes(empty, samples);
  return {
    invocationsPerSecond: await throughput(opts.durationMs ?? 1000),
    bundles: {
      full: await bundleFigure(outDir, 'receive-webhook.full', false, samples),
      sdkExternal: await bundleFigure(outDir, 'receive-webhook.sdk-external', true, samples),
    },
    emptyModuleLoadMsP50: Math.round((emptyTimes[Math.floor(emptyTimes.length / 2)] ?? Number.NaN) * 10) / 10,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    targets: { bundleBytes: 150 * 1024, loadMs: 50 },
  };
}

function print(f: IntakeBenchFigures): void {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log('intake: handler invocations per second (in process, in-memory queue)');
  for (const [name, n] of Object.entries(f.invocationsPerSecond)) console.log(`  ${name.padEnd(16)} ${n}/s`);
  console.log(
    `intake: receive-webhook bundle (esbuild, minified, ESM); targets < ${kb(f.targets.bundleBytes)}, load < ${f.targets.loadMs} ms`,
  );
  for (const [name, b] of Object.entries(f.bundles)) {
    console.log(
      `  ${name.padEnd(12)} ${kb(b.bytes)} (gzip ${kb(b.gzipBytes)}), module load p50 ${b.loadMsP50} ms, max ${b.loadMsMax} ms; with --enable-source-maps p50 ${b.sourceMapsLoadMsP50} ms`,
    );
  }
  console.log(`  (an empty module loads in ${f.emptyModuleLoadMsP50} ms here; load average ${f.loadAverage})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  print(await runIntakeBench());
}
