import { execFile } from 'node:child_process';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptions, FUNCTION_BUNDLE, type FunctionCode, functionName } from '../infra/bundling.js';
import { FUNCTION_ENTRIES, FUNCTION_EXTERNAL_MODULES } from '../infra/paths.js';

/**
 * Bundle size and module load time of each function, bundled from the one definition the CDK stack
 * uses (infra/bundling.ts: entry points, externals, esbuild options), so what is measured is what
 * `cdk synth` ships. Each sample is a fresh Node process: load = evaluating the module; init = that
 * plus `depsFromEnv` with the stack's environment. A module left out is loaded from
 * node_modules, as the runtime loads its own. The worker's load is also set against its floor: a
 * fresh process that only loads the runtime SDK modules the worker uses (samples alternate), and the
 * worker is timed as `import` + the same SDK modules (already loaded by it: free; loaded lazily: paid),
 * so the ratio is what the worker's own code adds to the SDK it cannot avoid. Bundles are left in
 * place after the run (`file`).
 */

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(ROOT, 'node_modules', '.cache', 'bench-bundles');

/** The runtime SDK modules the worker uses: its floor. */
export const WORKER_SDK = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-secrets-manager'] as const;

/** The environment the stack gives the two hot-path functions (values made up: nothing is sent). */
const ENVIRONMENTS: Partial<Record<FunctionCode, Record<string, string>>> = {
  receiveWebhook: {
    QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench.fifo',
    WEBHOOK_SECRET_ARNS: JSON.stringify({
      shopify: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-shopify',
      pos: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-pos',
    }),
    ACTIVITY_TABLE: 'bench-ledger',
  },
  processEvents: {
    LEDGER_TABLE: 'bench-ledger',
    OPENAPI_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-openapi',
  },
};

/** What the Lambda runtime sets for every function (made-up credentials: nothing is signed here). */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIABENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SESSION_TOKEN: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface BundleFigures {
  /** The function's file name (e.g. `process-events`). */
  name: string;
  /** The bundle measured, relative to the repository (left in place). */
  file: string;
  /** Modules left out of the bundle (provided by the Lambda runtime). */
  external: string[];
  bytes: number;
  gzipBytes: number;
  samples: number;
  /** Module evaluation in a fresh process, ms. */
  loadMsP50: number;
  loadMsMax: number;
  /** Load + `depsFromEnv` with the stack's environment (the two hot-path functions), ms. */
  initMsP50?: number;
  rssMiB?: number;
  /** The worker only: its load against the runtime SDK modules it uses, samples alternating. */
  sdkFloor?: SdkFloor & { modules: string[]; sourceMaps: SdkFloor & { nodeOptions: string } };
}

/** The worker with its SDK against the SDK alone, p50s of alternating fresh processes. */
interface SdkFloor {
  floorMsP50: number;
  loadWithSdkMsP50: number;
  ratio: number;
}

interface Sample {
  loadMs: number;
  initMs?: number;
  rssMiB: number;
}

export async function runBundleBench(options: { samples?: number } = {}): Promise<BundleFigures[]> {
  const samples = options.samples ?? 5;
  await mkdir(OUT_DIR, { recursive: true });
  const codes = Object.keys(FUNCTION_ENTRIES) as FunctionCode[];
  const built = [];
  for (const code of codes) {
    const name = functionName(code);
    const outfile = join(OUT_DIR, `${name}.mjs`);
    await build(esbuildOptions(code, outfile));
    const text = await readFile(outfile);
    built.push({ code, name, outfile, bytes: (await stat(outfile)).size, gzipBytes: gzipSync(text).length, runs: [] as Sample[] });
  }
  await writeProbe();
  const worker = built.find((b) => b.code === 'processEvents');
  const floor: number[] = [];
  const withSdk: number[] = [];
  // The same pair under the NODE_OPTIONS the stack gives every function (source maps: Node reads the map at load).
  const floorMaps: number[] = [];
  const withSdkMaps: number[] = [];
  const maps = FUNCTION_BUNDLE.nodeOptions;
  // Interleaved rounds (every function, the floor and the worker with its SDK in each), so a slow
  // moment of the disk or CPU hits all alike.
  for (let i = 0; i < samples; i += 1) {
    for (const b of built) b.runs.push(await sample(b.outfile, ENVIRONMENTS[b.code]));
    if (worker) {
      floor.push((await sample(undefined, ENVIRONMENTS.processEvents, WORKER_SDK)).loadMs);
      withSdk.push((await sample(worker.outfile, ENVIRONMENTS.processEvents, WORKER_SDK)).loadMs);
      floorMaps.push((await sample(undefined, ENVIRONMENTS.processEvents, WORKER_SDK, maps)).loadMs);
      withSdkMaps.push((await sample(worker.outfile, ENVIRONMENTS.processEvents, WORKER_SDK, maps)).loadMs);
    }
  }
  return built.map((b) => {
    const inits = b.runs.flatMap((r) => (r.initMs === undefined ? [] : [r.initMs]));
    const figures: BundleFigures = {
      name: b.name,
      file: relative(ROOT, b.outfile),
      external: [...FUNCTION_EXTERNAL_MODULES[b.code]],
      bytes: b.bytes,
      gzipBytes: b.gzipBytes,
      samples,
      loadMsP50: p50(b.runs.map((r) => r.loadMs)),
      loadMsMax: max(b.runs.map((r) => r.loadMs)),
      ...(inits.length ? { initMsP50: p50(inits), rssMiB: p50(b.runs.map((r) => r.rssMiB)) } : {}),
    };
    if (b === worker) {
      figures.sdkFloor = {
        modules: [...WORKER_SDK],
        ...sdkFloor(floor, withSdk),
        sourceMaps: { nodeOptions: maps, ...sdkFloor(floorMaps, withSdkMaps) },
      };
    }
    return figures;
  });
}

function sdkFloor(floor: number[], withSdk: number[]): SdkFloor {
  const f = p50(floor);
  const w = p50(withSdk);
  return { floorMsP50: f, loadWithSdkMsP50: w, ratio: Math.round((w / f) * 100) / 100 };
}

/** The probe each sample runs (written once per run, before the first sample). */
const PROBE = join(OUT_DIR, 'probe.mjs');

async function writeProbe(): Promise<void> {
  await writeFile(
    PROBE,
    [
      "import { createRequire } from 'node:module';",
      'const [file, sdk, init] = JSON.parse(process.argv[2]);',
      'const t0 = performance.now();',
      'const mod = file ? await import(file) : {};',
      `const req = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});`,
      'for (const m of sdk) req(m);',
      'const loaded = performance.now();',
      "if (init && typeof mod.depsFromEnv === 'function') mod.depsFromEnv(process.env);",
      'const initMs = init ? performance.now() - t0 : undefined;',
      'console.log(JSON.stringify({ loadMs: loaded - t0, initMs, rssMiB: process.memoryUsage().rss / 2 ** 20 }));',
      '',
    ].join('\n'),
  );
}

/**
 * One fresh process of the probe (with `nodeOptions` as its NODE_OPTIONS, else none): evaluate the
 * bundle (if any), then require `sdk` (from the repository, as the runtime's own), then build its
 * dependencies when it has an environment here.
 */
async function sample(
  outfile: string | undefined,
  env: Record<string, string> | undefined,
  sdk: readonly string[] = [],
  nodeOptions = '',
): Promise<Sample> {
  const init = env !== undefined && sdk.length === 0;
  const args = JSON.stringify([outfile ?? null, sdk, init]);
  const { stdout } = await run(process.execPath, [PROBE, args], {
    env: { ...process.env, ...LAMBDA_ENV, ...env, NODE_OPTIONS: nodeOptions },
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Sample;
}

const p50 = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);
const max = (xs: number[]) => round(Math.max(...xs));
const round = (n: number): number => Math.round(n * 10) / 10;
