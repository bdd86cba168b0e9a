import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { FUNCTION_EXTERNAL_MODULES } from '../infra/paths.js';

/**
 * Bundle size and module load time of each function, built the way the CDK stack builds them
 * (infra/constructs/bundled-function.ts: esbuild, ESM, minified; both without the AWS SDK, which the
 * Lambda runtime provides). Each sample is a fresh Node process: load time is evaluating the module;
 * init time is that plus building what the first event needs (depsFromEnvironment with the stack's
 * environment: the SDK clients, the Open API client, logger and metrics), which is what a cold start
 * pays before the first request leaves. A module left out is loaded from node_modules, as the runtime
 * loads its own. With `external: []` the same function is also built with the pinned SDK bundled, so
 * the trade-off has figures.
 */

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Each function with the modules left out of its bundle, as infra/stacks/integration-stack.ts builds it
 * (both take the Lambda runtime's AWS SDK), and the environment the stack gives it (values made up: no
 * request is sent while the dependencies are built).
 */
export const FUNCTIONS = [
  {
    name: 'receive-webhook',
    external: FUNCTION_EXTERNAL_MODULES.receiveWebhook,
    env: {
      QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench.fifo',
      WEBHOOK_SECRET_ARNS: JSON.stringify({
        shopify: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-shopify',
        pos: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-pos',
      }),
    },
  },
  {
    name: 'process-events',
    external: FUNCTION_EXTERNAL_MODULES.processEvents,
    env: {
      LEDGER_TABLE: 'bench-ledger',
      OPENAPI_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench-openapi',
    },
  },
] as const;

/** What the Lambda runtime sets for every function (made-up credentials: nothing is signed here). */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIABENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_SESSION_TOKEN: 'bench',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

export interface Measured {
  /** Minified bundle, bytes (source map not counted). */
  bytes: number;
  gzipBytes: number;
  /** Median module evaluation time in a fresh process, ms. */
  loadMsP50: number;
  loadMsMax: number;
  /** Median of module evaluation + building the dependencies (clients) in a fresh process, ms. */
  initMsP50: number;
  initMsMax: number;
  /** Resident memory of the process once the dependencies are built (median), MiB. */
  rssMiB: number;
}

export interface BundleFigures extends Measured {
  name: string;
  /** Modules left out of the bundle (provided by the Lambda runtime). */
  external: string[];
  samples: number;
  /** The same function with the pinned AWS SDK bundled (nothing left out), for the trade-off. */
  pinnedSdk?: Measured;
  /** The same function, runtime SDK, but the ledger's SDK taken by ESM `import` instead of require(). */
  esmImportSdk?: Measured;
  /**
   * The worker with its DynamoDB client bundled (pinned, tree-shaken) and the rest of the SDK (Secrets
   * Manager, loaded on the first secret read; the credential providers) left to the runtime.
   */
  hybridSdk?: Measured;
}

interface Variant {
  name: string;
  outfile: string;
  env: Record<string, string>;
  bytes: number;
  gzipBytes: number;
  load: number[];
  init: number[];
  rss: number[];
}

const HYBRID_EXTERNAL = [
  '@aws-sdk/client-secrets-manager',
  '@aws-sdk/client-sqs',
  '@aws-sdk/credential-provider-*',
  '@aws-sdk/nested-clients',
  '@aws-sdk/token-providers',
  '@smithy/credential-provider-imds',
];

/**
 * shared/ledger/sdk.ts takes the SDK with require(), which esbuild leaves alone; for the variants that
 * need it (pinned: bundled; esm: an ESM import) it is replaced by static re-exports.
 */
const SDK_REEXPORTS = [
  "export { DynamoDBClient, ConditionalCheckFailedException, CreateTableCommand, ResourceInUseException } from '@aws-sdk/client-dynamodb';",
  "export { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';",
].join('\n');
const staticLedgerSdk: Plugin = {
  name: 'static-ledger-sdk',
  setup(b) {
    b.onResolve({ filter: /^\.\/sdk\.js$/ }, (args) =>
      args.importer.includes(join('shared', 'dynamodb')) ? { path: 'ledger-sdk', namespace: 'static-ledger-sdk' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'static-ledger-sdk' }, () => ({ contents: SDK_REEXPORTS, resolveDir: ROOT, loader: 'ts' }));
  },
};

export async function runBundleBench(options: { samples?: number } = {}): Promise<BundleFigures[]> {
  const samples = options.samples ?? 5;
  const outDir = join(ROOT, 'node_modules', '.cache', 'bench-bundles');
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const variants = new Map<string, Variant>();
  const add = async (key: string, entry: string, external: string[], env: Record<string, string>, plugins: Plugin[] = []) => {
    const outfile = join(outDir, `${key}.mjs`);
    await bundle(entry, outfile, external, plugins);
    variants.set(key, {
      name: key,
      outfile,
      env,
      bytes: (await stat(outfile)).size,
      gzipBytes: gzipSync(await readFile(outfile)).length,
      load: [],
      init: [],
      rss: [],
    });
  };
  const present = FUNCTIONS.filter(({ name }) => existsSync(join(ROOT, 'functions', `${name}.ts`)));
  for (const { name, external, env } of present) {
    const entry = join(ROOT, 'functions', `${name}.ts`);
    await add(name, entry, [...external], env);
    if (external.length > 0) await add(`${name}-pinned-sdk`, entry, [], env, [staticLedgerSdk]);
    if (name === 'process-events') {
      await add(`${name}-esm-import-sdk`, entry, [...external], env, [staticLedgerSdk]);
      await add(`${name}-hybrid-sdk`, entry, HYBRID_EXTERNAL, env, [staticLedgerSdk]);
    }
  }
  // Samples interleaved (one of each variant per round), so a load change on the machine hits all alike.
  for (let i = 0; i < samples; i += 1) {
    for (const v of variants.values()) {
      const t = await sample(outDir, v);
      v.load.push(t.loadMs);
      v.init.push(t.initMs);
      v.rss.push(t.rssMiB);
    }
  }
  const figures = (key: string): Measured | undefined => {
    const v = variants.get(key);
    if (!v) return undefined;
    return {
      bytes: v.bytes,
      gzipBytes: v.gzipBytes,
      loadMsP50: p50(v.load),
      loadMsMax: max(v.load),
      initMsP50: p50(v.init),
      initMsMax: max(v.init),
      rssMiB: p50(v.rss),
    };
  };
  return present.map(({ name, external }) => {
    const pinned = figures(`${name}-pinned-sdk`);
    const esm = figures(`${name}-esm-import-sdk`);
    const hybrid = figures(`${name}-hybrid-sdk`);
    return {
      name,
      external: [...external],
      ...(figures(name) as Measured),
      samples,
      ...(pinned ? { pinnedSdk: pinned } : {}),
      ...(esm ? { esmImportSdk: esm } : {}),
      ...(hybrid ? { hybridSdk: hybrid } : {}),
    };
  });
}

async function bundle(entry: string, outfile: string, external: string[], plugins: Plugin[]): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    external,
    plugins,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'silent',
  });
}

/** One fresh process: evaluate the bundle, then build its dependencies from the environment. */
async function sample(outDir: string, v: Variant): Promise<{ loadMs: number; initMs: number; rssMiB: number }> {
  const probe = join(outDir, `load-${v.name}.mjs`);
  if (!existsSync(probe)) {
    await writeFile(
      probe,
      [
        'const t0 = performance.now();',
        `const mod = await import(${JSON.stringify(v.outfile)});`,
        'const loaded = performance.now();',
        'mod.depsFromEnvironment(process.env);',
        'const initMs = performance.now() - t0;',
        'console.log(JSON.stringify({ loadMs: loaded - t0, initMs, rssMiB: process.memoryUsage().rss / 2 ** 20 }));',
        '',
      ].join('\n'),
    );
  }
  const { stdout } = await run(process.execPath, [probe], { env: { ...process.env, ...LAMBDA_ENV, ...v.env } });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { loadMs: number; initMs: number; rssMiB: number };
}

const p50 = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0);
const max = (xs: number[]) => round(Math.max(...xs));
const round = (n: number): number => Math.round(n * 10) / 10;
